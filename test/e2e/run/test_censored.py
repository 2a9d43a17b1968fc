"""Censored likelihoods and CDFs: log_cdf / log_ccdf of every distribution
with a CDF against SciPy's logcdf / logsf (tails included) at f64 and f32,
and three censored survival regressions on log-likelihood and predict:

- a Weibull regression with NumPyro's RightCensoredDistribution(base,
  censored=c), its draws the base's own;
- a log-normal regression with PyMC's Censored(dist, upper=cap)
  (administrative censoring), its draws clipped at the cap;
- the Stan User's Guide's censored model (exponential here), the censored
  values scored by `N_cens * log_ccdf(Exponential(rate), U)`, Stan's
  `target += N_cens * exponential_lccdf(U | rate)`;
- Weibull and log-normal regressions on interval-censored inspection data
  with NumPyro's IntervalCensoredDistribution;
- censored counts: a top-coded negative binomial regression (brms's
  `y | cens(censored) ~ x, family = negbinomial()`, NumPyro's
  RightCensoredDistribution: log P(Y > y)), a top-coded Poisson regression
  with PyMC's Censored (log P(Y >= cap) at the cap, draws clipped), and a
  binomial with a detection limit and interval-censored counts.
"""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


def von_mises_tails(loc, k):
    """(log F, log S, support) of VonMises(loc, k) on [-pi, pi]."""
    g = stats.vonmises(k, loc=loc).cdf
    return (lambda x: np.log(g(x) - g(-np.pi)), lambda x: np.log(g(np.pi) - g(x)),
            (-np.pi, np.pi))


X_ANGLE = np.concatenate([[-np.pi], np.linspace(-3.1, 3.1, 23), [np.pi]])


def folded_tails(ref):
    """|X|'s log CDF and log survival for X from the frozen SciPy ref:
    S(x) = S_X(x) + F_X(-x) (no cancellation), F(x) = 1 - S(x) where that
    is above 1/2, else F_X(x) - F_X(-x) (x small)."""
    def logsf(x):
        return np.logaddexp(ref.logsf(x), ref.logcdf(-x))

    def logcdf(x):
        ls = logsf(x)
        return np.where(ls < -np.log(2), np.log(-np.expm1(ls)),
                        np.log(ref.cdf(x) - ref.cdf(-x)))
    return (logcdf, logsf, (0.0, np.inf))


def kumaraswamy_logcdf(x, a, b):
    return np.log1p(-(1 - x ** a) ** b)


def kumaraswamy_logsf(x, a, b):
    return b * np.log1p(-x ** a)


def skew_normal_log_cdf(x, alpha, mu, sigma):
    """log F by adaptive quadrature of the density relative to its value
    at the upper end (SciPy's skewnorm.logcdf is log(Phi(z) - 2 T(z,
    alpha)), which cancels to nothing in the light tail)."""
    from scipy import integrate
    out = []
    for xi in np.atleast_1d(x):
        z = (xi - mu) / sigma
        if np.isinf(z):
            out.append(0.0 if z > 0 else -np.inf)
            continue
        if z > 0:  # 1 - P(X > x), X > x the mirror's lower tail
            out.append(np.log1p(-np.exp(skew_normal_log_cdf(-xi, -alpha, -mu, sigma)[0])))
            continue
        l0 = -0.5 * z * z + special.log_ndtr(alpha * z)
        f = lambda t: np.exp(-0.5 * t * t + special.log_ndtr(alpha * t) - l0)  # noqa: E731
        width = 1.0 / (abs(z) * (1 + alpha * alpha) + np.sqrt(1 + alpha * alpha))
        v = sum(integrate.quad(f, z - (2.0 ** (k + 1) - 1) * width, z - (2.0 ** k - 1) * width,
                               epsabs=0, epsrel=1e-13, limit=200)[0] for k in range(12))
        v += integrate.quad(f, -np.inf, z - 4095 * width, epsabs=0, epsrel=1e-13)[0]
        out.append(np.log(2) - 0.5 * np.log(2 * np.pi) + l0 + np.log(v))
    return np.array(out)


# name: (aimz call with parameters, SciPy frozen distribution or a pair of
# functions (logcdf, logsf), the x grid)
X_REAL = np.concatenate([-np.geomspace(1e-3, 40, 12)[::-1], [0.0],
                         np.geomspace(1e-3, 40, 12)])
X_POS = np.concatenate([[0.0], np.geomspace(1e-4, 60, 20)])
X_UNIT = np.concatenate([[0.0], np.geomspace(1e-6, 0.5, 8),
                         1 - np.geomspace(1e-6, 0.5, 8)[::-1], [1.0]])
X_COUNT = np.array([-1.0, 0.0, 1.0, 2.0, 3.5, 5.0, 9.0, 20.0, 60.0])
CASES = {
    "normal": ("Normal(0.5, 2.0)", stats.norm(0.5, 2.0), X_REAL),
    "cauchy": ("Cauchy(-1.0, 0.5)", stats.cauchy(-1.0, 0.5), X_REAL),
    "studentt": ("StudentT(3.5, 0.2, 1.5)", stats.t(3.5, 0.2, 1.5), X_REAL),
    "laplace": ("Laplace(1.0, 0.7)", stats.laplace(1.0, 0.7), X_REAL),
    "logistic": ("Logistic(0.0, 1.3)", stats.logistic(0.0, 1.3), X_REAL),
    "gumbel": ("Gumbel(0.5, 2.0)", stats.gumbel_r(0.5, 2.0), X_REAL),
    "asymlaplace": ("AsymmetricLaplace(0.3, 1.2, 0.6)",
                    stats.laplace_asymmetric(0.6, 0.3, 1.2), X_REAL),
    "exponential": ("Exponential(0.7)", stats.expon(scale=1 / 0.7), X_POS),
    "weibull": ("Weibull(2.0, 1.5)", stats.weibull_min(1.5, scale=2.0), X_POS),
    "pareto": ("Pareto(0.5, 2.5)", stats.pareto(2.5, scale=0.5), X_POS),
    "gamma": ("Gamma(2.5, 1.5)", stats.gamma(2.5, scale=1 / 1.5), X_POS),
    "invgamma": ("InverseGamma(3.0, 2.0)", stats.invgamma(3.0, scale=2.0),
                 X_POS),
    "lognormal": ("LogNormal(0.3, 0.8)",
                  stats.lognorm(0.8, scale=np.exp(0.3)), X_POS),
    "halfnormal": ("HalfNormal(1.5)", stats.halfnorm(scale=1.5), X_POS),
    "halfcauchy": ("HalfCauchy(0.8)", stats.halfcauchy(scale=0.8), X_POS),
    "chi2": ("Chi2(4.0)", stats.chi2(4.0), X_POS),
    "loguniform": ("LogUniform(0.01, 30.0)", stats.loguniform(0.01, 30.0),
                   X_POS),
    "uniform": ("Uniform(-2.0, 5.0)", stats.uniform(-2.0, 7.0), X_REAL),
    "beta": ("Beta(2.0, 0.5)", stats.beta(2.0, 0.5), X_UNIT),
    "betaprop": ("BetaProportion(0.3, 5.0)", stats.beta(1.5, 3.5), X_UNIT),
    "kumaraswamy": ("Kumaraswamy(2.0, 3.0)",
                    (lambda x: kumaraswamy_logcdf(x, 2.0, 3.0),
                     lambda x: kumaraswamy_logsf(x, 2.0, 3.0)), X_UNIT),
    # The AIMZ_CDF_FAMILY rows (RealLineFamilies.h, PositiveFamilies.h,
    # BoundedFamilies.h); SoftLaplace and LogitNormal in closed form.
    "softlaplace": ("SoftLaplace(0.5, 1.5)",
                    (lambda x: np.log(2 / np.pi * np.arctan(np.exp((x - 0.5) / 1.5))),
                     lambda x: np.log(2 / np.pi * np.arctan(np.exp((0.5 - x) / 1.5))),
                     (-np.inf, np.inf)),
                    X_REAL),
    "moyal": ("Moyal(0.5, 1.5)", stats.moyal(0.5, 1.5), X_REAL),
    "levy": ("Levy(0.0, 1.5)", stats.levy(0.0, 1.5), X_POS),
    "gompertz": ("Gompertz(0.75, 1.25)", stats.gompertz(0.75, scale=0.8), X_POS),
    "dagum": ("Dagum(1.5, 3.0, 2.0)", stats.burr(3.0, 1.5, scale=2.0), X_POS),
    "wald": ("Wald(1.5, 2.0)", stats.invgauss(0.75, scale=2.0), X_POS),
    # SciPy's triang.logsf is log(1 - cdf), which loses digits near 1.
    "triangular": ("Triangular(0.0, 1.0, 0.25)",
                   (lambda x: np.where(x <= 0.25, np.log(x * x / 0.25), np.log1p(-(1 - x) ** 2 / 0.75)),
                    lambda x: np.where(x > 0.25, np.log((1 - x) ** 2 / 0.75), np.log1p(-x * x / 0.25))),
                   X_UNIT),
    "logitnormal": ("LogitNormal(0.5, 1.25)",
                    (lambda x: stats.norm.logcdf(special.logit(x), 0.5, 1.25),
                     lambda x: stats.norm.logsf(special.logit(x), 0.5, 1.25)), X_UNIT),
    # Owen's T (SkewNormal's CDF), both signs of alpha: each tail is the
    # light one of one of them.
    "skewnormal": ("SkewNormal(3.0, 0.5, 1.5)",
                   (lambda x: skew_normal_log_cdf(x, 3.0, 0.5, 1.5),
                    lambda x: skew_normal_log_cdf(-x, -3.0, -0.5, 1.5),
                    (-np.inf, np.inf)), X_REAL),
    "skewnormal_left": ("SkewNormal(alpha=-0.7, mu=-1.0, sigma=0.8)",
                        (lambda x: skew_normal_log_cdf(x, -0.7, -1.0, 0.8),
                         lambda x: skew_normal_log_cdf(-x, 0.7, 1.0, 0.8),
                         (-np.inf, np.inf)), X_REAL),
    # Both tails: S = Phi(-z) + E, F = Phi(z) - E (E the exponential
    # part); SciPy's logcdf holds its digits down to here.
    "exgaussian": ("ExGaussian(0.5, 1.25, nu=2.0)", stats.exponnorm(2.0 / 1.25, 0.5, 1.25),
                   np.concatenate([np.linspace(-12, 6, 19), np.geomspace(8, 300, 8)])),
    # On the support [-pi, pi): F(x) = G(x) - G(-pi) with SciPy's unwrapped
    # CDF G (Hill's series, and the normal approximation from k = 50).
    "vonmises": ("VonMises(0.5, 2.25)", von_mises_tails(0.5, 2.25), X_ANGLE),
    "vonmises_k": ("VonMises(-1.0, 80.0)", von_mises_tails(-1.0, 80.0), X_ANGLE),
    # NumPyro's FoldedDistribution (Folded.h): its CDF is the base's mass
    # on [-x, x].
    "folded_normal": ("FoldedDistribution(Normal(0.75, 1.5))",
                      folded_tails(stats.norm(0.75, 1.5)), X_REAL),
    "folded_studentt": ("FoldedDistribution(StudentT(3.0, -1.0, 2.0))",
                        folded_tails(stats.t(3.0, -1.0, 2.0)), X_REAL),
    "folded_gumbel": ("FoldedDistribution(Gumbel(2.0, 0.5))",
                      folded_tails(stats.gumbel_r(2.0, 0.5)), X_REAL),
    "poisson": ("Poisson(3.5)", stats.poisson(3.5), X_COUNT),
    "nb2": ("NegativeBinomial2(4.0, 2.5)",
            stats.nbinom(2.5, 2.5 / (2.5 + 4.0)), X_COUNT),
    "binomial": ("Binomial(12, 0.3)", stats.binom(12, 0.3), X_COUNT),
    "binomlogits": ("Binomial(12, logits=-0.8)",
                    stats.binom(12, special.expit(-0.8)), X_COUNT),
    "gammapoisson": ("GammaPoisson(2.5, 0.6)", stats.nbinom(2.5, 0.6 / 1.6), X_COUNT),
    "nbprobs": ("NegativeBinomialProbs(3.0, 0.4)", stats.nbinom(3.0, 0.6), X_COUNT),
    "nblogits": ("NegativeBinomialLogits(3.0, -0.5)",
                 stats.nbinom(3.0, special.expit(0.5)), X_COUNT),
    "geometric": ("Geometric(0.3)", stats.geom(0.3, loc=-1), X_COUNT),
    "geomlogits": ("Geometric(logits=-1.0)", stats.geom(special.expit(-1.0), loc=-1),
                   X_COUNT),
    "bernoulli": ("Bernoulli(0.3)", stats.bernoulli(0.3), X_COUNT),
    "bernlogits": ("Bernoulli(logits=0.7)", stats.bernoulli(special.expit(0.7)), X_COUNT),
}


def reference(ref, x):
    with np.errstate(all="ignore"):
        if isinstance(ref, tuple):  # (logcdf, logsf[, support]), [0, 1] by default
            lo, hi = ref[2] if len(ref) > 2 else (0.0, 1.0)
            lc, ls = ref[0](x), ref[1](x)
            lc = np.where(x <= lo, -np.inf, np.where(x >= hi, 0.0, lc))
            ls = np.where(x <= lo, 0.0, np.where(x >= hi, -np.inf, ls))
            return lc, ls
        # Parameters broadcast to x: SciPy's nbinom.logcdf indexes them.
        args = [np.broadcast_to(a, x.shape) for a in ref.args]
        kwds = {k: np.broadcast_to(v, x.shape) for k, v in ref.kwds.items()}
        return ref.dist.logcdf(x, *args, **kwds), \
            ref.dist.logsf(x, *args, **kwds)


class LogCdf(E.E2ETestCase):
    """Each case's log_cdf and log_ccdf as deterministic sites of one model
    per precision, at the case's grid (an input per case)."""

    def run_precision(self, dtype, name):
        ty = "f64" if dtype == np.float64 else "f32"
        inputs = ", ".join("x_%s: %s[n]" % (k, ty) for k in CASES)
        lines = []
        for k, (call, _, _) in CASES.items():
            lines.append("    deterministic c_%s = log_cdf(%s, x_%s);" %
                         (k, call, k))
            lines.append("    deterministic s_%s = log_ccdf(%s, x_%s);" %
                         (k, call, k))
        src = ("model cdfs(%s) -> (y: %s[n]) {\n  plate obs(n) {\n%s\n"
               "    y ~ Normal(0, 1);\n  }\n}\n" % (inputs, ty,
                                                  "\n".join(lines)))
        so = self.compile_source(name, src)
        n = max(len(g) for _, _, g in CASES.values())
        grids = {}
        data = {}
        for k, (_, _, g) in CASES.items():
            full = np.resize(g, n).astype(dtype)
            grids[k] = full
            data["x_" + k] = self.save("x_%s_%s.npy" % (k, ty), full)
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, data, out, num_samples=1,
                  sites=["c_" + k for k in CASES] +
                  ["s_" + k for k in CASES])
        return E.read_arrays(out), grids

    def check(self, dtype, rtol, atol):
        got, grids = self.run_precision(dtype, "cdfs_" + dtype.__name__)
        bad = []
        for k, (_, ref, _) in CASES.items():
            x = grids[k].astype(np.float64)
            lc, ls = reference(ref, x)
            for tag, want in (("c_", lc), ("s_", ls)):
                have = got[tag + k][0].astype(np.float64)
                same_inf = np.isinf(want) & (have == want)
                with np.errstate(invalid="ignore"):
                    err = np.abs(have - want)
                ok = same_inf | (err <= atol + rtol * np.abs(want))
                if not ok.all():
                    i = np.argmin(ok)
                    bad.append("%s%s at x=%r: %r, SciPy %r" % (
                        tag, k, x[i], have[i], want[i]))
        self.assertEqual(bad, [], "\n".join(bad))

    def test_f64_against_scipy(self):
        self.check(np.float64, 1e-9, 1e-12)

    def test_f32_against_scipy(self):
        self.check(np.float32, 2e-5, 1e-6)


class WeibullRightCensored(E.E2ETestCase):
    N, D = 400, 16
    SRC = """
model weibull_survival(x: f64[n], censored: i32[n]) -> (t: f64[n]) {
  alpha ~ Normal(0, 2);
  beta ~ Normal(0, 1);
  k ~ Gamma(2, 1);
  plate obs(n) {
    t ~ RightCensoredDistribution(Weibull(exp(alpha + beta * x), k),
                                  censored=censored);
  }
}
"""

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(41)
        self.x = rng.normal(size=self.N)
        self.c = (rng.uniform(size=self.N) < 0.35).astype(np.int32)
        self.t = rng.weibull(1.4, self.N) * 2.0
        self.post = dict(alpha=rng.normal(0.5, 0.2, self.D),
                         beta=rng.normal(0.3, 0.1, self.D),
                         k=rng.uniform(0.8, 2.0, self.D))
        self.pp = self.savez("post.npz", **self.post)
        self.so = self.compile_source("weibull_survival", self.SRC)
        self.data = {"x": self.save("x.npy", self.x),
                     "censored": self.save("c.npy", self.c)}

    def scale(self):
        return np.exp(self.post["alpha"][:, None] +
                      self.post["beta"][:, None] * self.x[None])

    def test_log_likelihood_against_scipy(self):
        data = dict(self.data, t=self.save("t.npy", self.t))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", self.so, data, out, posterior=self.pp)
        got = E.read_arrays(out)["t"]
        k = self.post["k"][:, None]
        ref = np.where(self.c[None] == 1,
                       stats.weibull_min.logsf(self.t, k, scale=self.scale()),
                       stats.weibull_min.logpdf(self.t, k, scale=self.scale()))
        np.testing.assert_allclose(got, ref, rtol=1e-11, atol=1e-12)

    def test_predict_draws_the_base(self):
        out = self.fresh(".npz")
        E.run_cmd("predict", self.so, self.data, out, posterior=self.pp,
                  seed=5)
        t = E.read_arrays(out)["t"]
        # NumPyro's sample ignores the indicator: Weibull draws everywhere.
        u = stats.weibull_min.cdf(t, self.post["k"][:, None],
                                  scale=self.scale())
        self.assertGreater(stats.kstest(u.ravel(), "uniform").pvalue, 1e-4)


class LogNormalCensoredAtCap(E.E2ETestCase):
    N, D = 400, 16
    SRC = """
model lognormal_survival(x: f32[n], cap: f32[n]) -> (t: f32[n]) {
  alpha ~ Normal(0, 2);
  beta ~ Normal(0, 1);
  sigma ~ HalfNormal(1);
  plate obs(n) {
    t ~ Censored(LogNormal(alpha + beta * x, sigma), upper=cap);
  }
}
"""

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(43)
        self.x = rng.normal(size=self.N).astype(np.float32)
        self.cap = rng.choice([1.0, 2.0, 4.0], self.N).astype(np.float32)
        self.post = dict(alpha=rng.normal(0.2, 0.2, self.D),
                         beta=rng.normal(0.3, 0.1, self.D),
                         sigma=rng.uniform(0.5, 1.2, self.D))
        self.post = {k: v.astype(np.float32) for k, v in self.post.items()}
        self.pp = self.savez("post.npz", **self.post)
        self.so = self.compile_source("lognormal_survival", self.SRC)
        self.data = {"x": self.save("x.npy", self.x),
                     "cap": self.save("cap.npy", self.cap)}

    def dist(self):
        p = {k: v.astype(np.float64) for k, v in self.post.items()}
        mu = p["alpha"][:, None] + p["beta"][:, None] * self.x[None]
        return stats.lognorm(p["sigma"][:, None], scale=np.exp(mu))

    def test_log_likelihood_against_scipy(self):
        t = np.minimum(np.random.default_rng(1).lognormal(0.2, 1.0, self.N),
                       self.cap).astype(np.float32)
        data = dict(self.data, t=self.save("t.npy", t))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", self.so, data, out, posterior=self.pp)
        got = E.read_arrays(out)["t"]
        d = self.dist()
        ref = np.where(t[None] >= self.cap[None], d.logsf(t), d.logpdf(t))
        self.assertGreater((t >= self.cap).sum(), 20)
        np.testing.assert_allclose(got, ref, rtol=2e-5, atol=2e-5)

    def test_predict_clips_at_the_cap(self):
        out = self.fresh(".npz")
        E.run_cmd("predict", self.so, self.data, out, posterior=self.pp,
                  seed=6)
        t = E.read_arrays(out)["t"].astype(np.float64)
        self.assertTrue(np.all(t <= self.cap[None]))
        # The share at the cap is the base's mass above it (PyMC's draws).
        at_cap = (t == self.cap[None]).mean()
        want = self.dist().sf(self.cap).mean()
        self.assertLess(abs(at_cap - want), 0.02)


def interval_reference(d, lower, upper, left, right):
    """NumPyro's IntervalCensoredDistribution by its definition, from a
    frozen SciPy base: log F(upper) (left only), log S(lower) (right only),
    log(F(lower) + S(upper)) (both), log(F(upper) - F(lower)) or the
    density at a point (neither)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = np.log(d.cdf(upper) - d.cdf(lower))
        upper_side = d.cdf(lower) > 0.5
        inside = np.where(upper_side, np.log(d.sf(lower) - d.sf(upper)), inside)
        point = np.isclose(lower, upper)
        both = np.logaddexp(d.logcdf(lower), d.logsf(upper))
        return np.select([(left != 0) & (right == 0), (right != 0) & (left == 0),
                          (left != 0) & (right != 0), point],
                         [d.logcdf(upper), d.logsf(lower), both, d.logpdf(lower)], inside)


class IntervalCensoredSurvival(E.E2ETestCase):
    """NumPyro's IntervalCensoredDistribution (R's Surv(l, r, type =
    "interval2")): a Weibull regression on inspection-time data in f64 and
    a log-normal one in f32, every kind of row (exact, left, right,
    interval, outside an interval), against SciPy; predict draws the base
    as point intervals."""
    N, D = 300, 12
    SRC = """
model interval_{name}(x: {t}[n], left: i32[n], right: i32[n]) -> (t: {t}[n, 2]) {{
  alpha ~ Normal(0, 2);
  beta ~ Normal(0, 1);
  s ~ Gamma(2, 1);
  plate obs(n) {{
    t ~ IntervalCensoredDistribution({base}, left_censored=left,
                                     right_censored=right);
  }}
}}
"""
    BASES = {"weibull": ("Weibull(exp(alpha + beta * x), s)", "f64"),
             "lognormal": ("LogNormal(alpha + beta * x, s)", "f32")}

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(47)
        self.x = rng.normal(size=self.N)
        self.post = dict(alpha=rng.normal(0.4, 0.2, self.D),
                         beta=rng.normal(0.3, 0.1, self.D),
                         s=rng.uniform(0.8, 2.0, self.D))
        # Inspections every 0.5: an event seen between two visits; before
        # the first (left), after the last (right); a few seen exactly, a
        # few known only to be outside [lower, upper] (both).
        t = rng.weibull(1.5, self.N) * 2.0
        lower, upper = np.floor(t / 0.5) * 0.5, np.floor(t / 0.5) * 0.5 + 0.5
        self.left = (upper <= 0.5).astype(np.int32)
        self.right = (lower >= 3.0).astype(np.int32)
        upper[self.right == 1] = np.inf
        exact = rng.random(self.N) < 0.1
        lower[exact & (self.left == 0) & (self.right == 0)] = t[exact & (self.left == 0) & (self.right == 0)]
        upper[exact & (self.left == 0) & (self.right == 0)] = t[exact & (self.left == 0) & (self.right == 0)]
        both = (rng.random(self.N) < 0.05) & (self.left == 0) & (self.right == 0) & ~exact
        self.left[both], self.right[both] = 1, 1
        self.value = np.stack([lower, upper], axis=1)

    def model(self, name):
        base, ty = self.BASES[name]
        dtype = np.float64 if ty == "f64" else np.float32
        so = self.compile_source("interval_" + name,
                                 self.SRC.format(name=name, t=ty, base=base))
        post = {k: v.astype(dtype) for k, v in self.post.items()}
        data = {"x": self.save("x_%s.npy" % name, self.x.astype(dtype)),
                "left": self.save("l_%s.npy" % name, self.left),
                "right": self.save("r_%s.npy" % name, self.right)}
        p = {k: v.astype(np.float64)[:, None] for k, v in post.items()}
        x = self.x.astype(dtype).astype(np.float64)[None]
        if name == "weibull":
            d = stats.weibull_min(p["s"], scale=np.exp(p["alpha"] + p["beta"] * x))
        else:
            d = stats.lognorm(p["s"], scale=np.exp(p["alpha"] + p["beta"] * x))
        return so, data, self.savez("post_%s.npz" % name, **post), d, dtype

    def check_log_likelihood(self, name, tol):
        so, data, pp, d, dtype = self.model(name)
        v = self.value.astype(dtype)
        data["t"] = self.save("t_%s.npy" % name, v)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out, posterior=pp)
        got = E.read_arrays(out)["t"]
        v = v.astype(np.float64)
        ref = interval_reference(d, v[None, :, 0], v[None, :, 1], self.left[None], self.right[None])
        for kind in ((1, 0), (0, 1), (1, 1)):
            self.assertGreater(((self.left == kind[0]) & (self.right == kind[1])).sum(), 3, kind)
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)

    def test_weibull_log_likelihood(self):
        self.check_log_likelihood("weibull", 1e-11)

    def test_lognormal_log_likelihood_f32(self):
        self.check_log_likelihood("lognormal", 2e-5)

    def test_predict_draws_point_intervals(self):
        so, data, pp, d, _ = self.model("weibull")
        out = self.fresh(".npz")
        E.run_cmd("predict", so, data, out, posterior=pp, seed=8)
        t = E.read_arrays(out)["t"]
        self.assertEqual(t.shape, (self.D, self.N, 2))
        np.testing.assert_array_equal(t[..., 0], t[..., 1])
        u = d.cdf(t[..., 0])
        self.assertGreater(stats.kstest(u.ravel(), "uniform").pvalue, 1e-4)

class CensoredCounts(E.E2ETestCase):
    """Counts known only to lie beyond a point: the three censored forms
    over Poisson, NegativeBinomial2 and Binomial (probs and logits), their
    log-likelihoods against SciPy's logpmf / logcdf / logsf and their draws."""
    N, D = 300, 10
    SRC = """
model censored_counts(x: {t}[n], top: i32[n], cap: i32[n], lod: i32[n],
                      left: i32[n], right: i32[n])
    -> (cigs: i32[n], visits: i32[n], hits: i32[n], w: i32[n, 2]) {{
  a ~ Normal(1, 1);
  b ~ Normal(0, 1);
  phi ~ Gamma(2, 1);
  plate obs(n) {{
    cigs ~ RightCensoredDistribution(NegativeBinomial2(exp(a + b * x), phi),
                                     censored=top);
    visits ~ Censored(Poisson(exp(a + b * x)), upper=cap);
    hits ~ Censored(Binomial(20, logits=b * x), lower=lod);
    w ~ IntervalCensoredDistribution(Binomial(30, expit(a + b * x)),
                                     left_censored=left, right_censored=right);
  }}
}}
"""

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(53)
        self.x = rng.normal(size=self.N)
        self.post = dict(a=rng.normal(1.2, 0.2, self.D),
                         b=rng.normal(0.5, 0.2, self.D),
                         phi=rng.uniform(1.0, 4.0, self.D))
        self.top = (rng.random(self.N) < 0.3).astype(np.int32)
        self.cap = rng.choice([2, 4, 6], self.N).astype(np.int32)
        self.lod = rng.choice([0, 8, 10], self.N).astype(np.int32)
        lo = rng.integers(0, 25, self.N)
        self.w = np.stack([lo, lo + rng.integers(0, 5, self.N)], axis=1).astype(np.int32)
        self.left = (rng.random(self.N) < 0.25).astype(np.int32)
        self.right = (rng.random(self.N) < 0.25).astype(np.int32)
        self.cigs = rng.poisson(4.0, self.N).astype(np.int32)
        self.visits = np.minimum(rng.poisson(3.0, self.N), self.cap).astype(np.int32)
        self.hits = np.maximum(rng.binomial(20, 0.5, self.N), self.lod).astype(np.int32)

    def model(self, ty):
        dtype = np.float64 if ty == "f64" else np.float32
        so = self.compile_source("censored_counts_" + ty, self.SRC.format(t=ty))
        post = {k: v.astype(dtype) for k, v in self.post.items()}
        data = {"x": self.save("x_%s.npy" % ty, self.x.astype(dtype))}
        for k in ("top", "cap", "lod", "left", "right"):
            data[k] = self.save("%s.npy" % k, getattr(self, k))
        p = {k: v.astype(np.float64)[:, None] for k, v in post.items()}
        x = self.x.astype(dtype).astype(np.float64)[None]
        mu = np.exp(p["a"] + p["b"] * x)
        dists = {"cigs": stats.nbinom(p["phi"], p["phi"] / (p["phi"] + mu)),
                 "visits": stats.poisson(mu),
                 "hits": stats.binom(20, special.expit(p["b"] * x)),
                 "w": stats.binom(30, special.expit(p["a"] + p["b"] * x))}
        return so, data, self.savez("post_%s.npz" % ty, **post), dists

    def reference(self, d):
        y, cap, lod = self.cigs[None], self.cap[None], self.lod[None]
        v = self.visits[None]
        w = self.w[None].astype(np.float64)
        with np.errstate(divide="ignore"):
            return {
                "cigs": np.where(self.top[None] == 1, d["cigs"].logsf(y), d["cigs"].logpmf(y)),
                # PyMC: the cap's own mass belongs to the censored tail.
                "visits": np.where(v == cap, d["visits"].logsf(cap - 1), d["visits"].logpmf(v)),
                "hits": np.where(self.hits[None] == lod, d["hits"].logcdf(lod),
                                 d["hits"].logpmf(self.hits[None])),
                "w": self.interval(d["w"], w[..., 0], w[..., 1]),
            }

    def interval(self, d, lower, upper):
        """NumPyro's cases over a count: P(lower < Y <= upper) inside."""
        left, right = self.left[None], self.right[None]
        with np.errstate(divide="ignore"):
            inside = np.log(d.cdf(upper) - d.cdf(lower))
            return np.select([(left != 0) & (right == 0), (right != 0) & (left == 0),
                              (left != 0) & (right != 0), lower == upper],
                             [d.logcdf(upper), d.logsf(lower),
                              np.logaddexp(d.logcdf(lower), d.logsf(upper)), d.logpmf(lower)],
                             inside)

    def check_log_likelihood(self, ty, tol):
        so, data, pp, d = self.model(ty)
        for k in ("cigs", "visits", "hits", "w"):
            data[k] = self.save("%s.npy" % k, getattr(self, k))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out, posterior=pp)
        got = E.read_arrays(out)
        self.assertGreater((self.visits == self.cap).sum(), 20)
        self.assertGreater((self.hits == self.lod).sum(), 10)
        for k, want in self.reference(d).items():
            self.assertTrue(np.isfinite(want).all(), k)
            np.testing.assert_allclose(got[k], want, rtol=tol, atol=tol, err_msg=k)

    def test_log_likelihood_f64(self):
        self.check_log_likelihood("f64", 1e-10)

    def test_log_likelihood_f32(self):
        self.check_log_likelihood("f32", 3e-5)

    def test_predict(self):
        so, data, pp, d = self.model("f64")
        out = self.fresh(".npz")
        E.run_cmd("predict", so, data, out, posterior=pp, seed=9)
        got = E.read_arrays(out)
        for k in ("cigs", "visits", "hits", "w"):
            self.assertEqual(got[k].dtype, np.int32, k)
        # PyMC's draws are clipped to the bounds; the share at the cap is
        # P(Y >= cap), at the detection limit P(Y <= lod).
        v, h = got["visits"], got["hits"]
        self.assertTrue(np.all(v <= self.cap[None]))
        self.assertTrue(np.all(h >= self.lod[None]))
        self.assertLess(abs((v == self.cap[None]).mean() - d["visits"].sf(self.cap[None] - 1).mean()), 0.03)
        m = self.lod[None] > 0
        self.assertLess(abs((h == self.lod[None])[np.broadcast_to(m, h.shape)].mean() -
                            np.broadcast_to(d["hits"].cdf(self.lod[None]), h.shape)[np.broadcast_to(m, h.shape)].mean()),
                        0.04)
        # NumPyro's draws are the base's own; an interval's is a point.
        self.assertLess(abs(got["cigs"].mean() - d["cigs"].mean().mean()), 0.3)
        np.testing.assert_array_equal(got["w"][..., 0], got["w"][..., 1])

    def test_bound_not_a_whole_number_is_nan(self):
        so, data, pp, _ = self.model("f64")
        src = self.SRC.format(t="f64").replace("upper=cap", "upper=cap + 0.5")
        so = self.compile_source("censored_counts_half", src)
        for k in ("cigs", "visits", "hits", "w"):
            data[k] = self.save("%s.npy" % k, getattr(self, k))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out, posterior=pp)
        got = E.read_arrays(out)
        self.assertTrue(np.isnan(got["visits"]).all())
        self.assertTrue(np.isfinite(got["cigs"]).all())


class StanCensoredFactor(E.E2ETestCase):
    """Stan User's Guide, "Censored data": the uncensored values are the
    output, the N_cens censored ones are known only to exceed U."""
    SRC = """
model censored_exponential(N_cens: i32, U: f64) -> (y_obs: f64[n]) {
  rate ~ Gamma(2, 2);
  plate obs(n) {
    y_obs ~ Exponential(rate);
  }
  factor censored = N_cens * log_ccdf(Exponential(rate), U);
}
"""

    def test_log_likelihood_against_scipy(self):
        rng = np.random.default_rng(7)
        y = rng.exponential(1.0, 50)
        rate = rng.uniform(0.5, 2.0, 12)
        so = self.compile_source("censored_exponential", self.SRC)
        data = {"N_cens": self.save("nc.npy", np.array(7, np.int32)),
                "U": self.save("u.npy", np.array(3.0)),
                "y_obs": self.save("y.npy", y)}
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out,
                  posterior=self.savez("post.npz", rate=rate))
        got = E.read_arrays(out)
        np.testing.assert_allclose(
            got["y_obs"], stats.expon.logpdf(y[None], scale=1 / rate[:, None]),
            rtol=1e-12)
        np.testing.assert_allclose(
            got["censored"], 7 * stats.expon.logsf(3.0, scale=1 / rate),
            rtol=1e-12)


class LogProbOfComposites(E.E2ETestCase):
    """log_prob of a truncation and of both censorings, as their sites
    score them (NumPyro's TruncatedDistribution(...).log_prob(x))."""
    SRC = """
model composites(x: f64[n], c: i32[n]) -> (y: f64[n]) {
  mu ~ Normal(0, 1);
  plate obs(n) {
    deterministic a = log_prob(TruncatedDistribution(Normal(mu, 2.0),
                                                     low=0.5), x);
    deterministic b = log_prob(RightCensoredDistribution(Weibull(2.0, 1.5),
                                                         censored=c), x);
    deterministic d = log_prob(Censored(Normal(mu, 1.0), lower=-1.0,
                                        upper=1.0), clip(x, -1.0, 1.0));
    y ~ Normal(mu, 1);
  }
}
"""

    def test_against_scipy(self):
        rng = np.random.default_rng(3)
        x = np.concatenate([[-3.0, -1.0, 0.0, 0.5, 1.0], rng.uniform(0.01, 6, 40)])
        c = (np.arange(x.size) % 3 == 0).astype(np.int32)
        mu = np.array([-0.4, 0.3, 1.2])
        so = self.compile_source("composites", self.SRC)
        out = self.fresh(".npz")
        E.run_cmd("predict", so, {"x": self.save("x.npy", x),
                                  "c": self.save("c.npy", c)}, out,
                  posterior=self.savez("post.npz", mu=mu),
                  sites=["a", "b", "d"])
        got = E.read_arrays(out)
        m = mu[:, None]
        with np.errstate(all="ignore"):
            a = stats.truncnorm.logpdf(x, (0.5 - m) / 2.0, np.inf, loc=m,
                                       scale=2.0)
            b = np.where(c == 1, stats.weibull_min.logsf(x, 1.5, scale=2.0),
                         stats.weibull_min.logpdf(x, 1.5, scale=2.0))
            xc = np.clip(x, -1, 1)
            d = np.where(xc <= -1, stats.norm.logcdf(-1, m),
                         np.where(xc >= 1, stats.norm.logsf(1, m),
                                  stats.norm.logpdf(xc, m)))
        for k, want in (("a", a), ("b", np.broadcast_to(b, a.shape)),
                        ("d", d)):
            np.testing.assert_allclose(got[k], want, rtol=1e-12, atol=1e-12,
                                       err_msg=k)


if __name__ == "__main__":
    E.main()
