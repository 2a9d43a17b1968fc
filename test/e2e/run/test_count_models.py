"""Count models end to end: the negative-binomial GLM and the zero-inflated
Poisson examples. Log-likelihoods equal scipy.stats on the same posterior
and data (1e-5 relative); predictive draws have the analytic means,
variances and zero fractions; the bytes are the same under every partition."""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

PARTITIONS = [("obs", 1, None), ("obs", 3, 777), ("draw", 2, 3)]


class CountModels(E.E2ETestCase):
    N, K, D = 4000, 3, 24

    def runs(self, command, model, data, post, **kw):
        """The command under every partition: identical bytes; returns the
        arrays of the first."""
        first = None
        for axis, devices, batch in PARTITIONS:
            out = self.fresh()
            E.run_cmd(command, E.model(model), data, out, posterior=post,
                      axis=axis, devices=devices, batch=batch, seed=17, **kw)
            got = E.read_arrays(out)
            if first is None:
                first = got
            for k in first:
                self.assertTrue(E.same_bytes(got[k], first[k]),
                                "%s differs under %s/%d/%s" % (k, axis, devices,
                                                               batch))
        return first

    def test_negbin_glm(self):
        rng = np.random.default_rng(41)
        X = rng.normal(0, 0.5, (self.N, self.K)).astype(np.float32)
        exposure = rng.uniform(0.5, 3, self.N).astype(np.float32)
        post = dict(alpha=rng.normal(1, 0.2, self.D).astype(np.float32),
                    beta=rng.normal(0, 0.4, (self.D, self.K)).astype(np.float32),
                    phi=rng.uniform(0.5, 5, self.D).astype(np.float32))
        mu = np.exp(post["alpha"].astype(np.float64)[:, None]
                    + post["beta"].astype(np.float64) @ X.T.astype(np.float64)
                    + np.log(exposure.astype(np.float64))[None, :])
        phi = post["phi"].astype(np.float64)[:, None]
        y = stats.nbinom.rvs(phi[0], phi[0] / (phi[0] + mu[0]), random_state=1)
        data = {"X": self.save("nX.npy", X), "exposure": self.save("ne.npy", exposure)}
        pp = self.savez("npost.npz", **post)
        ll = self.runs("log-likelihood", "negbin_glm",
                       dict(data, y=self.save("ny.npy", y.astype(np.int32))), pp)["y"]
        ref = stats.nbinom.logpmf(y[None, :], phi, phi / (phi + mu))
        np.testing.assert_allclose(ll, ref, rtol=1e-5, atol=1e-6)
        pred = self.runs("predict", "negbin_glm", data, pp)
        np.testing.assert_allclose(pred["mu"], mu, rtol=2e-5)
        yp = pred["y"].astype(np.float64)
        self.assertEqual(pred["y"].dtype, np.int32)
        self.assertTrue((yp >= 0).all())
        var = mu + mu * mu / phi
        z = (yp - mu).sum() / np.sqrt(var.sum())
        self.assertLess(abs(z), 5, "predictive mean")
        # E[(y - mu)^2] = var: a standardised sum of squares.
        r = ((yp - mu) ** 2 / var).mean()
        self.assertLess(abs(r - 1), 0.05, "predictive variance")

    def test_zero_truncated_poisson(self):
        rng = np.random.default_rng(43)
        X = rng.normal(0, 0.5, (self.N, self.K)).astype(np.float32)
        post = dict(alpha=rng.normal(0.3, 0.3, self.D).astype(np.float32),
                    beta=rng.normal(0, 0.4, (self.D, self.K)).astype(np.float32),
                    p=rng.uniform(0.1, 0.4, self.D).astype(np.float32))
        rate = np.exp(post["alpha"].astype(np.float64)[:, None]
                      + post["beta"].astype(np.float64) @ X.T.astype(np.float64))
        y = stats.poisson.rvs(rate[0], random_state=2)
        y[y == 0] = 1
        data = {"X": self.save("tX.npy", X)}
        pp = self.savez("tpost.npz", **post)
        ll = self.runs("log-likelihood", "truncated_counts",
                       dict(data, y=self.save("ty.npy", y.astype(np.int32))), pp)["y"]
        ref = stats.poisson.logpmf(y[None, :], rate) - np.log(-np.expm1(-rate))
        np.testing.assert_allclose(ll, ref, rtol=1e-5, atol=1e-6)
        pred = self.runs("predict", "truncated_counts", data, pp)
        self.assertEqual(pred["y"].dtype, np.int32)
        yp = pred["y"].astype(np.float64)
        self.assertTrue((yp >= 1).all(), "a zero-truncated draw below 1")
        # E[y | y >= 1] = rate / (1 - exp(-rate)), Var = mean (1 + rate - mean).
        mean = rate / -np.expm1(-rate)
        var = mean * (1 + rate - mean)
        z = (yp - mean).sum() / np.sqrt(var.sum())
        self.assertLess(abs(z), 5, "predictive mean")
        prior = self.runs("prior-predictive", "truncated_counts", data, None,
                          num_samples=200, extra=("--return-sites", "p,y"))
        self.assertTrue(((prior["p"] >= 0.1) & (prior["p"] <= 0.4)).all())
        self.assertTrue((prior["y"] >= 1).all())
        # Beta(2, 5) on [0.1, 0.4]: its mean by quadrature, within 5 sd.
        g = np.linspace(0.1, 0.4, 20001)
        w = stats.beta.pdf(g, 2, 5)
        m = (g * w).sum() / w.sum()
        sd = np.sqrt(((g - m) ** 2 * w).sum() / w.sum())
        ps = prior["p"].astype(np.float64).ravel()
        self.assertLess(abs(ps.mean() - m), 5 * sd / np.sqrt(ps.size))

    def test_zero_inflated_poisson(self):
        rng = np.random.default_rng(42)
        X = rng.normal(0, 0.5, (self.N, self.K)).astype(np.float32)
        post = dict(gate_logit=rng.normal(-0.5, 0.5, self.D).astype(np.float32),
                    alpha=rng.normal(1, 0.2, self.D).astype(np.float32),
                    beta=rng.normal(0, 0.3, (self.D, self.K)).astype(np.float32))
        rate = np.exp(post["alpha"].astype(np.float64)[:, None]
                      + post["beta"].astype(np.float64) @ X.T.astype(np.float64))
        gate = special.expit(post["gate_logit"].astype(np.float64))[:, None]
        y = np.where(rng.uniform(size=self.N) < gate[0], 0, rng.poisson(rate[0]))
        data = {"X": self.save("zX.npy", X)}
        pp = self.savez("zpost.npz", **post)
        ll = self.runs("log-likelihood", "zero_inflated_poisson",
                       dict(data, y=self.save("zy.npy", y.astype(np.int32))), pp)["y"]
        base = stats.poisson.logpmf(y[None, :], rate)
        ref = np.where(y[None, :] == 0,
                       np.logaddexp(np.log(gate), np.log1p(-gate) + base),
                       np.log1p(-gate) + base)
        np.testing.assert_allclose(ll, ref, rtol=1e-5, atol=1e-6)
        pred = self.runs("predict", "zero_inflated_poisson", data, pp)
        np.testing.assert_allclose(pred["rate"], rate, rtol=2e-5)
        yp = pred["y"].astype(np.float64)
        mean = (1 - gate) * rate
        var = (1 - gate) * rate * (1 + gate * rate)
        z = (yp - mean).sum() / np.sqrt(var.sum())
        self.assertLess(abs(z), 5, "predictive mean")
        p0 = gate + (1 - gate) * np.exp(-rate)
        z0 = ((yp == 0) - p0).sum() / np.sqrt((p0 * (1 - p0)).sum())
        self.assertLess(abs(z0), 5, "fraction of zeros")


if __name__ == "__main__":
    E.main()
