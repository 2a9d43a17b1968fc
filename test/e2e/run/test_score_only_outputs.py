"""Outputs scored by factors alone (Stan's `target +=` branching on the
data): an output with no `~` statement is read by the factors in its own
rows; log-likelihood writes those factors, predict and prior-predictive are
refused with a message naming the distribution forms that can be drawn.

- hurdle_target (dsl-examples; the Stan User's Guide's hurdle model,
  "Zero-inflated and hurdle models", as written there) against SciPy, on
  one device and on two (batch 7) byte for byte;
- the User's Guide's change-point model ("Change point models": the
  change point marginalized as log_sum_exp over positions of sums over the
  data): one joint factor per draw, plan draw, against NumPy/SciPy;
- the User's Guide's censored survival likelihood with `target +=
  weibull_lccdf(...)` written per observation with an indicator, against
  SciPy's logsf / logpdf;
- an output drawn by `~` beside a score-only one."""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


class StanHurdle(E.E2ETestCase):
    N, D = 300, 40

    def setUp(self):
        rng = np.random.default_rng(11)
        zero = rng.random(self.N) < 0.35
        y = stats.poisson.rvs(2.5, size=self.N, random_state=rng)
        y = np.where(zero, 0, np.maximum(y, 1)).astype(np.int32)
        self.y = y
        self.theta = rng.uniform(0.2, 0.5, self.D).astype(np.float32)
        self.lam = rng.uniform(1.5, 3.5, self.D).astype(np.float32)
        self.data = {"y": self.save("y.npy", y)}
        self.post = self.savez("post.npz", theta=self.theta, **{"lambda": self.lam})

    def test_log_likelihood_against_scipy(self):
        so = E.model("hurdle_target")
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, self.data, out, posterior=self.post)
        got = E.read_arrays(out)
        self.assertEqual(sorted(got), ["lp"])  # the factor, not y itself
        th = self.theta.astype(np.float64)[:, None]
        lam = self.lam.astype(np.float64)[:, None]
        want = np.where(self.y == 0, np.log(th),
                        np.log1p(-th) + stats.poisson.logpmf(self.y, lam)
                        - np.log1p(-np.exp(-lam)))
        np.testing.assert_allclose(got["lp"].reshape(want.shape), want,
                                   rtol=2e-6, atol=2e-6)

    def test_same_bytes_on_two_devices(self):
        so = E.model("hurdle_target")
        one, two = self.fresh(), self.fresh()
        E.run_cmd("log-likelihood", so, self.data, one, posterior=self.post,
                  devices=1)
        E.run_cmd("log-likelihood", so, self.data, two, posterior=self.post,
                  devices=2, batch=7)
        self.assert_same_arrays(E.read_arrays(one), E.read_arrays(two))

    def test_predict_refused(self):
        so = E.model("hurdle_target")
        r = E.run_cmd("predict", so, {}, self.fresh(), posterior=self.post,
                      extra=["--num-observations", "5"], check=False)
        self.assert_one_error_line(r, "scores its output 'y' only with factor",
                                   "HurdlePoisson")

    def test_return_sites_names_the_factors(self):
        r = E.run_cmd("log-likelihood", E.model("hurdle_target"), self.data,
                      self.fresh(), posterior=self.post, sites=["y"],
                      check=False)
        self.assert_one_error_line(r, "'y' is scored only by factor terms")


CHANGE_POINT = """
model changepoint(r_e: f64, r_l: f64) -> (D: i32[T]) {
  e ~ Exponential(r_e);
  l ~ Exponential(r_l);
  let s = arange(T);
  # lp[s] = log(1 / T) + sum over t of poisson_lpmf(D[t] | t < s ? e : l)
  let rate = where(s[None, :] < s[:, None], e, l);
  let lp = -log(T) + sum(log_prob(Poisson(rate), D[None, :]), axis=1);
  factor change = logsumexp(lp);
}
"""


class ChangePoint(E.E2ETestCase):
    T, DRAWS = 60, 25

    def test_log_likelihood_against_scipy(self):
        so = self.compile_source("changepoint", CHANGE_POINT)
        rng = np.random.default_rng(3)
        D = np.concatenate([rng.poisson(3.0, 25), rng.poisson(1.0, 35)]).astype(np.int32)
        e = rng.uniform(2, 4, self.DRAWS)
        l = rng.uniform(0.5, 1.5, self.DRAWS)
        post = self.savez("cp.npz", e=e, l=l)
        data = {"D": self.save("D.npy", D),
                "r_e": self.save("re.npy", np.array(1.0)),
                "r_l": self.save("rl.npy", np.array(1.0))}
        outs = []
        for devices in (1, 2):
            out = self.fresh()
            E.run_cmd("log-likelihood", so, data, out, posterior=post,
                      devices=devices)
            outs.append(E.read_arrays(out))
        self.assert_same_arrays(outs[0], outs[1])
        got = outs[0]["change"].reshape(self.DRAWS)
        t = np.arange(self.T)
        want = []
        for k in range(self.DRAWS):
            rate = np.where(t[None, :] < t[:, None], e[k], l[k])
            lp = -np.log(self.T) + stats.poisson.logpmf(D[None, :], rate).sum(1)
            want.append(special.logsumexp(lp))
        np.testing.assert_allclose(got, want, rtol=1e-12)
        info = E.aimz_run("info", so).stdout
        self.assertRegex(info, r"plan: draw")
        self.assertRegex(info, r"change\s+factor\s+joint")


WEIBULL_TARGET = """
model weibull_target(cens: i32[n]) -> (t: f64[n]) {
  alpha ~ Gamma(2, 1);
  sigma ~ Gamma(2, 0.5);
  plate obs(n) {
    # if (cens[n]) target += weibull_lccdf(t[n] | alpha, sigma);
    # else target += weibull_lpdf(t[n] | alpha, sigma);
    factor lp = where(cens == 1, log_ccdf(Weibull(sigma, alpha), t),
                      log_prob(Weibull(sigma, alpha), t));
  }
}
"""


class CensoredWeibullTarget(E.E2ETestCase):
    def test_log_likelihood_against_scipy(self):
        so = self.compile_source("weibull_target", WEIBULL_TARGET)
        rng = np.random.default_rng(5)
        n, draws = 200, 30
        t = stats.weibull_min.rvs(1.5, scale=3.0, size=n, random_state=rng)
        cens = (rng.random(n) < 0.3).astype(np.int32)
        alpha = rng.uniform(1.0, 2.0, draws)
        sigma = rng.uniform(2.0, 4.0, draws)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  {"t": self.save("t.npy", t), "cens": self.save("c.npy", cens)},
                  out, posterior=self.savez("w.npz", alpha=alpha, sigma=sigma))
        got = E.read_arrays(out)["lp"].reshape(draws, n)
        a, s = alpha[:, None], sigma[:, None]
        want = np.where(cens == 1, stats.weibull_min.logsf(t, a, scale=s),
                        stats.weibull_min.logpdf(t, a, scale=s))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


MIXED = """
model mixed(x: f64[n]) -> (y: f64[n], z: i32[n]) {
  mu ~ Normal(0, 1);
  p ~ Beta(2, 2);
  plate obs(n) {
    y ~ Normal(mu + x, 1);
    factor z_lp = where(z == 1, log(p), log1m(p)) + 0.0 * y;
  }
}
"""


class DrawnBesideScoreOnly(E.E2ETestCase):
    def test_log_likelihood_writes_the_drawn_output_and_the_factor(self):
        so = self.compile_source("mixed", MIXED)
        rng = np.random.default_rng(8)
        n = 20
        x, y = rng.normal(size=n), rng.normal(size=n)
        z = (rng.random(n) < 0.4).astype(np.int32)
        mu, p = rng.normal(size=6), rng.uniform(0.2, 0.8, 6)
        post = self.savez("m.npz", mu=mu, p=p)
        data = {"x": self.save("x.npy", x), "y": self.save("y.npy", y),
                "z": self.save("z.npy", z)}
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out, posterior=post)
        got = E.read_arrays(out)
        self.assertEqual(sorted(got), ["y", "z_lp"])
        np.testing.assert_allclose(got["y"].reshape(6, n),
                                   stats.norm.logpdf(y, mu[:, None] + x), rtol=1e-12)
        np.testing.assert_allclose(got["z_lp"].reshape(6, n),
                                   np.where(z == 1, np.log(p[:, None]), np.log1p(-p[:, None])),
                                   rtol=1e-12)
        r = E.run_cmd("predict", so, {"x": data["x"]}, self.fresh(),
                      posterior=post, sites=["y"], check=False)
        self.assert_one_error_line(r, "'z' only with factor terms")
        r = E.run_cmd("prior-predictive", so, {"x": data["x"]}, self.fresh(),
                      num_samples=3, check=False)
        self.assert_one_error_line(r, "no distribution to draw it from")


if __name__ == "__main__":
    E.main()
