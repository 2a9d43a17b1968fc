"""NumPyro's CAR and LowRankMultivariateNormal (rewritten into the
MultivariateNormal they are) against NumPyro's own log_prob, at both
precisions:

- CAR over the observations, as in the Stan case study "Exact sparse CAR
  models in Stan" (Scottish lip cancer: a CAR prior over areas with an
  adjacency matrix W): here the areas' values are the output, so the
  log-likelihood is CAR's log density, one number per draw (a joint site);
- LowRankMultivariateNormal per observation (a factor model's marginal:
  loadings cov_factor, uniquenesses cov_diag), one number per row;
- draws of each against the covariance they should have."""

import numpy as np
import reference  # noqa: F401  (NumPyro or skip; float64 JAX)
import jax.numpy as jnp  # noqa: E402
import numpyro.distributions as dist  # noqa: E402

import aimz_e2e as E  # noqa: E402

CAR_MODEL = """
model car(W: {t}[n, n], loc: {t}[n]) -> (phi: {t}[n]) {{
  alpha ~ Uniform(0, 1);
  tau ~ Gamma(2, 2);
  phi ~ CAR(loc, alpha, tau, W, is_sparse=True);
}}
"""

LOW_RANK_MODEL = """
model lowrank(F: {t}[k, r], d: {t}[k], mu: {t}[n, k]) -> (y: {t}[n, k]) {{
  s ~ Gamma(2, 2);
  plate obs(n) {{
    y ~ LowRankMultivariateNormal(mu, s * F, d);
  }}
}}
"""


def ring_adjacency(n):
    """Areas on a ring, each next to two others, plus a few chords."""
    W = np.zeros((n, n))
    for i in range(n):
        W[i, (i + 1) % n] = W[(i + 1) % n, i] = 1
    for i in range(0, n, 5):
        j = (i + n // 2) % n
        W[i, j] = W[j, i] = 1
    return W


class StructuredNormals(E.E2ETestCase):
    def car_case(self, prec, draws=12, n=15):
        t = np.float64 if prec == "f64" else np.float32
        rng = np.random.default_rng(21)
        W = ring_adjacency(n)
        loc = rng.normal(size=n)
        alpha = rng.uniform(0.1, 0.95, draws)
        tau = rng.uniform(0.5, 3.0, draws)
        phi = rng.normal(size=n)
        so = self.compile_source("car_" + prec, CAR_MODEL.format(t=prec))
        data = {"W": self.save("W_%s.npy" % prec, W.astype(t)),
                "loc": self.save("loc_%s.npy" % prec, loc.astype(t)),
                "phi": self.save("phi_%s.npy" % prec, phi.astype(t))}
        post = self.savez("car_%s.npz" % prec, alpha=alpha.astype(t), tau=tau.astype(t))
        return so, data, post, (W, loc, alpha, tau, phi, t)

    def check_car(self, prec, tol):
        so, data, post, (W, loc, alpha, tau, phi, t) = self.car_case(prec)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out, posterior=post)
        got = E.read_arrays(out)["phi"].reshape(-1)
        c = lambda a: jnp.asarray(a.astype(t).astype(np.float64))  # noqa: E731
        want = [float(dist.CAR(c(loc), c(alpha[i]), c(tau[i]), c(W)).log_prob(c(phi)))
                for i in range(len(alpha))]
        np.testing.assert_allclose(got, want, rtol=tol)

    def test_car_log_density_f64(self):
        self.check_car("f64", 1e-10)

    def test_car_log_density_f32(self):
        self.check_car("f32", 2e-5)

    def test_car_draws_have_its_covariance(self):
        so, data, post, (W, loc, alpha, tau, _, _) = self.car_case("f64", draws=1)
        draws = 20000
        post = self.savez("car1.npz", alpha=np.full(draws, alpha[0]), tau=np.full(draws, tau[0]))
        out = self.fresh(".npz")
        E.run_cmd("predict", so, {k: data[k] for k in ("W", "loc")}, out,
                  posterior=post, seed=3)
        x = E.read_arrays(out)["phi"]
        cov = np.linalg.inv(tau[0] * (np.diag(W.sum(1)) - alpha[0] * W))
        np.testing.assert_allclose(x.mean(0), loc, atol=5 * np.sqrt(np.diag(cov).max() / draws))
        np.testing.assert_allclose(np.cov(x.T), cov, atol=0.05 * np.abs(cov).max())

    def check_low_rank(self, prec, tol):
        t = np.float64 if prec == "f64" else np.float32
        rng = np.random.default_rng(4)
        n, k, r, draws = 50, 5, 2, 6
        F = rng.normal(size=(k, r)).astype(t)
        d = rng.uniform(0.2, 1.0, k).astype(t)
        mu = rng.normal(size=(n, k)).astype(t)
        y = rng.normal(size=(n, k)).astype(t) * 2
        s = rng.uniform(0.5, 2.0, draws).astype(t)
        so = self.compile_source("lowrank_" + prec, LOW_RANK_MODEL.format(t=prec))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  {"F": self.save("F_%s.npy" % prec, F), "d": self.save("d_%s.npy" % prec, d),
                   "mu": self.save("mu_%s.npy" % prec, mu), "y": self.save("y_%s.npy" % prec, y)},
                  out, posterior=self.savez("lr_%s.npz" % prec, s=s))
        got = E.read_arrays(out)["y"].reshape(draws, n)
        c = lambda a: jnp.asarray(np.asarray(a, np.float64))  # noqa: E731
        want = np.stack([np.asarray(dist.LowRankMultivariateNormal(
            c(mu), c(s[i] * F.astype(np.float64)), c(d)).log_prob(c(y))) for i in range(draws)])
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)

    def test_low_rank_log_density_f64(self):
        self.check_low_rank("f64", 1e-10)

    def test_low_rank_log_density_f32(self):
        self.check_low_rank("f32", 2e-5)


if __name__ == "__main__":
    E.main()
