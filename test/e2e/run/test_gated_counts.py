"""NumPyro's ZeroInflatedDistribution over any count base (a point mass at
0 with probability gate, else the base) and HurdleDistribution over any
count base with a CDF (a zero with probability gate, else the base
truncated to the positive counts), checked with SciPy only:

- the site-occupancy model of MacKenzie et al. (2002), as Kery and Schaub's
  "Bayesian Population Analysis" ch. 13 writes it in Stan
  (example-models/BPA/Ch.13/site-occ.stan: log_sum_exp(log(psi) +
  binomial_lpmf(0 | R, p), log1m(psi)) for a site never seen,
  log(psi) + binomial_lpmf(y | R, p) otherwise), in NumPyro's spelling:
  detections out of R visits ~ ZeroInflatedDistribution(Binomial(R, p),
  gate=1 - psi); its log-likelihood against that formula, its predictive
  zeros and the law of its non-zero counts;
- gate_logits= over a GammaPoisson (NumPyro's zero-inflated negative
  binomial in its other parameterization): the same checks;
- log_prob(ZeroInflatedDistribution(...), k) in a model equals the site's
  log-likelihood;
- the zero-inflated counts and the beta-binomial truncated (their CDFs:
  gate + (1 - gate) F, and the beta-binomial's summed term by term);
- a hurdle over a continuous base (daily rainfall: a dry day, else a
  Weibull amount), its log-likelihood and draws, and log_prob of a hurdle
  Exponential, whose exact 0 is scored by the gate alone, at f64 and f32;
- a hurdle negative binomial in the GammaPoisson parameterization and a
  hurdle binomial (gate_logits=), their log-likelihoods and draws; a
  MixtureGeneral with a truncated component (PyMC's
  Mixture(w, [Poisson.dist(mu), Truncated.dist(Geometric.dist(p), ...)]))."""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

OCCUPANCY = """
model site_occ(R: i32[n], forest: f64[n]) -> (y: i32[n]) {
  alpha ~ Normal(0, 2);
  beta ~ Normal(0, 2);
  logit_p ~ Normal(0, 2);
  plate sites(n) {
    let psi = expit(alpha + beta * forest);
    y ~ ZeroInflatedDistribution(Binomial(R, logits=logit_p), gate=1 - psi);
  }
}
"""

ZI_GAMMA_POISSON = """
model zigp(x: f64[n], k: i32[n]) -> (y: i32[n]) {
  a ~ Gamma(2, 1);
  b ~ Gamma(2, 1);
  g ~ Normal(0, 1);
  plate obs(n) {
    y ~ ZeroInflatedDistribution(GammaPoisson(a, b * exp(0.1 * x)), gate_logits=g + x);
    deterministic s = log_prob(ZeroInflatedDistribution(
        GammaPoisson(a, b * exp(0.1 * x)), gate_logits=g + x), k);
  }
}
"""

TRUNCATED_COUNTS = """
model trunc_counts(m: i32[n], x: f64[n]) -> (z: i32[n], w: i32[n]) {
  # x only makes the model f64.
  g ~ Uniform(0, 1);
  r ~ Exponential(1);
  a ~ Gamma(2, 1);
  b ~ Gamma(2, 1);
  plate obs(n) {
    z ~ TruncatedDistribution(ZeroInflatedPoisson(g, r), high=5);
    w ~ TruncatedDistribution(BetaBinomial(a, b, m), low=1);
  }
}
"""

HURDLES = """
model hurdles(m: i32[n], x: f64[n]) -> (h: i32[n], b: i32[n], z: i32[n]) {
  g ~ Uniform(0, 1);
  c ~ Gamma(2, 1);
  r ~ Gamma(2, 1);
  p ~ Beta(2, 2);
  plate obs(n) {
    h ~ HurdleDistribution(GammaPoisson(c, r), gate=g);
    b ~ HurdleDistribution(Binomial(m, probs=p), gate_logits=x);
    z ~ MixtureGeneral(Categorical(probs=[0.3, 0.7]),
                       [Poisson(c), TruncatedDistribution(Geometric(p), low=2, high=9)]);
  }
}
"""


def zi_log_pmf(k, gate, log_base):
    with np.errstate(divide="ignore"):
        return np.where(k == 0, np.logaddexp(np.log(gate), np.log1p(-gate) + log_base),
                        np.log1p(-gate) + log_base)


# Daily rainfall as a hurdle: a dry day (an exact 0) with probability gate,
# else a Weibull amount (NumPyro's HurdleDistribution over a continuous base,
# as rainfall models write it), and log_prob of a hurdle Exponential, whose
# density at 0 is 2, not 0: an exact 0 is scored by the gate alone.
RAINFALL = """
model rain(x: %(t)s[n]) -> (y: %(t)s[n]) {
  g ~ Normal(0, 1);
  k ~ Gamma(2, 1);
  plate days(n) {
    y ~ HurdleDistribution(Weibull(exp(0.3 * x), k), gate=expit(g + x));
    deterministic e = log_prob(HurdleDistribution(Exponential(2.0), gate_logits=g), y);
  }
}
"""


class GatedCounts(E.E2ETestCase):
    def occupancy(self):
        rng = np.random.default_rng(31)
        n = 300
        R = rng.integers(2, 6, n).astype(np.int32)
        forest = rng.uniform(-1, 1, n)
        data = {"R": self.save("R.npy", R), "forest": self.save("forest.npy", forest)}
        return self.compile_source("site_occ", OCCUPANCY), data, R, forest, rng

    def test_occupancy_log_likelihood(self):
        so, data, R, forest, rng = self.occupancy()
        draws = 6
        post = dict(alpha=rng.normal(0, 1, draws), beta=rng.normal(0, 1, draws),
                    logit_p=rng.normal(0, 1, draws))
        psi = special.expit(post["alpha"][:, None] + post["beta"][:, None] * forest)
        p = special.expit(post["logit_p"])[:, None]
        y = (rng.random(len(R)) < 0.6) * rng.binomial(R, 0.4)
        data["y"] = self.save("y.npy", y.astype(np.int32))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out, posterior=self.savez("occ.npz", **post))
        got = E.read_arrays(out)["y"]
        # Stan's site-occ.stan, term by term.
        want = np.where(y == 0,
                        np.logaddexp(np.log(psi) + stats.binom.logpmf(0, R, p),
                                     np.log1p(-psi)),
                        np.log(psi) + stats.binom.logpmf(y, R, p))
        np.testing.assert_allclose(got, want, rtol=1e-10)

    def test_occupancy_draws(self):
        so, data, R, forest, _ = self.occupancy()
        draws = 4000
        post = dict(alpha=np.full(draws, 0.3), beta=np.full(draws, 1.2),
                    logit_p=np.full(draws, -0.4))
        out = self.fresh(".npz")
        E.run_cmd("predict", so, data, out, posterior=self.savez("occ1.npz", **post), seed=5)
        y = E.read_arrays(out)["y"]
        psi = special.expit(0.3 + 1.2 * forest)
        p = special.expit(-0.4)
        zeros = (1 - psi) + psi * (1 - p) ** R
        # The zero fraction per site, within 5 standard errors.
        se = np.sqrt(zeros * (1 - zeros) / draws)
        self.assertLess(np.max(np.abs((y == 0).mean(0) - zeros) / se), 5.5)
        # Non-zero counts at sites with R = 4 follow Binomial(4, p) given > 0.
        k = y[:, R == 4]
        k = k[k > 0]
        expected = stats.binom.pmf(np.arange(1, 5), 4, p)
        expected = expected / expected.sum() * len(k)
        observed = np.array([(k == j).sum() for j in range(1, 5)])
        self.assertGreater(stats.chisquare(observed, expected).pvalue, 1e-4)

    def test_hurdles_over_continuous_bases(self):
        rng = np.random.default_rng(41)
        n, draws = 300, 6
        x = rng.normal(size=n)
        y = np.where(rng.random(n) < 0.4, 0.0, 2 * rng.weibull(1.5, n))
        post = dict(g=rng.normal(size=draws), k=rng.gamma(2, 1, draws) + 0.3)
        gate = special.expit(post["g"][:, None] + x)
        scale, k = np.exp(0.3 * x), post["k"][:, None]
        for t, rtol in (("f64", 1e-10), ("f32", 2e-5)):
            so = self.compile_source("rain_" + t, RAINFALL % {"t": t})
            dt = np.float64 if t == "f64" else np.float32
            data = {"x": self.save("rx_%s.npy" % t, x.astype(dt)),
                    "y": self.save("ry_%s.npy" % t, y.astype(dt))}
            pp = self.savez("rain_%s.npz" % t, **post)
            out = self.fresh(".npz")
            E.run_cmd("log-likelihood", so, data, out, posterior=pp)
            want = np.where(y == 0, np.log(gate),
                            np.log1p(-gate) + stats.weibull_min.logpdf(y, k, scale=scale))
            np.testing.assert_allclose(E.read_arrays(out)["y"], want, rtol=rtol,
                                       atol=rtol)
            # Draws: the dry days' share, the wet days' amounts (draw 0, KS)
            # and log_prob at what was drawn.
            many = {kk: np.repeat(v[:1], 400) for kk, v in post.items()}
            out = self.fresh(".npz")
            E.run_cmd("predict", so, {"x": data["x"]}, out, seed=3,
                      posterior=self.savez("rain_many_%s.npz" % t, **many),
                      sites=["y", "e"])
            got = E.read_arrays(out)
            zeros = (got["y"] == 0).mean(0)
            se = np.sqrt(gate[0] * (1 - gate[0]) / 400)
            self.assertLess(np.max(np.abs(zeros - gate[0]) / se), 5.5)
            wet = got["y"][0] > 0
            u = stats.weibull_min.cdf(got["y"][0][wet], post["k"][0], scale=scale[wet])
            self.assertGreater(stats.kstest(u, "uniform").pvalue, 1e-4)
            g0 = post["g"][0]
            e = np.where(got["y"] == 0, np.log(special.expit(g0)),
                         np.log1p(-special.expit(g0)) +
                         stats.expon.logpdf(got["y"].astype(np.float64), scale=0.5))
            np.testing.assert_allclose(got["e"], e, rtol=rtol, atol=rtol)

    def test_gate_logits_over_gamma_poisson(self):
        rng = np.random.default_rng(7)
        n, draws = 200, 5
        x = rng.normal(size=n)
        post = dict(a=rng.uniform(0.5, 3, draws), b=rng.uniform(0.3, 2, draws),
                    g=rng.normal(0, 1, draws))
        y = rng.poisson(2.0, n).astype(np.int32) * (rng.random(n) < 0.7)
        so = self.compile_source("zigp", ZI_GAMMA_POISSON)
        out = self.fresh(".npz")
        data = {"x": self.save("x.npy", x), "k": self.save("k.npy", y.astype(np.int32)),
                "y": self.save("gy.npy", y.astype(np.int32))}
        E.run_cmd("log-likelihood", so, data, out, posterior=self.savez("gp.npz", **post))
        got = E.read_arrays(out)["y"]
        a, b, g = (post[k][:, None] for k in "abg")
        rate = b * np.exp(0.1 * x)
        base = stats.nbinom.logpmf(y, a, rate / (1 + rate))
        want = zi_log_pmf(y, special.expit(g + x), base)
        np.testing.assert_allclose(got, want, rtol=1e-9)
        # log_prob of the same distribution, as a deterministic site.
        out = self.fresh(".npz")
        E.run_cmd("predict", so, data, out, posterior=self.savez("gp2.npz", **post),
                  sites=["s"])
        np.testing.assert_allclose(E.read_arrays(out)["s"], want, rtol=1e-9)

    def test_truncated_zero_inflated_and_beta_binomial(self):
        so = self.compile_source("trunc_counts", TRUNCATED_COUNTS)
        rng = np.random.default_rng(17)
        n, draws = 150, 4
        m = rng.integers(2, 30, n).astype(np.int32)
        post = dict(g=rng.uniform(0.1, 0.8, draws), r=rng.uniform(0.5, 6, draws),
                    a=rng.uniform(0.5, 4, draws), b=rng.uniform(0.5, 4, draws))
        z = rng.integers(0, 6, n).astype(np.int32)
        w = np.minimum(rng.integers(1, 30, n), m).astype(np.int32)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  {"m": self.save("tm.npy", m), "z": self.save("tz.npy", z),
                   "w": self.save("tw.npy", w), "x": self.save("tx.npy", np.zeros(n))},
                  out, posterior=self.savez("tc.npz", **post))
        got = E.read_arrays(out)
        g, r, a, b = (post[k][:, None] for k in "grab")
        # ZeroInflatedPoisson(g, r) on {0, ..., 5}.
        zi = zi_log_pmf(z, g, stats.poisson.logpmf(z, r))
        mass = g + (1 - g) * stats.poisson.cdf(5, r)
        np.testing.assert_allclose(got["z"], zi - np.log(mass), rtol=1e-10)
        # BetaBinomial(a, b, m) on {1, ..., m}.
        bb = stats.betabinom.logpmf(w, m, a, b) - stats.betabinom.logsf(0, m, a, b)
        np.testing.assert_allclose(got["w"], bb, rtol=1e-9)
        # Draws: inside the interval, by the truncated laws.
        draws = 3000
        post = dict(g=np.full(draws, 0.4), r=np.full(draws, 3.0), a=np.full(draws, 2.0),
                    b=np.full(draws, 3.0))
        out = self.fresh(".npz")
        E.run_cmd("predict", so, {"m": self.save("tm.npy", m), "x": self.save("tx.npy", np.zeros(n))},
                  out, posterior=self.savez("tc1.npz", **post), seed=9)
        got = E.read_arrays(out)
        self.assertTrue(((got["z"] >= 0) & (got["z"] <= 5)).all())
        self.assertTrue(((got["w"] >= 1) & (got["w"] <= m)).all())
        k = np.arange(6)
        pz = np.exp(zi_log_pmf(k, 0.4, stats.poisson.logpmf(k, 3.0)))
        observed = np.array([(got["z"] == j).sum() for j in k])
        self.assertGreater(stats.chisquare(observed, pz / pz.sum() * observed.sum()).pvalue, 1e-4)
        sel = got["w"][:, m == m[0]]
        k = np.arange(1, m[0] + 1)
        pw = stats.betabinom.pmf(k, m[0], 2.0, 3.0)
        observed = np.array([(sel == j).sum() for j in k])
        expected = pw / pw.sum() * observed.sum()
        keep = expected > 5  # chi-square's rule of thumb; the rest pooled
        if not keep.all():
            observed = np.append(observed[keep], observed[~keep].sum())
            expected = np.append(expected[keep], expected[~keep].sum())
        self.assertGreater(stats.chisquare(observed, expected).pvalue, 1e-4)

    def hurdle_want(self, h, b, z, m, x, post):
        g, c, r, p = (post[k][:, None] for k in "gcrp")
        with np.errstate(divide="ignore"):
            nb = stats.nbinom(c, r / (1 + r))
            want_h = np.where(h == 0, np.log(g), np.log1p(-g) + nb.logpmf(h) - nb.logsf(0))
            gb = special.expit(x)
            bi = stats.binom(m, p)
            want_b = np.where(b == 0, np.log(gb), np.log1p(-gb) + bi.logpmf(b) - bi.logsf(0))
            geo = stats.geom(p, loc=-1)  # failures before the first success
            trunc = np.where((z >= 2) & (z <= 9),
                             geo.logpmf(z) - np.log(geo.cdf(9) - geo.cdf(1)), -np.inf)
            want_z = np.logaddexp(np.log(0.3) + stats.poisson.logpmf(z, c),
                                  np.log(0.7) + trunc)
        return want_h, want_b, want_z

    def test_hurdles_and_a_truncated_component(self):
        so = self.compile_source("hurdles", HURDLES)
        rng = np.random.default_rng(23)
        n, draws = 200, 4
        m = rng.integers(1, 15, n).astype(np.int32)
        x = rng.normal(0, 1.5, n)
        post = dict(g=rng.uniform(0.1, 0.9, draws), c=rng.uniform(0.5, 4, draws),
                    r=rng.uniform(0.3, 3, draws), p=rng.uniform(0.2, 0.8, draws))
        h = rng.poisson(2.0, n) * (rng.random(n) < 0.6)
        b = np.minimum(rng.poisson(2.0, n), m) * (rng.random(n) < 0.6)
        z = rng.integers(0, 11, n)
        data = {"m": self.save("hm.npy", m), "x": self.save("hx.npy", x),
                "h": self.save("hh.npy", h.astype(np.int32)),
                "b": self.save("hb.npy", b.astype(np.int32)),
                "z": self.save("hz.npy", z.astype(np.int32))}
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out, posterior=self.savez("hp.npz", **post))
        got = E.read_arrays(out)
        want = self.hurdle_want(h, b, z, m, x, post)
        for name, w in zip("hbz", want):
            np.testing.assert_allclose(got[name], w, rtol=1e-9, err_msg=name)
        # Draws: the hurdle's zero fraction is the gate; its positive part
        # the base given > 0.
        draws = 4000
        post = dict(g=np.full(draws, 0.35), c=np.full(draws, 2.0), r=np.full(draws, 0.8),
                    p=np.full(draws, 0.4))
        out = self.fresh(".npz")
        E.run_cmd("predict", so, {"m": data["m"], "x": data["x"]}, out,
                  posterior=self.savez("hp1.npz", **post), seed=3)
        got = E.read_arrays(out)
        zero = (got["h"] == 0).mean()
        self.assertLess(abs(zero - 0.35), 5 * np.sqrt(0.35 * 0.65 / got["h"].size))
        np.testing.assert_allclose((got["b"] == 0).mean(0), special.expit(x),
                                   atol=5 * 0.5 / np.sqrt(draws))
        pos = got["h"][got["h"] > 0]
        nb = stats.nbinom(2.0, 0.8 / 1.8)
        k = np.arange(1, 12)
        expected = nb.pmf(k) / nb.sf(0) * pos.size
        observed = np.array([(pos == j).sum() for j in k])
        observed = np.append(observed, pos.size - observed.sum())
        expected = np.append(expected, pos.size - expected.sum())
        self.assertGreater(stats.chisquare(observed, expected).pvalue, 1e-4)
        # The mixture with a truncated component: its law, k = 0..9 and above.
        zz = got["z"].reshape(-1)
        geo = stats.geom(0.4, loc=-1)
        k = np.arange(10)
        trunc = np.where(k >= 2, geo.pmf(k) / (geo.cdf(9) - geo.cdf(1)), 0.0)
        pz = 0.3 * stats.poisson.pmf(k, 2.0) + 0.7 * trunc
        observed = np.append([(zz == j).sum() for j in k], (zz > 9).sum())
        expected = np.append(pz, 1 - pz.sum()) * zz.size
        self.assertGreater(stats.chisquare(observed, expected).pvalue, 1e-4)


if __name__ == "__main__":
    E.main()
