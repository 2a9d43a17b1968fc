"""NumPyro's CAR and LowRankMultivariateNormal (rewritten into the
MultivariateNormal they are) against NumPyro's own log_prob, at both
precisions:

- CAR over the observations, as in the Stan case study "Exact sparse CAR
  models in Stan" (Scottish lip cancer: a CAR prior over areas with an
  adjacency matrix W): here the areas' values are the output, so the
  log-likelihood is CAR's log density, one number per draw (a joint site);
- LowRankMultivariateNormal per observation (a factor model's marginal:
  loadings cov_factor, uniquenesses cov_diag), one number per row;
- CirculantNormal as NumPyro's documentation uses it, a stationary
  Gaussian process on a periodic grid (here hours of the day, one vector
  per day): the covariance row from a periodic kernel of latent amplitude
  and length scale, and the same law given by its spectrum
  (covariance_rfft);
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

CIRCULANT_MODEL = """
model seasonal(hour: {t}[k], level: {t}[k]) -> (y: {t}[n, k]) {{
  amp ~ HalfNormal(1);
  ell ~ HalfNormal(1);
  let row = amp ** 2 * exp(-2 * sin(3.141592653589793 * hour / 24) ** 2 / ell ** 2)
            + where(hour == 0, 0.01, 0.0);
  plate obs(n) {{
    y ~ CirculantNormal(level, covariance_row=row);
  }}
}}
"""

CIRCULANT_RFFT_MODEL = """
model spectrum(lam: {t}[m], level: {t}[k]) -> (y: {t}[n, k]) {{
  s ~ Gamma(2, 2);
  plate obs(n) {{
    y ~ CirculantNormal(level, covariance_rfft=s * lam);
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

    def circulant_case(self, prec, k):
        t = np.float64 if prec == "f64" else np.float32
        rng = np.random.default_rng(8 + k)
        hour = np.arange(k, dtype=np.float64)
        level = rng.normal(size=k)
        y = rng.normal(size=(40, k)) * 1.5
        return t, rng, hour, level, y

    def check_circulant_row(self, prec, k, tol):
        t, rng, hour, level, y = self.circulant_case(prec, k)
        amp, ell = rng.uniform(0.5, 2.0, 5), rng.uniform(0.3, 1.5, 5)
        so = self.compile_source("circ_%s_%d" % (prec, k), CIRCULANT_MODEL.format(t=prec))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  {"hour": self.save("hour%d.npy" % k, hour.astype(t)),
                   "level": self.save("level%d_%s.npy" % (k, prec), level.astype(t)),
                   "y": self.save("cy%d_%s.npy" % (k, prec), y.astype(t))},
                  out, posterior=self.savez("circ%d_%s.npz" % (k, prec),
                                            amp=amp.astype(t), ell=ell.astype(t)))
        got = E.read_arrays(out)["y"]
        c = lambda a: jnp.asarray(np.asarray(a, t).astype(np.float64))  # noqa: E731
        for i in range(len(amp)):
            a, l_ = float(c(amp[i])), float(c(ell[i]))
            row = a ** 2 * np.exp(-2 * np.sin(np.pi * hour / 24) ** 2 / l_ ** 2) + 0.01 * (hour == 0)
            # NumPyro's own check of the row fails on rows whose
            # spectrum is positive (it compares with a tight tolerance).
            want = np.asarray(dist.CirculantNormal(c(level), covariance_row=jnp.asarray(row),
                                                   validate_args=False).log_prob(c(y)))
            np.testing.assert_allclose(got[i], want, rtol=tol, atol=tol)

    def test_circulant_row_f64(self):
        self.check_circulant_row("f64", 24, 1e-9)
        self.check_circulant_row("f64", 7, 1e-9)  # an odd length: no Nyquist term

    def test_circulant_row_f32(self):
        # The kernel row is computed in f32 by the model (a few ulps), and
        # these covariances' condition numbers are ~2e3: 1e-4 is f32's own
        # limit here (a MultivariateNormal given the row's exact f32 values
        # is within 3e-5).
        self.check_circulant_row("f32", 24, 4e-4)

    def check_circulant_rfft(self, prec, k, tol):
        t, rng, hour, level, y = self.circulant_case(prec, k)
        m = k // 2 + 1
        lam = rng.uniform(0.3, 3.0, m)
        s = rng.uniform(0.5, 2.0, 4)
        so = self.compile_source("circr_%s_%d" % (prec, k), CIRCULANT_RFFT_MODEL.format(t=prec))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  {"lam": self.save("lam%d_%s.npy" % (k, prec), lam.astype(t)),
                   "level": self.save("rlevel%d_%s.npy" % (k, prec), level.astype(t)),
                   "y": self.save("ry%d_%s.npy" % (k, prec), y.astype(t))},
                  out, posterior=self.savez("circr%d_%s.npz" % (k, prec), s=s.astype(t)))
        got = E.read_arrays(out)["y"]
        c = lambda a: jnp.asarray(np.asarray(a, t).astype(np.float64))  # noqa: E731
        for i in range(len(s)):
            want = np.asarray(dist.CirculantNormal(
                c(level), covariance_rfft=c(s[i]) * c(lam), validate_args=False).log_prob(c(y)))
            np.testing.assert_allclose(got[i], want, rtol=tol, atol=tol)

    def test_circulant_rfft(self):
        for k in (12, 9):
            self.check_circulant_rfft("f64", k, 1e-9)
        self.check_circulant_rfft("f32", 12, 1e-4)

    def test_circulant_draws_have_its_covariance(self):
        k, draws = 10, 20000
        t, rng, hour, level, _ = self.circulant_case("f64", k)
        so = self.compile_source("circ_draws", CIRCULANT_MODEL.format(t="f64"))
        out = self.fresh(".npz")
        E.run_cmd("predict", so, {"hour": self.save("hourd.npy", hour),
                                  "level": self.save("leveld.npy", level),
                                  "y": self.save("yd.npy", np.zeros((1, k)))},
                  out, posterior=self.savez("circd.npz", amp=np.full(draws, 1.3),
                                            ell=np.full(draws, 0.8)), seed=5,
                  extra=("--num-observations", "1"))
        x = E.read_arrays(out)["y"][:, 0, :]
        row = 1.3 ** 2 * np.exp(-2 * np.sin(np.pi * hour / 24) ** 2 / 0.8 ** 2) + 0.01 * (hour == 0)
        sym = 0.5 * (row + np.roll(row[::-1], 1))
        cov = np.array([[sym[(j - i) % k] for j in range(k)] for i in range(k)])
        np.testing.assert_allclose(x.mean(0), level, atol=5 * np.sqrt(cov[0, 0] / draws))
        np.testing.assert_allclose(np.cov(x.T), cov, atol=0.05 * np.abs(cov).max())


if __name__ == "__main__":
    E.main()
