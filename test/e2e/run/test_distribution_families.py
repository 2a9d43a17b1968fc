"""The distributions of the family headers (Circular.h, RealLineFamilies.h,
PositiveFamilies.h, BoundedFamilies.h, CountFamilies.h) against SciPy:

- each one's log density (`log_prob(Dist(...), x)` on a grid inside and
  outside the support, at f64 and f32) against scipy.stats, or the closed
  form where SciPy has none (SoftLaplace, LogitNormal, the zero-inflated
  binomial, and the beta negative binomial that Debian's SciPy lacks);
- its draws (a prior-predictive site of 4000 draws): a KS test against
  SciPy's CDF, a chi-square test for counts;
- for those with a CDF (AIMZ_CDF_FAMILY rows): a TruncatedDistribution's
  draws (KS against SciPy's truncated CDF) and log density, and Censored's
  log density at the bounds (SciPy's logcdf / logsf).

NumPyro's own log_prob of its classes is checked in
test/e2e/numpyro/test_log_densities.py, the log CDFs in test_censored.py.
"""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


class _Closed:
    """A closed-form reference: logpdf (or logpmf) and cdf callables."""

    def __init__(self, logpdf, cdf=None, discrete=False):
        self.logpdf, self.cdf, self.discrete = logpdf, cdf, discrete
        self.logpmf = logpdf

    def logcdf(self, x):
        with np.errstate(divide="ignore"):
            return np.log(self.cdf(x))

    def logsf(self, x):
        with np.errstate(divide="ignore"):
            return np.log1p(-self.cdf(x))


def folded(ref):
    """|X| for X from the frozen SciPy distribution ref."""
    def logpdf(x):
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.logaddexp(ref.logpdf(x), ref.logpdf(-x))
        return np.where(x >= 0, v, -np.inf)
    return _Closed(logpdf, lambda x: np.where(x > 0, ref.cdf(x) - ref.cdf(-x), 0.0))


def soft_laplace(loc, scale):
    def logpdf(x):
        z = (x - loc) / scale
        return np.log(2 / np.pi) - np.log(scale) - np.logaddexp(z, -z)
    return _Closed(logpdf, lambda x: 2 / np.pi * np.arctan(np.exp((x - loc) / scale)))


def logit_normal(mu, sigma):
    def logpdf(x):
        with np.errstate(divide="ignore", invalid="ignore"):
            v = (stats.norm.logpdf(special.logit(x), mu, sigma) - np.log(x)
                 - np.log1p(-x))
        return np.where((x > 0) & (x < 1), v, -np.inf)

    def cdf(x):
        with np.errstate(divide="ignore"):
            return stats.norm.cdf(special.logit(np.clip(x, 0, 1)), mu, sigma)
    return _Closed(logpdf, cdf)


def beta_negative_binomial(a, b, n):
    def logpmf(k):
        k = np.asarray(k, np.float64)
        with np.errstate(invalid="ignore"):
            v = (special.gammaln(n + k) - special.gammaln(n) - special.gammaln(k + 1)
                 + special.betaln(a + k, b + n) - special.betaln(a, b))
        return np.where((k >= 0) & (k == np.floor(k)), v, -np.inf)
    return _Closed(logpmf, discrete=True)


def zero_inflated_binomial(psi, n, p):
    def logpmf(k):
        k = np.asarray(k, np.float64)
        with np.errstate(divide="ignore"):
            base = np.log(psi) + stats.binom.logpmf(k, n, p)
            return np.where(k == 0, np.logaddexp(np.log1p(-psi), base), base)
    return _Closed(logpmf, discrete=True)


def doubly_truncated_power_law(alpha, low, high):
    b = 1 + alpha

    def logpdf(x):
        with np.errstate(divide="ignore", invalid="ignore"):
            v = alpha * np.log(x) + np.log(abs(b)) - np.log(abs(high ** b - low ** b))
        return np.where((x >= low) & (x <= high), v, -np.inf)

    def cdf(x):
        return (np.clip(x, low, high) ** b - low ** b) / (high ** b - low ** b)
    return _Closed(logpdf, cdf)


X_REAL = np.array([-30.0, -6.0, -2.5, -1.0, -0.3, 0.0, 0.4, 1.0, 2.2, 5.0, 12.0, 40.0])
X_POS = np.array([-1.0, 0.0, 1e-3, 0.05, 0.3, 0.8, 1.0, 1.7, 3.0, 6.0, 15.0, 80.0])
X_UNIT = np.array([-0.1, 0.0, 1e-4, 0.02, 0.2, 0.45, 0.5, 0.7, 0.93, 0.9999, 1.0, 1.2])
X_ANGLE = np.array([-3.1, -2.0, -0.7, 0.0, 0.5, 1.3, 2.9, 3.1, 7.0, -9.0, 0.25, 1.0])
X_COUNT = np.array([-1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 10.0, 25.0, 2.5, 60.0])

# name: (call, SciPy frozen or _Closed reference, grid, kind); parameters
# are exact in float32 so that both precisions score the same distribution.
CASES = {
    "vonmises": ("VonMises(0.5, 2.25)", stats.vonmises(2.25, loc=0.5), X_ANGLE, "angle"),
    "vonmises_k": ("VonMises(-1.0, 40.0)", stats.vonmises(40.0, loc=-1.0), X_ANGLE, "angle"),
    "softlaplace": ("SoftLaplace(0.5, 1.5)", soft_laplace(0.5, 1.5), X_REAL, "cont"),
    "levy": ("Levy(0.25, 1.5)", stats.levy(0.25, 1.5), X_POS, "cont"),
    "gompertz": ("Gompertz(0.75, 1.25)", stats.gompertz(0.75, scale=1 / 1.25), X_POS, "cont"),
    "dagum": ("Dagum(1.5, 3.0, 2.0)", stats.burr(3.0, 1.5, scale=2.0), X_POS, "cont"),
    "skewnormal": ("SkewNormal(alpha=-3.0, mu=1.0, sigma=2.0)",
                   stats.skewnorm(-3.0, 1.0, 2.0), X_REAL, "cont"),
    "exgaussian": ("ExGaussian(0.5, 1.25, nu=2.0)",
                   stats.exponnorm(2.0 / 1.25, 0.5, 1.25), X_REAL, "cont"),
    "exgaussian_narrow": ("ExGaussian(mu=0.0, sigma=1.0, nu=0.0625)",
                          stats.exponnorm(0.0625, 0.0, 1.0), X_REAL, "cont"),
    "wald": ("Wald(1.5, 2.0)", stats.invgauss(1.5 / 2.0, scale=2.0), X_POS, "cont"),
    "wald_shifted": ("Wald(mu=0.5, lam=4.0, alpha=-0.5)",
                     stats.invgauss(0.5 / 4.0, loc=-0.5, scale=4.0), X_REAL, "cont"),
    "moyal": ("Moyal(0.5, 1.5)", stats.moyal(0.5, 1.5), X_REAL, "cont"),
    "rice": ("Rice(1.5, 0.75)", stats.rice(1.5 / 0.75, scale=0.75), X_POS, "cont"),
    "logitnormal": ("LogitNormal(0.5, 1.25)", logit_normal(0.5, 1.25), X_UNIT, "cont"),
    "triangular": ("Triangular(lower=0.0, upper=1.0, c=0.25)",
                   stats.triang(0.25, 0.0, 1.0), X_UNIT, "cont"),
    "lowerpowerlaw": ("LowerTruncatedPowerLaw(-2.5, 0.75)", stats.pareto(1.5, scale=0.75),
                      X_POS, "cont"),
    "doublepowerlaw": ("DoublyTruncatedPowerLaw(-0.5, 0.25, 6.0)",
                       doubly_truncated_power_law(-0.5, 0.25, 6.0), X_POS, "cont"),
    "doublepowerlaw_steep": ("DoublyTruncatedPowerLaw(-3.0, 0.5, 20.0)",
                             doubly_truncated_power_law(-3.0, 0.5, 20.0), X_POS, "cont"),
    # NumPyro's FoldedDistribution (Folded.h): SciPy's folded normal and
    # Cauchy, and |X| of an asymmetric base and a heavy-tailed one.
    "folded_normal": ("FoldedDistribution(Normal(0.75, 1.5))",
                      stats.foldnorm(0.5, scale=1.5), X_REAL, "cont"),
    "folded_cauchy": ("FoldedDistribution(Cauchy(-1.0, 0.5))",
                      stats.foldcauchy(2.0, scale=0.5), X_REAL, "cont"),
    "folded_studentt": ("FoldedDistribution(base_dist=StudentT(3.0, 1.0, 2.0))",
                        folded(stats.t(3.0, 1.0, 2.0)), X_REAL, "cont"),
    "folded_skewnormal": ("FoldedDistribution(SkewNormal(alpha=2.0, mu=-0.5, sigma=1.5))",
                          folded(stats.skewnorm(2.0, -0.5, 1.5)), X_REAL, "cont"),
    "discreteuniform": ("DiscreteUniform(2, 9)", stats.randint(2, 10), X_COUNT, "count"),
    "betanegbinomial": ("BetaNegativeBinomial(4.0, 2.5, 3.0)",
                        beta_negative_binomial(4.0, 2.5, 3.0), X_COUNT, "count"),
    "zibinomial": ("ZeroInflatedBinomial(0.75, 10, 0.25)",
                   zero_inflated_binomial(0.75, 10, 0.25), X_COUNT, "count"),
}

# The AIMZ_CDF_FAMILY rows: (case, low, high) of a truncation.
TRUNCATIONS = {
    "softlaplace": (-1.0, 3.0), "levy": (1.0, 6.0), "gompertz": (0.5, np.inf),
    "dagum": (1.0, 4.0), "wald": (0.5, 2.5), "moyal": (-np.inf, 1.0),
    "logitnormal": (0.3, 0.9), "triangular": (0.1, 0.6),
    "lowerpowerlaw": (2.0, 10.0), "doublepowerlaw": (1.0, 3.0),
    # FoldedDistribution's CDF (Folded.h): the base's mass on [-x, x],
    # quantiles by bisection; from 0, to infinity, and both ends.
    "folded_normal": (0.0, 2.0), "folded_cauchy": (0.25, np.inf),
    "folded_studentt": (1.0, 6.0), "folded_skewnormal": (0.5, 3.0),
    "skewnormal": (1.5, np.inf),  # the light tail (alpha < 0): bisection
    # Bisection with no lower end: the bracket grows down from -1.
    "exgaussian": (-np.inf, 1.0),
    "vonmises": (-1.0, 2.0),
}


def scipy_logpdf(ref, x, kind):
    with np.errstate(all="ignore"):
        return ref.logpmf(x) if kind == "count" else ref.logpdf(x)


class LogDensities(E.E2ETestCase):
    """log_prob of every case at its grid, one model per precision."""

    def run_precision(self, ty):
        inputs = ", ".join("x_%s: %s[n]" % (k, ty) for k in CASES)
        lines = ["    deterministic l_%s = log_prob(%s, x_%s);" % (k, call, k)
                 for k, (call, _, _, _) in CASES.items()]
        src = ("model logps(%s) -> (y: %s[n]) {\n  plate obs(n) {\n%s\n"
               "    y ~ Normal(0, 1);\n  }\n}\n" % (inputs, ty, "\n".join(lines)))
        so = self.compile_source("logps_" + ty, src)
        dtype = np.float64 if ty == "f64" else np.float32
        data = {"x_" + k: self.save("x_%s_%s.npy" % (k, ty), g.astype(dtype))
                for k, (_, _, g, _) in CASES.items()}
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, data, out, num_samples=1,
                  sites=["l_" + k for k in CASES])
        return E.read_arrays(out)

    def check(self, ty, rtol, atol):
        got = self.run_precision(ty)
        bad = []
        for k, (_, ref, grid, kind) in CASES.items():
            x = grid.astype(np.float32 if ty == "f32" else np.float64).astype(np.float64)
            want = scipy_logpdf(ref, x, kind)
            if ty == "f32":  # beyond float's range: the infinity of its sign
                want = np.where(np.abs(want) > np.finfo(np.float32).max, np.sign(want) * np.inf, want)
            have = got["l_" + k][0].astype(np.float64)
            same_inf = np.isinf(want) & (have == want)
            with np.errstate(invalid="ignore"):
                ok = same_inf | (np.abs(have - want) <= atol + rtol * np.abs(want))
            for i in np.flatnonzero(~ok):
                bad.append("%s at x=%r: %r, SciPy %r" % (k, x[i], have[i], want[i]))
        self.assertEqual(bad, [], "\n".join(bad))

    def test_f64_against_scipy(self):
        self.check("f64", 1e-10, 1e-12)

    def test_f32_against_scipy(self):
        self.check("f32", 2e-6, 1e-6)


def truncated_cdf(ref, low, high):
    lo = ref.cdf(low) if np.isfinite(low) else 0.0
    hi = ref.cdf(high) if np.isfinite(high) else 1.0
    return lambda x: (ref.cdf(np.clip(x, low, high)) - lo) / (hi - lo)


class Draws(E.E2ETestCase):
    """4000 draws of every case and of every truncation: a site each of one
    model per precision, tested against SciPy."""
    M = 4000

    def draws(self, ty):
        lines = ["  d_%s ~ %s[%d];" % (k, call, self.M) for k, (call, _, _, _) in CASES.items()]
        lines += ["  t_%s ~ TruncatedDistribution(%s, low=%r, high=%r)[%d];" % (
            k, CASES[k][0], float(lo), float(hi), self.M) for k, (lo, hi) in TRUNCATIONS.items()]
        src = ("model draws(x: %s[n]) -> (y: %s[n]) {\n%s\n  plate obs(n) {\n"
               "    y ~ Normal(x, 1);\n  }\n}\n" % (ty, ty, "\n".join(lines)))
        so = self.compile_source("draws_" + ty, src)
        out = self.fresh(".npz")
        data = {"x": self.save("x_%s.npy" % ty, np.zeros(3, np.float64 if ty == "f64" else np.float32))}
        sites = ["d_" + k for k in CASES] + ["t_" + k for k in TRUNCATIONS]
        E.run_cmd("prior-predictive", so, data, out, num_samples=1, seed=11, sites=sites)
        return E.read_arrays(out)

    def check(self, ty):
        got = self.draws(ty)
        bad = []
        for k, (call, ref, _, kind) in CASES.items():
            x = got["d_" + k][0].astype(np.float64)
            if kind == "count":
                p = self.chi_square(x, ref)
            elif kind == "angle":
                loc = ref.kwds["loc"]
                self.assertTrue(((x >= -np.pi) & (x <= np.pi)).all(), k)
                r = np.mod(x - loc + np.pi, 2 * np.pi) - np.pi
                p = stats.kstest(r, stats.vonmises(*ref.args).cdf).pvalue
            else:
                p = stats.kstest(x, ref.cdf).pvalue
            if not p > 1e-4:
                bad.append("%s: p = %g" % (k, p))
        for k, (lo, hi) in TRUNCATIONS.items():
            x = got["t_" + k][0].astype(np.float64)
            if not ((x >= lo) & (x <= hi)).all():
                bad.append("t_%s: draws outside [%g, %g]" % (k, lo, hi))
            p = stats.kstest(x, truncated_cdf(CASES[k][1], lo, hi)).pvalue
            if not p > 1e-4:
                bad.append("t_%s: p = %g" % (k, p))
        self.assertEqual(bad, [], "\n".join(bad))

    def chi_square(self, x, ref):
        self.assertTrue((x == np.floor(x)).all() and (x >= 0).all())
        ks = np.arange(0, int(x.max()) + 1)
        pmf = np.exp(ref.logpmf(ks.astype(np.float64)))
        expected = pmf * len(x)
        observed = np.bincount(x.astype(np.int64), minlength=len(ks))[:len(ks)]
        # Cells with fewer than 5 expected merged into their neighbours.
        keep = expected >= 5
        obs = np.append(observed[keep], observed[~keep].sum() + (len(x) - observed.sum()))
        exp = np.append(expected[keep], len(x) - expected[keep].sum())
        if exp[-1] < 5:
            obs, exp = obs[:-1], exp[:-1]
            exp = exp * obs.sum() / exp.sum()
        return stats.chisquare(obs, exp).pvalue

    def test_f64_draws(self):
        self.check("f64")

    def test_f32_draws(self):
        self.check("f32")


class TruncatedAndCensored(E.E2ETestCase):
    """log_prob of a truncation and of PyMC's Censored over each CDF family
    against SciPy (its logpdf less the interval's log mass; logcdf / logsf
    at the bounds)."""

    def test_log_densities_f64(self):
        lines, refs = [], {}
        for k, (lo, hi) in TRUNCATIONS.items():
            call, ref, grid, _ = CASES[k]
            bounds = "low=%r, high=%r" % (float(lo), float(hi))
            lines.append("    deterministic t_%s = log_prob(TruncatedDistribution(%s, %s), x_%s);"
                         % (k, call, bounds, k))
            clo, chi = (lo if np.isfinite(lo) else grid[2]), (hi if np.isfinite(hi) else grid[-3])
            lines.append("    deterministic c_%s = log_prob(Censored(%s, lower=%r, upper=%r), x_%s);"
                         % (k, call, float(clo), float(chi), k))
            refs[k] = (ref, lo, hi, clo, chi)
        src = ("model tc(%s) -> (y: f64[n]) {\n  plate obs(n) {\n%s\n"
               "    y ~ Normal(0, 1);\n  }\n}\n"
               % (", ".join("x_%s: f64[n]" % k for k in TRUNCATIONS),
                  "\n".join(lines)))
        so = self.compile_source("tc", src)
        grids = {}
        for k, (ref, lo, hi, clo, chi) in refs.items():
            g = CASES[k][2].astype(np.float64).copy()
            g[0], g[-1] = clo, chi  # the censoring bounds themselves
            grids[k] = g
        data = {"x_" + k: self.save("tc_%s.npy" % k, g) for k, g in grids.items()}
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, data, out, num_samples=1,
                  sites=["t_" + k for k in refs] + ["c_" + k for k in refs])
        got = E.read_arrays(out)
        bad = []
        with np.errstate(all="ignore"):
            for k, (ref, lo, hi, clo, chi) in refs.items():
                x = grids[k]
                mass = ((ref.cdf(hi) if np.isfinite(hi) else 1.0)
                        - (ref.cdf(lo) if np.isfinite(lo) else 0.0))
                want_t = np.where((x >= lo) & (x <= hi), ref.logpdf(x) - np.log(mass), -np.inf)
                logcdf, logsf = ref.logcdf, ref.logsf
                if CASES[k][3] == "angle":
                    # SciPy's CDF is unwrapped; ours is P(-pi <= X <= x).
                    logcdf = lambda v, f=ref: np.log(f.cdf(v) - f.cdf(-np.pi))  # noqa: E731
                    logsf = lambda v, f=ref: np.log(f.cdf(np.pi) - f.cdf(v))  # noqa: E731
                want_c = np.where(x == clo, logcdf(x), np.where(
                    x == chi, logsf(x), np.where((x > clo) & (x < chi), ref.logpdf(x), -np.inf)))
                for tag, want in (("t_", want_t), ("c_", want_c)):
                    have = got[tag + k][0]
                    ok = (np.isinf(want) & (have == want)) | (np.abs(have - want) <= 1e-9 * (1 + np.abs(want)))
                    for i in np.flatnonzero(~ok):
                        bad.append("%s%s at %r: %r, SciPy %r" % (tag, k, x[i], have[i], want[i]))
        self.assertEqual(bad, [], "\n".join(bad))


class Vectors(E.E2ETestCase):
    """MultivariateStudentT and GaussianRandomWalk (MultivariateFamilies.h):
    draws and log densities against SciPy."""
    LOC = np.array([0.5, -1.0, 2.0])
    L = np.array([[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [-0.3, 0.2, 0.7]])
    DF, SCALE, M = 5.0, 1.5, 4000

    def source(self, ty):
        lit = lambda a: np.array2string(np.asarray(a), separator=", ")  # noqa: E731
        call = "MultivariateStudentT(%r, %s, scale_tril=%s)" % (
            self.DF, lit(self.LOC), lit(self.L).replace("\n", ""))
        walk = "GaussianRandomWalk(%r, num_steps=6)" % self.SCALE
        return ("model v(x: %s[n]) -> (ym: %s[n, 3], yw: %s[n, 6]) {\n"
                "  z ~ ZeroSumNormal(1.5, event_shape=(5,))[4000];\n"
                "  C ~ LKJ(3, 2.0)[4000];\n"
                "  m ~ %s[%d];\n  w ~ %s[%d];\n  plate obs(n) {\n"
                "    ym ~ %s;\n    yw ~ %s;\n  }\n}\n" % (
                    ty, ty, ty, call, self.M, walk, self.M, call, walk))

    def run_precision(self, ty):
        dtype = np.float64 if ty == "f64" else np.float32
        so = self.compile_source("vectors_" + ty, self.source(ty))
        rng = np.random.default_rng(5)
        xm = (self.LOC + rng.standard_t(3, (40, 3)) * 2).astype(dtype)
        xw = np.cumsum(rng.normal(0, 2, (40, 6)), axis=1).astype(dtype)
        x = self.save("x_%s.npy" % ty, np.zeros(40, dtype))
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, {"x": x}, out, num_samples=1, seed=3,
                  sites=["m", "w", "z", "C"])
        got = E.read_arrays(out)
        post = self.savez("post_%s.npz" % ty, m=np.zeros((1, self.M, 3), dtype),
                          w=np.zeros((1, self.M, 6), dtype), z=np.zeros((1, 4000, 5), dtype),
                          C=np.broadcast_to(np.eye(3, dtype=dtype), (1, 4000, 3, 3)))
        out = self.fresh(".npz")
        data = {"x": x, "ym": self.save("ym_%s.npy" % ty, xm), "yw": self.save("yw_%s.npy" % ty, xw)}
        E.run_cmd("log-likelihood", so, data, out, posterior=post)
        got.update({"l" + k[1]: v for k, v in E.read_arrays(out).items()})
        return got, xm.astype(np.float64), xw.astype(np.float64)

    def check(self, ty, tol):
        got, xm, xw = self.run_precision(ty)
        cov = self.L @ self.L.T
        want_m = stats.multivariate_t(self.LOC, cov, df=self.DF).logpdf(xm)
        np.testing.assert_allclose(got["lm"][0], want_m, rtol=tol)
        steps = np.diff(np.concatenate([np.zeros((len(xw), 1)), xw], axis=1), axis=1)
        want_w = stats.norm(0, self.SCALE).logpdf(steps).sum(axis=1)
        np.testing.assert_allclose(got["lw"][0], want_w, rtol=tol)
        # Draws: the squared Mahalanobis distance over K is F(K, df); the
        # walk's steps are iid Normal(0, scale).
        m = got["m"][0].astype(np.float64) - self.LOC
        y = np.linalg.solve(self.L, m.T).T
        f = (y * y).sum(axis=1) / 3
        self.assertGreater(stats.kstest(f, stats.f(3, self.DF).cdf).pvalue, 1e-4)
        w = got["w"][0].astype(np.float64)
        d = np.diff(np.concatenate([np.zeros((self.M, 1)), w], axis=1), axis=1)
        self.assertGreater(stats.kstest(d.ravel(), stats.norm(0, self.SCALE).cdf).pvalue, 1e-4)
        # ZeroSumNormal: sums to zero; the transform's inverse (the first
        # K - 1 values plus c) is iid Normal(0, scale).
        z = got["z"][0].astype(np.float64)
        self.assertLess(np.abs(z.sum(axis=1)).max(), 1e-5 if ty == "f32" else 1e-12)
        c = -z[:, -1:] * np.sqrt(5) / (np.sqrt(5) + 5)
        self.assertGreater(stats.kstest((z[:, :-1] + c).ravel(), stats.norm(0, 1.5).cdf).pvalue, 1e-4)
        # LKJ(3, eta): symmetric, unit diagonal, positive definite; each
        # correlation is Beta(eta - 1 + K / 2, same) on (-1, 1).
        C = got["C"][0].astype(np.float64)
        np.testing.assert_array_equal(C, np.swapaxes(C, 1, 2))
        np.testing.assert_array_equal(C[:, [0, 1, 2], [0, 1, 2]], 1.0)
        self.assertGreater(np.linalg.eigvalsh(C).min(), 0)
        b = 2.0 - 1 + 1.5
        for i, j in ((1, 0), (2, 0), (2, 1)):
            self.assertGreater(stats.kstest((C[:, i, j] + 1) / 2, stats.beta(b, b).cdf).pvalue, 1e-4)

    def test_f64(self):
        self.check("f64", 1e-10)

    def test_f32(self):
        self.check("f32", 2e-5)


class Matrices(E.E2ETestCase):
    """Wishart, InverseWishart and their Cholesky factors (MatrixFamilies.h)
    under every parameterization: draws by their marginal laws, log
    densities against scipy.stats.wishart / invwishart (a factor's adds the
    Jacobian of C -> C C^T)."""
    NU, M, N = 5.5, 4000, 40
    S = np.array([[2.0, 0.3, -0.4], [0.3, 1.0, 0.2], [-0.4, 0.2, 0.5]])
    L = np.linalg.cholesky(S)

    def source(self, ty):
        lit = lambda a: np.array2string(np.asarray(a), separator=", ", floatmode="unique",  # noqa: E731
                                        max_line_width=10 ** 6)
        S, L, R, nu = lit(self.S), lit(self.L), lit(np.linalg.inv(self.S)), self.NU
        calls = {"w": "Wishart(%r, scale_matrix=%s)" % (nu, S),
                 "wr": "Wishart(%r, rate_matrix=%s)" % (nu, R),
                 "wc": "WishartCholesky(%r, scale_tril=%s)" % (nu, L),
                 "iw": "InverseWishart(%r, scale_matrix=%s)" % (nu, S),
                 "ic": "InverseWishartCholesky(%r, rate_matrix=%s)" % (nu, R)}
        outs = ", ".join("y%s: %s[n, 3, 3]" % (k, ty) for k in calls)
        body = "".join("  %s ~ %s[%d];\n" % (k, c, self.M) for k, c in calls.items())
        obs = "".join("    y%s ~ %s;\n" % (k, c) for k, c in calls.items())
        return ("model m(x: %s[n]) -> (%s) {\n%s  plate obs(n) {\n%s  }\n}\n"
                % (ty, outs, body, obs))

    def values(self, rng):
        w = stats.wishart(df=self.NU, scale=self.S).rvs(self.N, random_state=rng)
        iw = stats.invwishart(df=self.NU, scale=self.S).rvs(self.N, random_state=rng)
        w[:3, 0, 1] += 0.5  # not symmetric: off the support
        iw[:5] = -iw[:5]  # not positive definite
        return w, iw

    def run_precision(self, ty):
        dtype = np.float64 if ty == "f64" else np.float32
        so = self.compile_source("matrices_" + ty, self.source(ty))
        x = self.save("x_%s.npy" % ty, np.zeros(self.N, dtype))
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, {"x": x}, out, num_samples=1, seed=3,
                  sites=["w", "wr", "wc", "iw", "ic"])
        draws = {k: v[0].astype(np.float64) for k, v in E.read_arrays(out).items()}
        rng = np.random.default_rng(11)
        w, iw = self.values(rng)
        w, iw = w.astype(dtype).astype(np.float64), iw.astype(dtype).astype(np.float64)
        good_w, good_iw = np.linalg.cholesky(w[3:]), np.linalg.cholesky(iw[5:])
        cw = np.concatenate([np.zeros((3, 3, 3)), good_w]); cw[:3] = np.triu(np.ones((3, 3)))
        ci = np.concatenate([np.zeros((5, 3, 3)), good_iw]); ci[:5] = np.eye(3); ci[:5, 0, 0] = -1
        data = {"x": x}
        for k, v in dict(yw=w, ywr=w, ywc=cw, yiw=iw, yic=ci).items():
            data[k] = self.save("%s_%s.npy" % (k, ty), v.astype(dtype))
        post = self.savez("post_%s.npz" % ty, **{k: np.zeros((1, self.M, 3, 3), dtype)
                                                 for k in ("w", "wr", "wc", "iw", "ic")})
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out, posterior=post)
        lls = {k: v[0] for k, v in E.read_arrays(out).items()}
        return draws, lls, dict(w=w, c=cw, iw=iw, ci=ci)

    def expected_log_densities(self, v):
        wish, inv = stats.wishart(df=self.NU, scale=self.S), stats.invwishart(df=self.NU, scale=self.S)

        def jac(c):
            d = np.log(np.diagonal(c, axis1=1, axis2=2))
            return 3 * np.log(2) + (d * (3 - np.arange(3))).sum(axis=1)
        want = {}
        w = v["w"]
        want["yw"] = np.concatenate([np.full(3, -np.inf), wish.logpdf(np.moveaxis(w[3:], 0, -1))])
        want["ywr"] = want["yw"]
        c = v["c"]
        want["ywc"] = np.concatenate([np.full(3, -np.inf),
                                      wish.logpdf(np.moveaxis(c[3:] @ np.swapaxes(c[3:], 1, 2), 0, -1))
                                      + jac(c[3:])])
        iw, ci = v["iw"], v["ci"]
        want["yiw"] = np.concatenate([np.full(5, -np.inf), inv.logpdf(np.moveaxis(iw[5:], 0, -1))])
        want["yic"] = np.concatenate([np.full(5, -np.inf),
                                      inv.logpdf(np.moveaxis(ci[5:] @ np.swapaxes(ci[5:], 1, 2), 0, -1))
                                      + jac(ci[5:])])
        return want

    def check_draws(self, d):
        u = np.array([1.0, -1.0, 2.0])
        for k in ("w", "wr", "wc", "iw", "ic"):
            m = d[k]
            if k in ("wc", "ic"):
                self.assertTrue(np.all(np.triu(m, 1) == 0), k)
                self.assertTrue(np.all(np.diagonal(m, axis1=1, axis2=2) > 0), k)
                m = m @ np.swapaxes(m, 1, 2)
            if k.startswith("i"):
                # X ~ InverseWishart(S, nu): X_00 ~ InvGamma((nu - 2) / 2, S_00 / 2), and
                # X^-1 ~ Wishart(S^-1, nu).
                law = stats.invgamma((self.NU - 2) / 2, scale=self.S[0, 0] / 2)
                self.assertGreater(stats.kstest(m[:, 0, 0], law.cdf).pvalue, 1e-4, k)
                m, scale = np.linalg.inv(m), np.linalg.inv(self.S)
            else:
                scale = self.S
            # u' W u / u' S u ~ chi2(nu) for W ~ Wishart(S, nu).
            q = np.einsum("i,nij,j->n", u, m, u) / (u @ scale @ u)
            self.assertGreater(stats.kstest(q, stats.chi2(self.NU).cdf).pvalue, 1e-4, k)

    def check(self, ty, tol):
        draws, lls, values = self.run_precision(ty)
        self.check_draws(draws)
        for k, want in self.expected_log_densities(values).items():
            np.testing.assert_allclose(lls[k], want, rtol=tol, err_msg=k)

    def test_f64(self):
        self.check("f64", 1e-10)

    def test_f32(self):
        self.check("f32", 2e-5)

    def test_past_the_scratch(self):
        """K = 20, past the 16 x 16 double scratch: the factor is formed in
        the value's own copy."""
        k, nu = 20, 25.0
        rng = np.random.default_rng(1)
        a = rng.normal(size=(k, k))
        s = a @ a.T / k + np.eye(k)
        w = stats.wishart(df=nu, scale=s).rvs(10, random_state=rng)
        c = np.linalg.cholesky(w)
        so = self.compile_source("matrices_20", (
            "model w(x: f64[n], S: f64[%d, %d]) -> (W: f64[n, %d, %d], C: f64[n, %d, %d]) {\n"
            "  z ~ Normal(0, 1);\n  plate obs(n) {\n"
            "    W ~ InverseWishart(%r, scale_matrix=S);\n"
            "    C ~ WishartCholesky(%r, rate_matrix=S);\n  }\n}\n") % (k, k, k, k, k, k, nu, nu))
        data = {"x": self.save("x20.npy", np.zeros(10)), "S": self.save("s20.npy", s),
                "W": self.save("w20.npy", w), "C": self.save("c20.npy", c)}
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out, posterior=self.savez("p20.npz", z=np.zeros(1)))
        got = E.read_arrays(out)
        np.testing.assert_allclose(
            got["W"][0], stats.invwishart(df=nu, scale=s).logpdf(np.moveaxis(w, 0, -1)), rtol=1e-12)
        jac = k * np.log(2) + (np.log(np.diagonal(c, axis1=1, axis2=2)) * (k - np.arange(k))).sum(1)
        want = stats.wishart(df=nu, scale=np.linalg.inv(s)).logpdf(np.moveaxis(w, 0, -1)) + jac
        np.testing.assert_allclose(got["C"][0], want, rtol=1e-11)


class Directions(E.E2ETestCase):
    """ProjectedNormal(concentration) in any dimension: the log density
    against the ray integral int_0^inf r^(K-1) N_K(r u | c, I) dr by
    quadrature (K = 4, 6, where NumPyro has only 2 and 3), and the draws'
    angle in 2 dimensions against the density's own CDF."""
    C2 = np.array([1.5, -0.5])

    def density(self, u, c):
        from scipy import integrate
        k, t = len(c), u @ c
        # N_K(r u | c, I) = exp(-(r - t)^2 / 2 - (|c|^2 - t^2) / 2) / (2 pi)^(K/2).
        f = lambda r: r ** (k - 1) * np.exp(-0.5 * (r - t) ** 2)  # noqa: E731
        peak = max(t, 0.0)
        val, _ = integrate.quad(f, 0, peak + 40, points=[peak] if peak > 0 else None,
                                epsabs=0, epsrel=1e-13, limit=500)
        return np.log(val) - 0.5 * (c @ c - t * t) - 0.5 * k * np.log(2 * np.pi)

    def check_log_prob(self, ty, k, tol):
        dtype = np.float64 if ty == "f64" else np.float32
        rng = np.random.default_rng(k)
        c = rng.normal(0, 1.5, (30, k))
        u = rng.normal(0, 1, (30, k))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        u[0] = c[0] / np.linalg.norm(c[0])  # along the mean: t = |c|
        u[1] = -u[0]  # against it: t = -|c|
        c[2] *= 8  # far from the origin: t large either way
        u = u.astype(dtype)
        u[3] *= 1.1  # off the sphere
        so = self.compile_source("dir_%s_%d" % (ty, k), (
            "model d(c: %s[n, %d]) -> (u: %s[n, %d]) {\n  z ~ Normal(0, 1);\n"
            "  plate obs(n) {\n    u ~ ProjectedNormal(c);\n  }\n}\n") % (ty, k, ty, k))
        data = {"c": self.save("c%s%d.npy" % (ty, k), c.astype(dtype)),
                "u": self.save("u%s%d.npy" % (ty, k), u)}
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out,
                  posterior=self.savez("p%s%d.npz" % (ty, k), z=np.zeros(1, dtype)))
        got = E.read_arrays(out)["u"][0]
        self.assertEqual(got[3], -np.inf)
        c64, u64 = c.astype(dtype).astype(np.float64), u.astype(np.float64)
        want = np.array([self.density(u64[i], c64[i]) for i in range(30) if i != 3])
        np.testing.assert_allclose(np.delete(got, 3), want, rtol=tol)

    def test_log_prob_f64(self):
        for k in (4, 6):
            self.check_log_prob("f64", k, 1e-9)

    def test_log_prob_f32(self):
        self.check_log_prob("f32", 4, 1e-5)

    def test_draws_2d(self):
        so = self.compile_source("dir_draws", (
            "model d(x: f64[n]) -> (y: f64[n]) {\n  u ~ ProjectedNormal(%s)[4000];\n"
            "  plate obs(n) {\n    y ~ Normal(0, 1);\n  }\n}\n")
            % np.array2string(self.C2, separator=", "))
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, {"x": self.save("x.npy", np.zeros(3))}, out,
                  num_samples=1, seed=4, sites=["u"])
        u = E.read_arrays(out)["u"][0]
        np.testing.assert_allclose(np.linalg.norm(u, axis=1), 1, rtol=1e-12)
        theta = np.arctan2(u[:, 1], u[:, 0])
        grid = np.linspace(-np.pi, np.pi, 4001)
        dens = np.exp([self.density(np.array([np.cos(a), np.sin(a)]), self.C2) for a in grid])
        cdf = np.concatenate([[0], np.cumsum((dens[1:] + dens[:-1]) / 2 * np.diff(grid))])
        self.assertAlmostEqual(cdf[-1], 1, places=6)
        self.assertGreater(stats.kstest(theta, lambda a: np.interp(a, grid, cdf)).pvalue, 1e-4)

class Copulas(E.E2ETestCase):
    """GaussianCopula over a Weibull, a Student t and a folded normal
    marginal and GaussianCopulaBeta: log densities against SciPy (marginal log densities
    plus log N(q | 0, R) - sum log N(q_i | 0, 1), q the normal scores taken
    from the smaller tail) at both precisions; draws by their marginals
    (KS) and the normal scores' correlation."""
    R = np.array([[1.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 1.0]])
    M, N = 4000, 40
    CALLS = {
        "w": ("GaussianCopula(Weibull(%s, 1.7), correlation_matrix=%s)",
              lambda: stats.weibull_min(1.7, scale=np.array([1.0, 2.0, 0.5]))),
        "t": ("GaussianCopula(StudentT(4.0, %s, 2.0), correlation_cholesky=cholesky(%s))",
              lambda: stats.t(4.0, np.array([1.0, 2.0, 0.5]), 2.0)),
        "b": ("GaussianCopulaBeta(%s, 2.5, correlation_matrix=%s)",
              lambda: stats.beta(np.array([1.0, 2.0, 0.5]), 2.5)),
        # A folded marginal (Folded.h's CDF; SciPy's foldnorm is |N(c s, s)|).
        "f": ("GaussianCopula(FoldedDistribution(Normal(%s, 1.5)), correlation_matrix=%s)",
              lambda: stats.foldnorm(np.array([1.0, 2.0, 0.5]) / 1.5, scale=1.5)),
    }

    def source(self, ty):
        lit = lambda a: np.array2string(np.asarray(a), separator=", ").replace("\n", "")  # noqa: E731
        v, r = lit([1.0, 2.0, 0.5]), lit(self.R)
        calls = {k: c % (v, r) for k, (c, _) in self.CALLS.items()}
        outs = ", ".join("y%s: %s[n, 3]" % (k, ty) for k in calls)
        body = "".join("  %s ~ %s[%d];\n" % (k, c, self.M) for k, c in calls.items())
        obs = "".join("    y%s ~ %s;\n" % (k, c) for k, c in calls.items())
        return "model c(x: %s[n]) -> (%s) {\n%s  plate obs(n) {\n%s  }\n}\n" % (ty, outs, body, obs)

    @staticmethod
    def scores(f, x):
        lc, ls = f.logcdf(x), f.logsf(x)
        return np.where(lc < ls, stats.norm.ppf(np.exp(lc)), stats.norm.isf(np.exp(ls)))

    def expected(self, f, x):
        q = self.scores(f, x)
        return (f.logpdf(x).sum(axis=1) + stats.multivariate_normal(np.zeros(3), self.R).logpdf(q)
                - stats.norm.logpdf(q).sum(axis=1))

    def check(self, ty, tol):
        dtype = np.float64 if ty == "f64" else np.float32
        so = self.compile_source("copulas_" + ty, self.source(ty))
        x = self.save("x_%s.npy" % ty, np.zeros(self.N, dtype))
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, {"x": x}, out, num_samples=1, seed=9, sites=list(self.CALLS))
        draws = {k: v[0].astype(np.float64) for k, v in E.read_arrays(out).items()}
        rng = np.random.default_rng(3)
        data, values = {"x": x}, {}
        for k, (_, make) in self.CALLS.items():
            f = make()
            u = stats.norm.cdf(rng.multivariate_normal(np.zeros(3), self.R, self.N))
            v = f.ppf(u).astype(dtype)
            values[k] = v.astype(np.float64)
            data["y" + k] = self.save("y%s_%s.npy" % (k, ty), v)
            # Draws: each marginal's law, and the normal scores' correlation.
            for i in range(3):
                v_i = [1.0, 2.0, 0.5][i]
                m = stats.weibull_min(1.7, scale=v_i) if k == "w" else \
                    stats.t(4.0, v_i, 2.0) if k == "t" else \
                    stats.foldnorm(v_i / 1.5, scale=1.5) if k == "f" else stats.beta(v_i, 2.5)
                self.assertGreater(stats.kstest(draws[k][:, i], m.cdf).pvalue, 1e-4, (k, i))
            c = np.corrcoef(self.scores(f, draws[k]).T)
            np.testing.assert_allclose(c, self.R, atol=0.05, err_msg=k)
        out = self.fresh(".npz")
        post = self.savez("post_%s.npz" % ty, **{k: np.zeros((1, self.M, 3), dtype) for k in self.CALLS})
        E.run_cmd("log-likelihood", so, data, out, posterior=post)
        got = E.read_arrays(out)
        for k, (_, make) in self.CALLS.items():
            np.testing.assert_allclose(got["y" + k][0], self.expected(make(), values[k]),
                                       rtol=tol, atol=tol, err_msg=k)

    def test_f64(self):
        self.check("f64", 1e-9)

    def test_f32(self):
        self.check("f32", 2e-5)


class SineSkewedTorus(E.E2ETestCase):
    """SineSkewed(VonMises(loc, k), skewness) on the 3-torus against SciPy
    (prod vonmises.pdf times 1 + sum s_i sin(x_i - loc_i)); draws on the
    circle against the skewed density's CDF; a skewness outside the l1 ball
    is NaN."""
    LOC, K, S = [0.5, -2.0, 3.0], [2.0, 0.7, 6.0], [0.5, -0.2, 0.25]

    def test_log_density_and_draws(self):
        lit = lambda a: np.array2string(np.asarray(a), separator=", ")  # noqa: E731
        src = ("model t(bad: f64, x: f64[n]) -> (y: f64[n, 3]) {\n"
               "  c ~ SineSkewed(VonMises(0.5, 2.0), [0.6])[4000];\n"
               "  plate obs(n) {\n    y ~ SineSkewed(VonMises(%s, %s), %s);\n  }\n"
               "  deterministic nan = log_prob(SineSkewed(VonMises(%s, %s), [bad, 0.5, 0.0]),"
               " [0.0, 0.0, 0.0]);\n}\n") % (lit(self.LOC), lit(self.K), lit(self.S),
                                              lit(self.LOC), lit(self.K))
        so = self.compile_source("sineskewed", src)
        rng = np.random.default_rng(8)
        y = rng.uniform(-np.pi, np.pi, (50, 3))
        y[0, 1] = np.inf  # not an angle
        data = {"bad": self.save("bad.npy", np.array(0.7)), "x": self.save("x.npy", y[:, 0]),
                "y": self.save("y.npy", y)}
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out,
                  posterior=self.savez("p.npz", c=np.zeros((1, 4000, 1))))
        got = E.read_arrays(out)["y"][0]
        loc, k, s = map(np.array, (self.LOC, self.K, self.S))
        with np.errstate(invalid="ignore"):
            want = (stats.vonmises(k, loc=loc).logpdf(y).sum(axis=1)
                    + np.log1p((s * np.sin(y - loc)).sum(axis=1)))
        want[0] = -np.inf
        np.testing.assert_allclose(got, want, rtol=1e-11)
        out = self.fresh(".npz")
        del data["y"]
        E.run_cmd("prior-predictive", so, data, out, num_samples=1, seed=2, sites=["c", "nan"])
        got = E.read_arrays(out)
        self.assertTrue(np.isnan(got["nan"][0]))  # |0.7| + |0.5| > 1
        c = got["c"][0][:, 0]
        self.assertTrue(np.all((c >= -np.pi) & (c < np.pi)))
        grid = np.linspace(-np.pi, np.pi, 4001)
        dens = stats.vonmises(2.0, loc=0.5).pdf(grid) * (1 + 0.6 * np.sin(grid - 0.5))
        cdf = np.concatenate([[0], np.cumsum((dens[1:] + dens[:-1]) / 2 * np.diff(grid))])
        self.assertAlmostEqual(cdf[-1], 1, places=6)
        self.assertGreater(stats.kstest(c, lambda a: np.interp(a, grid, cdf)).pvalue, 1e-4)


class LargeLKJ(E.E2ETestCase):
    """LKJ's density past its 16 x 16 double scratch (the factor kept in
    the value's copy): (eta - 1) log det C less the normalizer, against
    NumPy's slogdet and SciPy's gammaln."""
    K, ETA = 18, 1.5

    def test_log_likelihood(self):
        so = self.compile_source("lkj18", (
            "model lkj18(x: f64[n]) -> (C: f64[n, %d, %d]) {\n  dummy ~ Normal(0, 1);\n"
            "  plate obs(n) { C ~ LKJ(%d, %r); }\n}\n" % (self.K, self.K, self.K, self.ETA)))
        rng = np.random.default_rng(2)
        A = rng.normal(size=(30, self.K, self.K + 5))
        S = A @ np.swapaxes(A, 1, 2)
        d = np.sqrt(np.einsum("nii->ni", S))
        C = S / d[:, :, None] / d[:, None, :]
        C[3, 0, 1] += 0.01  # not symmetric: off the support
        data = {"x": self.save("x.npy", np.zeros(30)), "C": self.save("C.npy", C)}
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out,
                  posterior=self.savez("post.npz", dummy=np.zeros(1)))
        got = E.read_arrays(out)["C"][0]
        K, eta = self.K, self.ETA
        dm1, alpha = K - 1, eta + 0.5 * (K - 1)
        multigamma = 0.25 * dm1 * (dm1 - 1) * np.log(np.pi) + sum(
            special.gammaln(alpha - 0.5 + 0.5 * (1 - j)) for j in range(1, K))
        norm = 0.5 * dm1 * np.log(np.pi) + multigamma - dm1 * special.gammaln(alpha)
        want = (eta - 1) * np.linalg.slogdet(C)[1] - norm
        want[3] = -np.inf
        np.testing.assert_allclose(got, want, rtol=1e-9)


class PublishedModels(E.E2ETestCase):
    """Published models that use the new families, line by line, against
    SciPy on a posterior, with predict's draws checked by their PIT:

    - brms' ex-Gaussian reaction-time regression (`family = exgaussian()`:
      its Stan code scores `exp_mod_normal_lpdf(Y | mu - beta, sigma,
      inv(beta))`, mu the mean, beta the exponential's mean);
    - brms' von Mises regression (`family = von_mises()`, the tan_half link
      `mu = 2 * atan(eta)`);
    - a Gompertz survival regression with right censoring (rstanarm's
      `stan_surv(basehaz = "gompertz")` family in NumPyro's
      parameterization), scored by the density or the survival function.
    """
    N, D = 300, 12
    EXGAUSS = """
model rt(x: f64[n]) -> (Y: f64[n]) {
  Intercept ~ Normal(6, 1);
  b ~ Normal(0, 0.5);
  sigma ~ HalfNormal(1);
  beta ~ HalfNormal(1);
  plate obs(n) {
    let mu = Intercept + b * x;
    Y ~ ExGaussian(mu - beta, sigma, nu=beta);
  }
}
"""
    VONMISES = """
model circ(x: f64[n]) -> (Y: f64[n]) {
  Intercept ~ Normal(0, 1);
  b ~ Normal(0, 1);
  kappa ~ Gamma(2, 0.1);
  plate obs(n) {
    Y ~ VonMises(2 * arctan(Intercept + b * x), kappa);
  }
}
"""
    GOMPERTZ = """
model surv(x: f64[n], cens: i32[n]) -> (t: f64[n]) {
  alpha ~ Normal(-1, 1);
  beta ~ Normal(0, 0.5);
  shape ~ HalfNormal(1);
  plate obs(n) {
    t ~ RightCensoredDistribution(Gompertz(exp(alpha + beta * x), shape), censored=cens);
  }
}
"""

    def setUp(self):
        super().setUp()
        self.rng = np.random.default_rng(17)
        self.x = self.rng.normal(size=self.N)

    def run_model(self, name, src, post, data, y):
        so = self.compile_source(name, src)
        pp = self.savez(name + "_post.npz", **post)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, dict(data, **y), out, posterior=pp)
        ll = E.read_arrays(out)[list(y)[0]]
        pred, pred2 = self.fresh(".npz"), self.fresh(".npz")
        E.run_cmd("predict", so, data, pred, posterior=pp, seed=9)
        E.run_cmd("predict", so, data, pred2, posterior=pp, seed=9, devices=2, batch=7)
        a, b = E.read_arrays(pred), E.read_arrays(pred2)
        self.assert_same_arrays(a, b)
        return ll, a[list(y)[0]]

    def test_exgaussian_reaction_times(self):
        post = dict(Intercept=self.rng.normal(6, 0.1, self.D), b=self.rng.normal(0.3, 0.05, self.D),
                    sigma=self.rng.uniform(0.2, 0.6, self.D), beta=self.rng.uniform(0.1, 1.5, self.D))
        Y = 6 + 0.3 * self.x + self.rng.exponential(0.5, self.N) + self.rng.normal(0, 0.4, self.N)
        data = {"x": self.save("rt_x.npy", self.x)}
        ll, draws = self.run_model("rt", self.EXGAUSS, post, data, {"Y": self.save("rt_y.npy", Y)})
        mu = post["Intercept"][:, None] + post["b"][:, None] * self.x
        s, nu = post["sigma"][:, None], post["beta"][:, None]
        f = stats.exponnorm(nu / s, loc=mu - nu, scale=s)
        np.testing.assert_allclose(ll, f.logpdf(Y), rtol=1e-10)
        self.assertGreater(stats.kstest(f.cdf(draws).ravel(), "uniform").pvalue, 1e-4)

    def test_von_mises_regression(self):
        post = dict(Intercept=self.rng.normal(0.2, 0.1, self.D), b=self.rng.normal(0.8, 0.1, self.D),
                    kappa=self.rng.uniform(2, 20, self.D))
        Y = np.mod(2 * np.arctan(0.2 + 0.8 * self.x) + self.rng.vonmises(0, 8, self.N) + np.pi,
                   2 * np.pi) - np.pi
        data = {"x": self.save("vm_x.npy", self.x)}
        ll, draws = self.run_model("circ", self.VONMISES, post, data, {"Y": self.save("vm_y.npy", Y)})
        mu = 2 * np.arctan(post["Intercept"][:, None] + post["b"][:, None] * self.x)
        k = post["kappa"][:, None]
        np.testing.assert_allclose(ll, stats.vonmises.logpdf(Y, k, loc=mu), rtol=1e-10)
        r = np.mod(draws - mu + np.pi, 2 * np.pi) - np.pi
        u = stats.vonmises.cdf(r, k)
        self.assertGreater(stats.kstest(u.ravel(), "uniform").pvalue, 1e-4)

    def test_gompertz_survival(self):
        post = dict(alpha=self.rng.normal(-1, 0.1, self.D), beta=self.rng.normal(0.4, 0.05, self.D),
                    shape=self.rng.uniform(0.5, 1.5, self.D))
        cens = (self.rng.uniform(size=self.N) < 0.3).astype(np.int32)
        t = stats.gompertz.rvs(0.4, scale=1.0, size=self.N, random_state=self.rng)
        data = {"x": self.save("g_x.npy", self.x), "cens": self.save("g_c.npy", cens)}
        ll, draws = self.run_model("surv", self.GOMPERTZ, post, data, {"t": self.save("g_t.npy", t)})
        c = np.exp(post["alpha"][:, None] + post["beta"][:, None] * self.x)
        rate = post["shape"][:, None]
        f = stats.gompertz(c, scale=1 / rate)
        np.testing.assert_allclose(ll, np.where(cens == 1, f.logsf(t), f.logpdf(t)), rtol=1e-10)
        self.assertGreater(stats.kstest(f.cdf(draws).ravel(), "uniform").pvalue, 1e-4)


class PyMCSpellings(E.E2ETestCase):
    """PyMC's keyword names for NumPyro's classes (VonMises(mu, kappa),
    DiscreteUniform(lower, upper)) mean the same distribution."""

    def test_same_draws_as_numpyro_names(self):
        src = ("model s(x: f64[n]) -> (y: f64[n]) {\n"
               "  a ~ VonMises(mu=0.5, kappa=2.0)[50];\n"
               "  b ~ VonMises(loc=0.5, concentration=2.0)[50];\n"
               "  c ~ DiscreteUniform(lower=1, upper=6)[50];\n"
               "  d ~ DiscreteUniform(low=1, high=6)[50];\n"
               "  plate obs(n) { y ~ Normal(x, 1); }\n}\n")
        so = self.compile_source("spellings", src)
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, {"x": self.save("x.npy", np.zeros(2))}, out,
                  num_samples=2, seed=3, sites=["a", "b", "c", "d"])
        got = E.read_arrays(out)
        # Different sites draw different streams: same distribution, so
        # compare their support and a loose moment instead of the bits.
        self.assertTrue(((got["c"] >= 1) & (got["c"] <= 6)).all())
        self.assertTrue(((got["d"] >= 1) & (got["d"] <= 6)).all())
        for s in ("a", "b"):
            self.assertLess(abs(np.angle(np.exp(1j * got[s]).mean()) - 0.5), 0.3)


class PointMass(E.E2ETestCase):
    """NumPyro's Delta: draws v exactly (a latent and an output), scores
    log_density at v and -inf elsewhere, the same bytes on two devices."""

    SRC = """model dl(x: f64[n]) -> (y: f64[n]) {
  mu ~ Normal(0, 1);
  d ~ Delta(mu * 2, -1.5);
  plate obs(n) {
    y ~ Delta(x + d, log_density=-0.25);
  }
}
"""

    def test_draws_and_scores(self):
        so = self.compile_source("delta", self.SRC)
        x = np.arange(6.0)
        data = {"x": self.save("x.npy", x)}
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, data, out, num_samples=4, seed=2,
                  sites=["mu", "d", "y"])
        got = E.read_arrays(out)
        np.testing.assert_array_equal(got["d"], got["mu"] * 2)
        np.testing.assert_array_equal(got["y"], x[None, :] + got["d"][:, None])
        post = self.savez("post.npz", mu=np.array([0.25, 1.0]),
                          d=np.array([1.0, 2.5]))
        y = np.array([1.0, 2.0, 0.0, 4.0, 3.5, 7.5])
        lls = []
        for devices in (1, 2):
            out = self.fresh(".npz")
            E.run_cmd("log-likelihood", so, dict(data, y=self.save("y.npy", y)),
                      out, posterior=post, devices=devices)
            lls.append(E.read_arrays(out)["y"])
        np.testing.assert_array_equal(lls[0], lls[1])
        want = np.where(y[None, :] == x[None, :] + np.array([1.0, 2.5])[:, None],
                        -0.25, -np.inf)
        np.testing.assert_array_equal(lls[0], want)


if __name__ == "__main__":
    E.main()
