"""The examples against the same models written in NumPyro.

For each example in dsl-examples/ the NumPyro model below is its
transliteration. With a posterior drawn from NumPyro's prior:
- `aimz-run log-likelihood` equals `numpyro.infer.util.log_likelihood`
  (1e-4 relative to max(1, |log p|): f32 models, see check());
- `aimz-run predict` draws the output from the same distribution as
  NumPyro's `Predictive` on that posterior: paired per (draw,
  observation), the mean difference of y (and of y^2, and of each
  category's indicator) is within 5 standard errors of zero;
- `aimz-run prior-predictive` draws every latent from NumPyro's prior:
  a two-sample Kolmogorov-Smirnov test per element, p > 1e-4.

Run by the reference environment's python (.venv, tools/setup_venv.sh);
exits 77 (skip) when NumPyro is not installed there.
"""

import zlib

import numpy as np

import reference  # noqa: F401  (NumPyro or skip; float64 JAX)
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpyro  # noqa: E402
import numpyro.distributions as dist  # noqa: E402
from numpyro.infer import Predictive  # noqa: E402
from numpyro.infer.util import log_likelihood  # noqa: E402
from scipy import stats  # noqa: E402

import aimz_e2e as E  # noqa: E402

N, D, PRIOR = 1500, 60, 4000
K = 3


# --------------------------------------------------- the NumPyro models

def linreg(X, y=None):
    alpha = numpyro.sample("alpha", dist.Normal(0, 1))
    beta = numpyro.sample("beta", dist.Normal(0, 1).expand([X.shape[1]]))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1))
    with numpyro.plate("obs", X.shape[0]):
        numpyro.sample("y", dist.Normal(alpha + X @ beta, sigma), obs=y)


def logistic(X, y=None):
    intercept = numpyro.sample("intercept", dist.Normal(0, 2.5))
    coef = numpyro.sample("coef", dist.Normal(0, 1).expand([X.shape[1]]))
    with numpyro.plate("obs", X.shape[0]):
        numpyro.sample("y", dist.Bernoulli(logits=intercept + X @ coef), obs=y)


def poisson(X, exposure, y=None):
    beta0 = numpyro.sample("beta0", dist.Normal(0, 1))
    beta = numpyro.sample("beta", dist.Normal(0, 0.5).expand([X.shape[1]]))
    with numpyro.plate("obs", X.shape[0]):
        numpyro.sample("y", dist.Poisson(exposure * jnp.exp(beta0 + X @ beta)),
                       obs=y)


def negbin_glm(X, exposure, y=None):
    alpha = numpyro.sample("alpha", dist.Normal(0, 2))
    beta = numpyro.sample("beta", dist.Normal(0, 1).expand([X.shape[1]]))
    phi = numpyro.sample("phi", dist.HalfNormal(5))
    with numpyro.plate("obs", X.shape[0]):
        mu = jnp.exp(alpha + X @ beta + jnp.log(exposure))
        numpyro.sample("y", dist.NegativeBinomial2(mu, phi), obs=y)


def zero_inflated_poisson(X, y=None):
    gate_logit = numpyro.sample("gate_logit", dist.Normal(-1, 1))
    alpha = numpyro.sample("alpha", dist.Normal(0, 1))
    beta = numpyro.sample("beta", dist.Normal(0, 0.5).expand([X.shape[1]]))
    with numpyro.plate("obs", X.shape[0]):
        rate = jnp.exp(alpha + X @ beta)
        numpyro.sample("y", dist.ZeroInflatedDistribution(
            dist.Poisson(rate), gate_logits=gate_logit), obs=y)



def hurdle_poisson(X, y=None):
    gamma0 = numpyro.sample("gamma0", dist.Normal(-0.5, 1))
    gamma = numpyro.sample("gamma", dist.Normal(0, 0.5).expand([X.shape[1]]))
    alpha = numpyro.sample("alpha", dist.Normal(0, 1))
    beta = numpyro.sample("beta", dist.Normal(0, 0.5).expand([X.shape[1]]))
    with numpyro.plate("obs", X.shape[0]):
        rate = numpyro.deterministic("rate", jnp.exp(alpha + X @ beta))
        numpyro.sample("y", dist.HurdleDistribution(
            dist.Poisson(rate), gate_logits=gamma0 + X @ gamma), obs=y)

def horseshoe_logistic(X, tau0, prior_scale, y=None):
    k = X.shape[1]
    tau = numpyro.sample("tau", dist.HalfCauchy(tau0))
    lam = numpyro.sample("lam", dist.HalfCauchy(1).expand([k]))
    z = numpyro.sample("z", dist.Normal(0, 1).expand([k]))
    intercept = numpyro.sample("intercept", dist.Normal(0, 2.5))
    beta = z * lam * tau * prior_scale
    with numpyro.plate("obs", X.shape[0]):
        numpyro.sample("y", dist.Bernoulli(logits=intercept + X @ beta), obs=y)


def hierarchical(x, g, y=None):
    mu_a = numpyro.sample("mu_a", dist.Normal(0, 5))
    sigma_a = numpyro.sample("sigma_a", dist.HalfNormal(2))
    with numpyro.plate("groups", 8):
        a = numpyro.sample("a", dist.Normal(mu_a, sigma_a))
    b = numpyro.sample("b", dist.Normal(0, 1))
    sigma = numpyro.sample("sigma", dist.HalfCauchy(1))
    with numpyro.plate("obs", x.shape[0]):
        numpyro.sample("y", dist.Normal(a[g] + b * x, sigma), obs=y)


def multinomial_logit(X, y=None, C=4):
    alpha = numpyro.sample("alpha", dist.Normal(0, 2).expand([C]))
    beta = numpyro.sample("beta", dist.Normal(0, 1).expand([X.shape[1], C]))
    with numpyro.plate("obs", X.shape[0]):
        numpyro.sample("y", dist.Categorical(logits=alpha + X @ beta), obs=y)


def ordinal_regression(X, y=None):
    beta = numpyro.sample("beta", dist.Normal(0, 1).expand([X.shape[1]]))
    cutpoints = numpyro.sample("cutpoints", dist.TransformedDistribution(
        dist.Normal(0, 5).expand([3]), dist.transforms.OrderedTransform()))
    with numpyro.plate("obs", X.shape[0]):
        numpyro.sample("y", dist.OrderedLogistic(X @ beta, cutpoints), obs=y)


def gaussian_mixture(x, y=None):
    w = numpyro.sample("w", dist.Dirichlet(jnp.array([1.0, 1.0])))
    mu = numpyro.sample("mu", dist.Normal(0, 5).expand([2]))
    sigma = numpyro.sample("sigma", dist.HalfNormal(2).expand([2]))
    with numpyro.plate("obs", x.shape[0]):
        numpyro.sample("y", dist.MixtureSameFamily(
            dist.Categorical(probs=w), dist.Normal(mu, sigma)), obs=y)


def varying_slopes(x, g, y=None, J=5):
    mu = numpyro.sample("mu", dist.Normal(0, 2).expand([2]))
    tau = numpyro.sample("tau", dist.HalfNormal(1).expand([2]))
    L_omega = numpyro.sample("L_omega", dist.LKJCholesky(2, 2.0))
    with numpyro.plate("groups", J):
        ab = numpyro.sample("ab", dist.MultivariateNormal(
            mu, scale_tril=tau[:, None] * L_omega))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1))
    with numpyro.plate("obs", x.shape[0]):
        numpyro.sample("y", dist.Normal(ab[g, 0] + ab[g, 1] * x, sigma), obs=y)


def robust_regression(X, y=None):
    alpha = numpyro.sample("alpha", dist.Normal(0, 5))
    beta = numpyro.sample("beta", dist.Normal(0, 1).expand([X.shape[1]]))
    # TruncatedDistribution(StudentT(3, 0, 2.5), low=0), as the model says,
    # samples only with tensorflow_probability; folding the symmetric t at
    # its centre is the same distribution (density and draws).
    sigma = numpyro.sample("sigma", dist.FoldedDistribution(
        dist.StudentT(3, 0, 2.5)))
    nu = numpyro.sample("nu", dist.TruncatedDistribution(dist.Normal(10, 10),
                                                         low=2))
    with numpyro.plate("obs", X.shape[0]):
        numpyro.sample("y", dist.StudentT(nu, alpha + X @ beta, sigma), obs=y)


def truncated_regression(X, y=None):
    alpha = numpyro.sample("alpha", dist.Normal(1, 1))
    beta = numpyro.sample("beta", dist.Normal(0, 1).expand([X.shape[1]]))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1))
    with numpyro.plate("obs", X.shape[0]):
        numpyro.sample("y", dist.TruncatedNormal(alpha + X @ beta, sigma, low=0.0),
                       obs=y)


def measurement_error(tau, x_meas=None, y=None):
    mu_x = numpyro.sample("mu_x", dist.Normal(0, 10))
    sigma_x = numpyro.sample("sigma_x", dist.HalfNormal(5))
    alpha = numpyro.sample("alpha", dist.Normal(0, 10))
    beta = numpyro.sample("beta", dist.Normal(0, 10))
    sigma = numpyro.sample("sigma", dist.HalfNormal(5))
    with numpyro.plate("obs", tau.shape[0]):
        x = numpyro.sample("x", dist.Normal(mu_x, sigma_x))
        numpyro.sample("x_meas", dist.Normal(x, tau), obs=x_meas)
        numpyro.sample("y", dist.Normal(alpha + beta * x, sigma), obs=y)


def centred_regression(X, y=None):
    # brms: predictors centred on their column means in transformed data.
    means_X = X.mean(axis=0)
    Xc = X - means_X
    Intercept = numpyro.sample("Intercept", dist.StudentT(3, 0, 2.5))
    b = numpyro.sample("b", dist.Normal(0, 1).expand([X.shape[1]]))
    # The half-t as robust_regression takes it (see there).
    sigma = numpyro.sample("sigma", dist.FoldedDistribution(
        dist.StudentT(3, 0, 2.5)))
    numpyro.deterministic("b_Intercept", Intercept - means_X @ b)
    with numpyro.plate("obs", X.shape[0]):
        numpyro.sample("y", dist.Normal(Intercept + Xc @ b, sigma), obs=y)


FA_D, FA_K = 5, 2


def factor_analysis(n, Y=None):
    D, K = FA_D, FA_K
    w = numpyro.sample("w", dist.Normal(0, 1).expand([D * K - 1]))
    psi = numpyro.sample("psi", dist.HalfNormal(1).expand([D]))
    mu = numpyro.sample("mu", dist.Normal(0, 2).expand([D]))
    W = jnp.zeros((D, K)).at[jnp.tril_indices(D, 0, K)].set(w)
    Sigma = W @ W.T + jnp.diag(psi * psi)
    with numpyro.plate("obs", n):
        numpyro.sample("Y", dist.MultivariateNormal(mu, covariance_matrix=Sigma),
                       obs=Y)


def gp_regression(X, Y=None):
    # NumPyro's examples/gp.py, its kernel inlined.
    var = numpyro.sample("kernel_var", dist.LogNormal(0.0, 10.0))
    noise = numpyro.sample("kernel_noise", dist.LogNormal(0.0, 10.0))
    length = numpyro.sample("kernel_length", dist.LogNormal(0.0, 10.0))
    k = var * jnp.exp(-0.5 * jnp.power((X[:, None] - X) / length, 2.0))
    k += (noise + 1.0e-6) * jnp.eye(X.shape[0])
    numpyro.sample("Y", dist.MultivariateNormal(
        loc=jnp.zeros(X.shape[0]), covariance_matrix=k), obs=Y)


# ------------------------------------------------------------ the data

def data_for(name, rng):
    X = rng.normal(0, 0.6, (N, K)).astype(np.float32)
    x = rng.normal(0, 1, N).astype(np.float32)
    if name in ("poisson", "negbin_glm"):
        return dict(X=X, exposure=rng.uniform(0.5, 2, N).astype(np.float32))
    if name == "horseshoe_logistic":
        return dict(X=X, tau0=np.float32(0.5),
                    prior_scale=rng.uniform(0.5, 2, K).astype(np.float32))
    if name == "hierarchical":
        return dict(x=x, g=rng.integers(0, 8, N).astype(np.int32))
    if name == "varying_slopes":
        return dict(x=x, g=rng.integers(0, 5, N).astype(np.int32))
    if name == "gaussian_mixture":
        return dict(x=x)
    if name == "centred_regression":
        return dict(X=X + np.float32([3, -1, 20]))  # means far from 0
    if name == "factor_analysis":
        return dict(n=N)  # no inputs: n is --num-observations
    if name == "measurement_error":
        return dict(tau=rng.uniform(0.2, 1, N).astype(np.float32))
    return dict(X=X)


MODELS = {
    "linreg": (linreg, "f", {}),
    "logistic": (logistic, "c", {}),
    "poisson": (poisson, "i", {}),
    "negbin_glm": (negbin_glm, "i", {}),
    "zero_inflated_poisson": (zero_inflated_poisson, "i", {}),
    "hurdle_poisson": (hurdle_poisson, "i", {}),
    "horseshoe_logistic": (horseshoe_logistic, "c", {}),
    "hierarchical": (hierarchical, "f", {}),
    "multinomial_logit": (multinomial_logit, "c", {"C": 4}),
    "ordinal_regression": (ordinal_regression, "c", {}),
    "gaussian_mixture": (gaussian_mixture, "f", {}),
    "varying_slopes": (varying_slopes, "f", {"J": 5}),
    "robust_regression": (robust_regression, "f", {}),
    "truncated_regression": (truncated_regression, "f", {}),
    # Two observed outputs: the kind of each.
    "measurement_error": (measurement_error, {"x_meas": "f", "y": "f"}, {}),
    "factor_analysis": (factor_analysis, {"Y": "f"}, {"D": FA_D}),
    "centred_regression": (centred_regression, "f", {}),
}

# Arguments of the NumPyro model that are not aimz-run inputs: passed to
# aimz-run as --num-observations.
STATIC = {"factor_analysis": ("n",)}


def outputs_of(kind):
    """{output: kind}: "y" for the one-output models."""
    return kind if isinstance(kind, dict) else {"y": kind}


def truncated_regression_log_likelihood(post, data, y, ref):
    """NumPyro's TruncatedNormal.log_prob is +inf where a tiny scale puts y
    far out in the tail (its log mass cancels); there, scipy's truncnorm,
    which takes it from the log CDF."""
    bad = ~np.isfinite(ref)
    mu = (post["alpha"][:, None].astype(np.float64)
          + post["beta"].astype(np.float64) @ data["X"].T.astype(np.float64))
    sigma = post["sigma"][:, None].astype(np.float64)
    exact = stats.truncnorm.logpdf(y[None, :], (0 - mu) / sigma, np.inf,
                                   loc=mu, scale=sigma)
    return np.where(bad, exact, ref)


# Outcomes bounded by the model (every predictive draw inside).
SUPPORT = {"truncated_regression": (0.0, np.inf)}

# Models whose NumPyro log-likelihood is wrong somewhere, and the fix.
EXACT_LOG_LIKELIHOOD = {"truncated_regression": truncated_regression_log_likelihood}


def as_jax(d):
    return {k: v if isinstance(v, int) else
            jnp.asarray(np.asarray(v).astype(np.float64)
                        if np.asarray(v).dtype.kind == "f" else v)
            for k, v in d.items()}


class Examples(E.E2ETestCase):
    def check_predictive(self, name, o, kind, ours, theirs):
        self.assertEqual(ours.shape, theirs.shape)
        # NumPyro's TruncatedNormal draws inf or NaN past ~37 sd (a tiny
        # scale far from the bound): ours must be finite there, and those
        # pairs stay out of the paired statistics.
        self.assertTrue(np.all(np.isfinite(ours)),
                        "%s: non-finite draws of %s" % (name, o))
        if name in SUPPORT:
            low, high = SUPPORT[name]
            self.assertTrue(np.all((ours >= low) & (ours <= high)), name)
        paired = np.isfinite(theirs)
        self.assertGreater(paired.mean(), 0.99, name)
        ours, theirs = ours[paired], theirs[paired]
        stats_ = [(o, ours, theirs), (o + "^2", ours ** 2, theirs ** 2)]
        if kind == "c":
            for c in np.unique(theirs):
                stats_.append(("%s==%d" % (o, c), (ours == c) * 1.0,
                               (theirs == c) * 1.0))
        for what, a, b in stats_:
            d = (a - b).ravel()
            z = d.mean() / (d.std() / np.sqrt(d.size) + 1e-300)
            self.assertLess(abs(z), 5, "%s predictive %s: z = %.2f" %
                            (name, what, z))

    def numpyro_prior(self, name, rng, num):
        fn, _, _ = MODELS[name]
        data = data_for(name, np.random.default_rng(1))
        s = Predictive(fn, num_samples=num)(
            jax.random.PRNGKey(int(rng.integers(1 << 30))), **as_jax(data))
        return data, {k: np.asarray(v) for k, v in s.items()}

    def check(self, name):
        fn, kind, dims = MODELS[name]
        outputs = outputs_of(kind)
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        data, prior = self.numpyro_prior(name, rng, D)
        post = {k: v.astype(np.float32) for k, v in prior.items()
                if k not in outputs}
        observed = {o: prior[o][0].astype(np.int32 if k != "f" else np.float32)
                    for o, k in outputs.items()}
        so = E.model(name)
        static = STATIC.get(name, ())
        paths = {k: self.save("%s_%s.npy" % (name, k), np.asarray(v))
                 for k, v in data.items() if k not in static}
        count = (["--num-observations", str(data["n"])] if "n" in static
                 else [])
        pp = self.savez("%s_post.npz" % name, **post)

        # Log-likelihood: NumPyro's on the same (f32-rounded) posterior, one
        # array per output.
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  dict(paths, **{o: self.save("%s_%s.npy" % (name, o), v)
                                 for o, v in observed.items()}), out,
                  posterior=pp, extra=count)
        got_all = E.read_arrays(out)
        ref_all = log_likelihood(fn, as_jax(post), **as_jax(data),
                                 **{o: jnp.asarray(v)
                                    for o, v in observed.items()})
        for o in outputs:
            got, ref = got_all[o], np.asarray(ref_all[o])
            self.assertEqual(got.shape, ref.shape)
            if name in EXACT_LOG_LIKELIHOOD:
                ref = EXACT_LOG_LIKELIHOOD[name](post, data, observed[o], ref)
            # 1e-4, not test_log_densities' 1e-5: the f32 linear
            # predictor's rounding (~1e-7 of its terms) is amplified by
            # |z| / scale, and prior draws include scales of 0.02.
            err = np.abs(got - ref) / np.maximum(1, np.abs(ref))
            self.assertLess(err.max(), 1e-4, "%s: log-likelihood of %s" %
                            (name, o))

        # Predictive: the same distribution as NumPyro's on that posterior.
        out = self.fresh(".npz")
        E.run_cmd("predict", so, paths, out, posterior=pp, seed=5,
                  extra=count)
        ours_all = E.read_arrays(out)
        theirs_all = Predictive(fn, posterior_samples=as_jax(post))(
            jax.random.PRNGKey(7), **as_jax(data))
        for o, k in outputs.items():
            self.check_predictive(name, o, k,
                                  ours_all[o].astype(np.float64),
                                  np.asarray(theirs_all[o]).astype(np.float64))

        # Prior predictive: every latent from NumPyro's prior.
        _, theirs = self.numpyro_prior(name, rng, PRIOR)
        out = self.fresh(".npz")
        sites = sorted(k for k in theirs if k not in outputs)
        E.run_cmd("prior-predictive", so, paths, out, num_samples=PRIOR,
                  sites=sites + list(outputs), seed=3,
                  extra=count + sum((["--dim", "%s=%d" % kv]
                                     for kv in dims.items()), []))
        ours = E.read_arrays(out)
        for s in sites:
            a = ours[s].reshape(PRIOR, -1)
            b = theirs[s].reshape(PRIOR, -1)
            self.assertEqual(a.shape, b.shape, s)
            for j in range(min(a.shape[1], 8)):
                if np.all(b[:, j] == b[0, j]):  # a constant (LKJ's L[0, 0])
                    np.testing.assert_allclose(a[:, j], b[0, j], rtol=1e-6)
                    continue
                p = stats.ks_2samp(a[:, j], b[:, j]).pvalue
                self.assertGreater(p, 1e-4, "%s prior %s[%d]: KS p = %.2g" %
                                   (name, s, j, p))


class GaussianProcess(E.E2ETestCase):
    """gp_regression: Y is one MultivariateNormal over every observation,
    so the log-likelihood is one number per draw; checked on NumPyro's own
    data (examples/gp.py) and a posterior near its fit, since its LogNormal(0,
    10) prior's draws make kernels no f32 Cholesky survives."""
    N, D = 50, 60

    def test_gp_regression(self):
        rng = np.random.default_rng(25)
        X = np.linspace(-1, 1, self.N).astype(np.float32)
        Y = (X + 0.2 * X ** 3 + 0.5 * (0.5 + X) ** 2 * np.sin(4 * X) +
             0.2 * rng.normal(size=self.N)).astype(np.float32)
        post = dict(kernel_var=rng.lognormal(0, 0.5, self.D),
                    kernel_noise=rng.lognormal(np.log(0.05), 0.3, self.D),
                    kernel_length=rng.lognormal(np.log(0.5), 0.3, self.D))
        post = {k: v.astype(np.float32) for k, v in post.items()}
        so = E.model("gp_regression")
        data = {"X": self.save("gp_X.npy", X)}
        pp = self.savez("gp_post.npz", **post)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, dict(data, Y=self.save("gp_Y.npy", Y)),
                  out, posterior=pp)
        got = E.read_arrays(out)["Y"]
        ref = np.asarray(log_likelihood(gp_regression, as_jax(post),
                                        X=jnp.asarray(X, jnp.float64),
                                        Y=jnp.asarray(Y, jnp.float64))["Y"])
        self.assertEqual(got.shape, ref.shape)
        self.assertEqual(got.shape, (self.D,))
        # An f32 Cholesky of a 50 x 50 kernel whose condition number
        # reaches ~1e4 (noise 0.02 beside a variance of 4): relative 1e-3
        # of max(1, |log p|) (measured 1.1e-4), against NumPyro in f64.
        err = np.abs(got - ref) / np.maximum(1, np.abs(ref))
        self.assertLess(err.max(), 1e-3)
        # Predictive draws: the same distribution as NumPyro's.
        out = self.fresh(".npz")
        E.run_cmd("predict", so, data, out, posterior=pp, seed=5)
        ours = E.read_arrays(out)["Y"].astype(np.float64)
        theirs = Predictive(gp_regression, posterior_samples=as_jax(post))(
            jax.random.PRNGKey(7), X=jnp.asarray(X, jnp.float64))["Y"]
        Examples.check_predictive(self, "gp_regression", "Y", "f", ours,
                                  np.asarray(theirs, np.float64))
        # The prior: every latent as NumPyro draws it.
        theirs = Predictive(gp_regression, num_samples=PRIOR)(
            jax.random.PRNGKey(3), X=jnp.asarray(X, jnp.float64))
        out = self.fresh(".npz")
        latents = ["kernel_length", "kernel_noise", "kernel_var"]
        E.run_cmd("prior-predictive", so, data, out, num_samples=PRIOR,
                  sites=latents, seed=3)
        ours = E.read_arrays(out)
        for s in latents:
            p = stats.ks_2samp(np.log(ours[s]),
                               np.log(np.asarray(theirs[s]))).pvalue
            self.assertGreater(p, 1e-4, "prior %s: KS p = %.2g" % (s, p))


def add_tests():
    for name in MODELS:
        setattr(Examples, "test_" + name, lambda self, n=name: self.check(n))


add_tests()

if __name__ == "__main__":
    E.main()
