#!/usr/bin/python3
"""Generate the log-density test models and their scipy reference table.

Run with Debian's interpreter (it has python3-scipy and numpy):

    /usr/bin/python3 test/unit/models/make_reference.py

It writes
  * models/dist_<variant>_<f32|f64>.aimz: one tiny model per distribution
    variant and precision whose output site uses that distribution, with
    every parameter given as an input of the observation plate;
  * models/latent_*.aimz: models whose parameters are latents (given through
    the posterior), global or observation-aligned;
  * logdensity_reference.inc: (model, parameters, observation, expected log
    density) rows computed with scipy.stats / scipy.special in double
    precision.

Every value is also computed with mpmath at 50 digits from the same
formulas' definitions; the two must agree to 1e-9 relative (so the scipy
parameter mapping is right), and where scipy's double-precision formula
loses more than 1e-14 relative to cancellation (StudentT with a huge df,
binomial coefficients of large counts) the row keeps the mpmath value: an
f64 model is held to 1e-12, tighter than scipy is there.  Those rows are
printed.

For f32 models every parameter and observation is rounded to float32 first,
so the C++ test feeds exactly the values scipy saw.  Out-of-support
observations are included and expect -inf.  Points whose log density is
within 0.05 of zero are left out of the continuous f32 tables: a relative
tolerance means nothing there (the terms of the density cancel), while the
same points are kept in f64 at a larger magnitude elsewhere.  The test needs
neither Python nor scipy at run time.
"""

import math
import os

import numpy as np
import mpmath as mp
import scipy
import scipy.special as sc
import scipy.stats as st

HERE = os.path.dirname(os.path.abspath(__file__))
INF = math.inf


def f32(v):
    return float(np.float32(v))


# ----------------------------------------------------------------- references
def ref_normal(x, loc, scale):
    return st.norm.logpdf(x, loc, scale)


def ref_halfnormal(x, scale):
    return st.halfnorm.logpdf(x, scale=scale)


def ref_lognormal(x, loc, scale):
    return st.lognorm.logpdf(x, s=scale, scale=math.exp(loc))


def ref_exponential(x, rate):
    return st.expon.logpdf(x, scale=1.0 / rate)


def ref_gamma(x, conc, rate):
    return st.gamma.logpdf(x, a=conc, scale=1.0 / rate)


def ref_beta(x, c1, c0):
    return st.beta.logpdf(x, c1, c0)


def ref_uniform(x, low, high):
    return st.uniform.logpdf(x, loc=low, scale=high - low)


def ref_cauchy(x, loc, scale):
    return st.cauchy.logpdf(x, loc, scale)


def ref_halfcauchy(x, scale):
    return st.halfcauchy.logpdf(x, scale=scale)


def ref_studentt(x, df, loc, scale):
    return st.t.logpdf(x, df, loc, scale)


def ref_bernoulli_probs(x, p):
    return st.bernoulli.logpmf(x, p)


def ref_bernoulli_logits(x, logit):
    # log sigmoid(+-l) straight from scipy.special, exact for large |l|
    # where 1 - expit(l) would round to 0.
    if x == 1:
        return sc.log_expit(logit)
    if x == 0:
        return sc.log_expit(-logit)
    return -INF


def ref_binomial_probs(x, n, p):
    return st.binom.logpmf(x, n, p)


def ref_binomial_logits(x, n, logit):
    if x < 0 or x > n:
        return -INF
    lchoose = sc.gammaln(n + 1) - sc.gammaln(x + 1) - sc.gammaln(n - x + 1)
    v = lchoose + x * sc.log_expit(logit) + (n - x) * sc.log_expit(-logit)
    # Cross-check against the probs form where that is accurate.
    if abs(logit) < 10:
        alt = st.binom.logpmf(x, n, sc.expit(logit))
        assert abs(alt - v) <= 1e-12 * max(1.0, abs(v)), (x, n, logit, v, alt)
    return v


def ref_poisson(x, rate):
    return st.poisson.logpmf(x, rate)


def ref_laplace(x, loc, scale):
    return st.laplace.logpdf(x, loc, scale)


def ref_logistic(x, loc, scale):
    return st.logistic.logpdf(x, loc, scale)


def ref_gumbel(x, loc, scale):
    return st.gumbel_r.logpdf(x, loc, scale)


def ref_inversegamma(x, conc, rate):
    return st.invgamma.logpdf(x, conc, scale=rate)


def ref_pareto(x, scale, alpha):
    return st.pareto.logpdf(x, alpha, scale=scale)


def ref_weibull(x, scale, conc):
    return st.weibull_min.logpdf(x, conc, scale=scale)


def ref_negativebinomial2(x, mean, conc):
    return st.nbinom.logpmf(x, conc, conc / (conc + mean))


def ref_zeroinflatedpoisson_gate_logits(x, rate, g):
    gate = sc.expit(g)
    base = st.poisson.logpmf(x, rate)
    return np.logaddexp(np.log(gate), np.log1p(-gate) + base) if x == 0 else np.log1p(-gate) + base


def ref_betabinomial(x, c1, c0, n):
    return st.betabinom.logpmf(x, n, c1, c0)


def ref_gammapoisson(x, conc, rate):
    return st.nbinom.logpmf(x, conc, rate / (1 + rate))


def ref_negativebinomialprobs(x, n, p):
    return st.nbinom.logpmf(x, n, 1 - p)


def ref_negativebinomiallogits(x, n, l):
    return st.nbinom.logpmf(x, n, sc.expit(-l))


def _zi(x, gate, base):
    return np.logaddexp(np.log(gate), np.log1p(-gate) + base) if x == 0 else np.log1p(-gate) + base


def ref_zeroinflatedpoisson_gate(x, gate, rate):
    return _zi(x, gate, st.poisson.logpmf(x, rate))


def ref_zeroinflatednegativebinomial2_gate(x, mean, conc, gate):
    return _zi(x, gate, st.nbinom.logpmf(x, conc, conc / (conc + mean)))


def ref_zeroinflatednegativebinomial2_gate_logits(x, mean, conc, g):
    return _zi(x, sc.expit(g), st.nbinom.logpmf(x, conc, conc / (conc + mean)))


def _hurdle(x, gate, base):
    return np.log(gate) if x == 0 else np.log1p(-gate) + base


def ref_hurdlepoisson(x, gate, rate):
    return _hurdle(x, gate, st.poisson.logpmf(x, rate) - np.log(-np.expm1(-rate)))


def ref_hurdlenegativebinomial2(x, gate, mean, conc):
    p = conc / (conc + mean)
    return _hurdle(x, gate, st.nbinom.logpmf(x, conc, p) - np.log(-np.expm1(conc * np.log(p))))


def ref_hurdlegamma(x, gate, conc, rate):
    return _hurdle(x, gate, st.gamma.logpdf(x, conc, scale=1.0 / rate))


def ref_hurdlelognormal(x, gate, loc, scale):
    return _hurdle(x, gate, st.lognorm.logpdf(x, s=scale, scale=math.exp(loc)))


def _trunc(frozen, x, low, high):
    if not (low <= x <= high):
        return -np.inf
    return frozen.logpdf(x) - np.log(frozen.cdf(high) - frozen.cdf(low))


def ref_truncated_gamma(x, conc, rate, low, high):
    return _trunc(st.gamma(conc, scale=1.0 / rate), x, low, high)


def ref_truncated_lognormal(x, loc, scale, low, high):
    return _trunc(st.lognorm(scale, scale=math.exp(loc)), x, low, high)


def ref_truncated_exponential(x, rate, low, high):
    return _trunc(st.expon(scale=1.0 / rate), x, low, high)


def ref_truncatednormal(x, loc, scale, low, high):
    return st.truncnorm.logpdf(x, (low - loc) / scale, (high - loc) / scale, loc, scale)


# ------------------------------------------------- mpmath (50 digits) forms
mp.mp.dps = 50
MINF = -INF


def _f(v):
    return float(v)


def hp_normal(x, loc, scale):
    z = (mp.mpf(x) - loc) / scale
    return _f(-z * z / 2 - mp.log(scale) - mp.log(2 * mp.pi) / 2)


def hp_halfnormal(x, scale):
    if x < 0:
        return MINF
    z = mp.mpf(x) / scale
    return _f(-z * z / 2 - mp.log(scale) + mp.log(2 / mp.pi) / 2)


def hp_lognormal(x, loc, scale):
    if x <= 0:
        return MINF
    z = (mp.log(x) - loc) / scale
    return _f(-z * z / 2 - mp.log(scale) - mp.log(x) - mp.log(2 * mp.pi) / 2)


def hp_exponential(x, rate):
    if x < 0:
        return MINF
    return _f(mp.log(rate) - rate * mp.mpf(x))


def hp_gamma(x, conc, rate):
    if x <= 0:
        return MINF if x < 0 or conc > 1 else _f(mp.log(rate)) if conc == 1 \
            else INF
    return _f(conc * mp.log(rate) + (conc - 1) * mp.log(x) - rate * mp.mpf(x)
              - mp.loggamma(conc))


def hp_beta(x, c1, c0):
    if x < 0 or x > 1:
        return MINF
    return _f((c1 - 1) * mp.log(x) + (c0 - 1) * mp.log(1 - mp.mpf(x))
              - mp.log(mp.beta(c1, c0)))


def hp_uniform(x, low, high):
    if x < low or x > high:
        return MINF
    return _f(-mp.log(mp.mpf(high) - low))


def hp_cauchy(x, loc, scale):
    z = (mp.mpf(x) - loc) / scale
    return _f(-mp.log(mp.pi * scale * (1 + z * z)))


def hp_halfcauchy(x, scale):
    if x < 0:
        return MINF
    z = mp.mpf(x) / scale
    return _f(mp.log(2 / (mp.pi * scale * (1 + z * z))))


def hp_studentt(x, df, loc, scale):
    df = mp.mpf(df)
    z = (mp.mpf(x) - loc) / scale
    return _f(mp.loggamma((df + 1) / 2) - mp.loggamma(df / 2)
              - mp.log(df * mp.pi) / 2 - mp.log(scale)
              - (df + 1) / 2 * mp.log(1 + z * z / df))


def _sig(l):
    return 1 / (1 + mp.exp(-mp.mpf(l)))


def hp_bernoulli_probs(x, p):
    if x not in (0, 1):
        return MINF
    return _f(mp.log(p) if x == 1 else mp.log(1 - mp.mpf(p)))


def hp_bernoulli_logits(x, logit):
    if x not in (0, 1):
        return MINF
    return _f(mp.log(_sig(logit if x == 1 else -logit)))


def _lchoose(n, k):
    return mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)


def hp_binomial_probs(x, n, p):
    if x < 0 or x > n:
        return MINF
    return _f(_lchoose(n, x) + x * mp.log(p) + (n - x) * mp.log(1 - mp.mpf(p)))


def hp_binomial_logits(x, n, logit):
    if x < 0 or x > n:
        return MINF
    return _f(_lchoose(n, x) + x * mp.log(_sig(logit))
              + (n - x) * mp.log(_sig(-logit)))


def hp_poisson(x, rate):
    if x < 0:
        return MINF
    return _f(x * mp.log(rate) - rate - mp.loggamma(x + 1))


def hp_laplace(x, loc, scale):
    return _f(-mp.log(2 * mp.mpf(scale)) - abs(mp.mpf(x) - loc) / scale)


def hp_logistic(x, loc, scale):
    z = (mp.mpf(x) - loc) / scale
    return _f(-z - 2 * mp.log1p(mp.exp(-z)) - mp.log(scale))


def hp_gumbel(x, loc, scale):
    z = (mp.mpf(x) - loc) / scale
    return _f(-(z + mp.exp(-z)) - mp.log(scale))


def hp_inversegamma(x, conc, rate):
    if x <= 0:
        return MINF
    a, b, xx = mp.mpf(conc), mp.mpf(rate), mp.mpf(x)
    return _f(a * mp.log(b) - mp.loggamma(a) - (a + 1) * mp.log(xx) - b / xx)


def hp_pareto(x, scale, alpha):
    if x < scale:
        return MINF
    a, sc_, xx = mp.mpf(alpha), mp.mpf(scale), mp.mpf(x)
    return _f(mp.log(a) + a * mp.log(sc_) - (a + 1) * mp.log(xx))


def hp_weibull(x, scale, conc):
    if x < 0:
        return MINF
    k, lam, xx = mp.mpf(conc), mp.mpf(scale), mp.mpf(x)
    z = xx / lam
    return _f(mp.log(k / lam) + (k - 1) * mp.log(z) - z ** k)


def _hp_nb(k, a, lp0, lp1):
    k, a = mp.mpf(k), mp.mpf(a)
    return mp.loggamma(k + a) - mp.loggamma(a) - mp.loggamma(k + 1) + a * lp0 + k * lp1


def hp_negativebinomial2(x, mean, conc):
    if x < 0:
        return MINF
    m, c = mp.mpf(mean), mp.mpf(conc)
    return _f(_hp_nb(x, c, mp.log(c / (c + m)), mp.log(m / (c + m))))


def hp_zeroinflatedpoisson_gate_logits(x, rate, g):
    if x < 0:
        return MINF
    g = mp.mpf(g)
    lgate, lkeep = -mp.log1p(mp.exp(-g)), -mp.log1p(mp.exp(g))
    r = mp.mpf(rate)
    base = x * mp.log(r) - r - mp.loggamma(x + 1)
    if x == 0:
        return _f(mp.log(mp.exp(lgate) + mp.exp(lkeep + base)))
    return _f(lkeep + base)


def hp_betabinomial(x, c1, c0, n):
    if x < 0 or x > n:
        return MINF
    a, b, k, n = mp.mpf(c1), mp.mpf(c0), mp.mpf(x), mp.mpf(n)
    lbeta = lambda p, q: mp.loggamma(p) + mp.loggamma(q) - mp.loggamma(p + q)  # noqa: E731
    return _f(mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1) + lbeta(k + a, n - k + b)
              - lbeta(a, b))


def hp_gammapoisson(x, conc, rate):
    if x < 0:
        return MINF
    r = mp.mpf(rate)
    return _f(_hp_nb(x, conc, mp.log(r / (1 + r)), -mp.log1p(r)))


def hp_negativebinomialprobs(x, n, p):
    if x < 0:
        return MINF
    p = mp.mpf(p)
    return _f(_hp_nb(x, n, mp.log1p(-p), mp.log(p)))


def hp_negativebinomiallogits(x, n, l):
    if x < 0:
        return MINF
    l = mp.mpf(l)
    return _f(_hp_nb(x, n, -mp.log1p(mp.exp(l)), -mp.log1p(mp.exp(-l))))


def _hp_zi(x, lgate, lkeep, base):
    if x == 0:
        return _f(mp.log(mp.exp(lgate) + mp.exp(lkeep + base)))
    return _f(lkeep + base)


def hp_zeroinflatedpoisson_gate(x, gate, rate):
    if x < 0:
        return MINF
    r, g = mp.mpf(rate), mp.mpf(gate)
    return _hp_zi(x, mp.log(g), mp.log1p(-g), x * mp.log(r) - r - mp.loggamma(x + 1))


def _hp_nb2(x, mean, conc):
    m, c = mp.mpf(mean), mp.mpf(conc)
    return _hp_nb(x, c, mp.log(c / (c + m)), mp.log(m / (c + m)))


def hp_zeroinflatednegativebinomial2_gate(x, mean, conc, gate):
    if x < 0:
        return MINF
    g = mp.mpf(gate)
    return _hp_zi(x, mp.log(g), mp.log1p(-g), _hp_nb2(x, mean, conc))


def hp_zeroinflatednegativebinomial2_gate_logits(x, mean, conc, gl):
    if x < 0:
        return MINF
    g = mp.mpf(gl)
    return _hp_zi(x, -mp.log1p(mp.exp(-g)), -mp.log1p(mp.exp(g)), _hp_nb2(x, mean, conc))


def hp_truncatednormal(x, loc, scale, low, high):
    if x < low or x > high:
        return MINF
    m, sd = mp.mpf(loc), mp.mpf(scale)
    z = (mp.mpf(x) - m) / sd
    mass = mp.ncdf((mp.mpf(high) - m) / sd) - mp.ncdf((mp.mpf(low) - m) / sd)
    return _f(-z * z / 2 - mp.log(sd) - mp.log(2 * mp.pi) / 2 - mp.log(mass))


def _hp_hurdle(x, gate, base):
    g = mp.mpf(gate)
    return _f(mp.log(g)) if x == 0 else _f(mp.log1p(-g) + base)


def hp_hurdlepoisson(x, gate, rate):
    if x < 0:
        return MINF
    r = mp.mpf(rate)
    return _hp_hurdle(x, gate, x * mp.log(r) - r - mp.loggamma(x + 1) - mp.log(-mp.expm1(-r)))


def hp_hurdlenegativebinomial2(x, gate, mean, conc):
    if x < 0:
        return MINF
    m, c = mp.mpf(mean), mp.mpf(conc)
    p0 = mp.exp(c * mp.log(c / (c + m)))
    return _hp_hurdle(x, gate, _hp_nb2(x, mean, conc) - mp.log(1 - p0))


def hp_hurdlegamma(x, gate, conc, rate):
    if x < 0:
        return MINF
    if x == 0:
        return _hp_hurdle(x, gate, 0)
    a, r, xx = mp.mpf(conc), mp.mpf(rate), mp.mpf(x)
    return _hp_hurdle(x, gate, a * mp.log(r) + (a - 1) * mp.log(xx) - r * xx - mp.loggamma(a))


def hp_hurdlelognormal(x, gate, loc, scale):
    if x < 0:
        return MINF
    if x == 0:
        return _hp_hurdle(x, gate, 0)
    lx, sd = mp.log(mp.mpf(x)), mp.mpf(scale)
    z = (lx - mp.mpf(loc)) / sd
    return _hp_hurdle(x, gate, -z * z / 2 - lx - mp.log(sd) - mp.log(2 * mp.pi) / 2)


def _hp_trunc(x, low, high, logpdf, cdf):
    if not (low <= x <= high):
        return MINF
    return _f(logpdf(mp.mpf(x)) - mp.log(cdf(mp.mpf(high)) - cdf(mp.mpf(low))))


def hp_truncated_gamma(x, conc, rate, low, high):
    a, r = mp.mpf(conc), mp.mpf(rate)
    return _hp_trunc(x, low, high,
                     lambda v: a * mp.log(r) + (a - 1) * mp.log(v) - r * v - mp.loggamma(a),
                     lambda v: mp.gammainc(a, 0, r * v, regularized=True))


def hp_truncated_lognormal(x, loc, scale, low, high):
    m, s_ = mp.mpf(loc), mp.mpf(scale)
    return _hp_trunc(x, low, high,
                     lambda v: -((mp.log(v) - m) / s_) ** 2 / 2 - mp.log(v) - mp.log(s_) - mp.log(2 * mp.pi) / 2,
                     lambda v: mp.ncdf((mp.log(v) - m) / s_))


def hp_truncated_exponential(x, rate, low, high):
    r = mp.mpf(rate)
    return _hp_trunc(x, low, high, lambda v: mp.log(r) - r * v, lambda v: -mp.expm1(-r * v))


HP = {ref_normal: hp_normal, ref_halfnormal: hp_halfnormal,
      ref_lognormal: hp_lognormal, ref_exponential: hp_exponential,
      ref_gamma: hp_gamma, ref_beta: hp_beta, ref_uniform: hp_uniform,
      ref_cauchy: hp_cauchy, ref_halfcauchy: hp_halfcauchy,
      ref_studentt: hp_studentt, ref_bernoulli_probs: hp_bernoulli_probs,
      ref_bernoulli_logits: hp_bernoulli_logits,
      ref_binomial_probs: hp_binomial_probs,
      ref_binomial_logits: hp_binomial_logits, ref_poisson: hp_poisson,
      ref_laplace: hp_laplace, ref_logistic: hp_logistic,
      ref_gumbel: hp_gumbel, ref_inversegamma: hp_inversegamma,
      ref_pareto: hp_pareto, ref_weibull: hp_weibull,
      ref_negativebinomial2: hp_negativebinomial2,
      ref_zeroinflatedpoisson_gate_logits: hp_zeroinflatedpoisson_gate_logits,
      ref_betabinomial: hp_betabinomial,
      ref_truncatednormal: hp_truncatednormal,
      ref_gammapoisson: hp_gammapoisson,
      ref_negativebinomialprobs: hp_negativebinomialprobs,
      ref_negativebinomiallogits: hp_negativebinomiallogits,
      ref_zeroinflatedpoisson_gate: hp_zeroinflatedpoisson_gate,
      ref_zeroinflatednegativebinomial2_gate:
          hp_zeroinflatednegativebinomial2_gate,
      ref_zeroinflatednegativebinomial2_gate_logits:
          hp_zeroinflatednegativebinomial2_gate_logits,
      ref_hurdlepoisson: hp_hurdlepoisson,
      ref_hurdlenegativebinomial2: hp_hurdlenegativebinomial2,
      ref_hurdlegamma: hp_hurdlegamma,
      ref_hurdlelognormal: hp_hurdlelognormal,
      ref_truncated_gamma: hp_truncated_gamma,
      ref_truncated_lognormal: hp_truncated_lognormal,
      ref_truncated_exponential: hp_truncated_exponential}


# ------------------------------------------------------------- distributions
# variant -> (DSL call template, parameter input names, discrete, reference,
#             {precision: (parameter sets, observations)})
DISTS = {
    "normal": ("Normal(loc, scale)", ["loc", "scale"], False, ref_normal, {
        "f32": ([(0, 1), (1.5, 0.3), (-2, 4.5), (10, 2)],
                [-3, -0.5, 0.25, 1.7, 12]),
        "f64": ([(0, 1), (1.5, 0.3), (-2, 4.5), (10, 2), (1e3, 1e-2)],
                [-3, -0.5, 0.25, 1.7, 12, 1000.03]),
    }),
    "halfnormal": ("HalfNormal(scale)", ["scale"], False, ref_halfnormal, {
        "f32": ([(0.5,), (1,), (3,)], [-1, -1e-3, 0, 0.3, 1, 2.5, 7]),
        "f64": ([(0.5,), (1,), (3,), (1e-3,)],
                [-1, -1e-3, 0, 0.3, 1, 2.5, 7]),
    }),
    "lognormal": ("LogNormal(loc, scale)", ["loc", "scale"], False,
                  ref_lognormal, {
        "f32": ([(0, 1), (1, 0.5), (-1, 2)], [-1, 0, 0.1, 1, 3, 20]),
        "f64": ([(0, 1), (1, 0.5), (-1, 2), (5, 0.1)],
                [-1, 0, 0.1, 1, 3, 20, 150]),
    }),
    "exponential": ("Exponential(rate)", ["rate"], False, ref_exponential, {
        "f32": ([(0.5,), (1,), (4,)], [-0.5, 0, 0.3, 2, 10]),
        "f64": ([(0.5,), (1,), (4,), (1e-3,)], [-0.5, 0, 0.3, 2, 10, 5e3]),
    }),
    "gamma": ("Gamma(concentration=conc, rate=rate)", ["conc", "rate"], False,
              ref_gamma, {
        "f32": ([(0.5, 1), (1, 2), (2.5, 0.7), (9, 3)],
                [-1, 0.05, 0.7, 2, 6]),
        "f64": ([(0.5, 1), (1, 2), (2.5, 0.7), (9, 3), (120, 4), (0.01, 1)],
                [-1, 0.05, 0.7, 2, 6, 30]),
    }),
    "beta": ("Beta(concentration0=c0, concentration1=c1)", ["c1", "c0"], False, ref_beta, {
        "f32": ([(0.5, 0.5), (2, 3), (5, 1.5), (1, 1)],
                [-0.1, 0.01, 0.3, 0.75, 0.99, 1.2]),
        "f64": ([(0.5, 0.5), (2, 3), (5, 1.5), (1, 1), (80, 30)],
                [-0.1, 0.01, 0.3, 0.75, 0.99, 1.2]),
    }),
    "uniform": ("Uniform(low, high)", ["low", "high"], False, ref_uniform, {
        "f32": ([(0, 1), (-2, 3.5), (1, 1.5)], [-3, -1, 0.5, 1.2, 3, 4]),
        "f64": ([(0, 1), (-2, 3.5), (1, 1.5), (-1e3, 1e3)],
                [-3, -1, 0.5, 1.2, 3, 4, 999]),
    }),
    "cauchy": ("Cauchy(loc, scale)", ["loc", "scale"], False, ref_cauchy, {
        "f32": ([(0, 1), (2, 0.5), (-1, 3)], [-10, -1, 0, 1.9, 50]),
        "f64": ([(0, 1), (2, 0.5), (-1, 3)], [-10, -1, 0, 1.9, 50, 1e8]),
    }),
    "halfcauchy": ("HalfCauchy(scale)", ["scale"], False, ref_halfcauchy, {
        "f32": ([(0.5,), (1,), (4,)], [-1, 0, 0.2, 3, 100]),
        "f64": ([(0.5,), (1,), (4,)], [-1, 0, 0.2, 3, 100, 1e9]),
    }),
    "studentt": ("StudentT(df, loc, scale)", ["df", "loc", "scale"], False,
                 ref_studentt, {
        "f32": ([(1, 0, 1), (3.5, 1, 2), (30, -1, 0.5), (2.2, 0, 1)],
                [-5, -0.7, 0, 1, 8]),
        "f64": ([(1, 0, 1), (3.5, 1, 2), (30, -1, 0.5), (2.2, 0, 1),
                 (1e4, 0, 1)],
                [-5, -0.7, 0, 1, 8, 300]),
    }),
    "bernoulli_probs": ("Bernoulli(probs=p)", ["p"], True,
                        ref_bernoulli_probs, {
        "f32": ([(0.1,), (0.5,), (0.93,)], [-1, 0, 1, 2]),
        "f64": ([(0.1,), (0.5,), (0.93,), (1e-9,)], [-1, 0, 1, 2]),
    }),
    "bernoulli_logits": ("Bernoulli(logits=logit)", ["logit"], True,
                         ref_bernoulli_logits, {
        "f32": ([(-30,), (-2,), (0,), (0.7,), (25,)], [-1, 0, 1, 2]),
        "f64": ([(-30,), (-2,), (0,), (0.7,), (25,), (-800,)], [-1, 0, 1, 2]),
    }),
    "binomial_probs": ("Binomial(total, probs=p)", ["total", "p"], True,
                       ref_binomial_probs, {
        "f32": ([(1, 0.3), (10, 0.5), (40, 0.05)],
                [-1, 0, 1, 3, 10, 11, 41]),
        "f64": ([(1, 0.3), (10, 0.5), (40, 0.05), (200, 0.7), (5000, 0.01)],
                [-1, 0, 1, 3, 10, 11, 41, 150, 201, 5001]),
    }),
    "binomial_logits": ("Binomial(total, logits=logit)", ["total", "logit"],
                        True, ref_binomial_logits, {
        "f32": ([(10, -1.5), (25, 3), (30, 0)], [-1, 0, 2, 10, 24, 26]),
        "f64": ([(10, -1.5), (25, 3), (30, 0), (300, -4), (12, 40)],
                [-1, 0, 2, 10, 12, 24, 26, 150, 301]),
    }),
    "poisson": ("Poisson(rate)", ["rate"], True, ref_poisson, {
        "f32": ([(0.3,), (4,), (17,)], [-1, 0, 1, 5, 20, 40]),
        "f64": ([(0.3,), (4,), (17,), (250,), (1000,)],
                [-1, 0, 1, 5, 20, 40, 260, 1000]),
    }),
    "laplace": ("Laplace(loc, scale)", ["loc", "scale"], False, ref_laplace, {
        "f32": ([(0, 1), (1.5, 0.3), (-2, 4.5)], [-3, -0.5, 0.25, 1.7, 12]),
        "f64": ([(0, 1), (1.5, 0.3), (-2, 4.5), (10, 0.5)],
                [-3, -0.5, 0.25, 1.7, 10.03, 40]),
    }),
    "logistic": ("Logistic(loc, scale)", ["loc", "scale"], False, ref_logistic, {
        "f32": ([(0, 1), (1.5, 0.3), (-2, 4.5)], [-3, -0.5, 0.25, 1.7, 12]),
        "f64": ([(0, 1), (1.5, 0.3), (-2, 4.5)], [-3, -0.5, 0.25, 1.7, 12, 300]),
    }),
    "gumbel": ("Gumbel(loc, scale)", ["loc", "scale"], False, ref_gumbel, {
        "f32": ([(0, 1), (1.5, 0.3), (-2, 4.5)], [-3, -0.5, 0.25, 1.7, 12]),
        "f64": ([(0, 1), (1.5, 0.3), (-2, 4.5)], [-3, -0.5, 0.25, 1.7, 12, 60]),
    }),
    "inversegamma": ("InverseGamma(conc, rate)", ["conc", "rate"], False,
                     ref_inversegamma, {
        "f32": ([(0.5, 1), (3, 2), (9, 3)], [-1, 0.05, 0.7, 2, 6]),
        "f64": ([(0.5, 1), (3, 2), (9, 3), (120, 4)], [-1, 0.05, 0.7, 2, 6, 30]),
    }),
    "pareto": ("Pareto(scale, alpha)", ["scale", "alpha"], False, ref_pareto, {
        "f32": ([(1, 1), (2, 3.5), (0.5, 0.7)], [0.1, 1, 1.5, 2.5, 40]),
        "f64": ([(1, 1), (2, 3.5), (0.5, 0.7), (3, 60)], [0.1, 1, 1.5, 2.5, 3.2, 40]),
    }),
    "weibull": ("Weibull(scale, concentration=conc)", ["scale", "conc"], False,
                ref_weibull, {
        "f32": ([(1, 1), (2, 1.5), (0.5, 0.4)], [-1, 0.01, 0.3, 1.7, 6]),
        "f64": ([(1, 1), (2, 1.5), (0.5, 0.4), (10, 8)], [-1, 0.01, 0.3, 1.7, 6, 11]),
    }),
    "negativebinomial2": ("NegativeBinomial2(mean, conc)", ["mean", "conc"],
                          True, ref_negativebinomial2, {
        "f32": ([(1, 1), (4, 1.5), (30, 0.5)], [-1, 0, 1, 4, 20, 200]),
        "f64": ([(1, 1), (4, 1.5), (30, 0.5), (1e4, 20)],
                [-1, 0, 1, 4, 20, 200, 9000]),
    }),
    "zeroinflatedpoisson_gate_logits": (
        "ZeroInflatedPoisson(rate=rate, gate_logits=g)", ["rate", "g"], True,
        ref_zeroinflatedpoisson_gate_logits, {
            "f32": ([(4, -0.5), (2, 3), (0.5, -6)], [-1, 0, 1, 4, 25]),
            "f64": ([(4, -0.5), (2, 3), (0.5, -6), (100, 0)],
                    [-1, 0, 1, 4, 25, 110]),
        }),
    "truncatednormal": ("TruncatedNormal(loc, scale, low=low, high=high)",
                        ["loc", "scale", "low", "high"], False,
                        ref_truncatednormal, {
        "f32": ([(0, 1, 0, 3), (1.5, 2, -1, 1), (0, 1, 2, 5)],
                [-2, 0, 0.5, 1, 2.5, 4.9, 6]),
        "f64": ([(0, 1, 0, 3), (1.5, 2, -1, 1), (0, 1, 2, 5), (0, 1, 6, 9)],
                [-2, 0, 0.5, 1, 2.5, 4.9, 6, 7.5]),
    }),
    "gammapoisson": ("GammaPoisson(conc, rate)", ["conc", "rate"], True,
                     ref_gammapoisson, {
        "f32": ([(1, 1), (2.5, 0.5), (40, 4)], [-1, 0, 1, 5, 20, 90]),
        "f64": ([(1, 1), (2.5, 0.5), (40, 4), (1e3, 0.1)],
                [-1, 0, 1, 5, 20, 90, 9500]),
    }),
    "negativebinomialprobs": ("NegativeBinomialProbs(n, p)", ["n", "p"],
                              True, ref_negativebinomialprobs, {
        "f32": ([(1, 0.5), (3, 0.4), (0.5, 0.9)], [-1, 0, 1, 2, 10, 60]),
        "f64": ([(1, 0.5), (3, 0.4), (0.5, 0.9), (50, 0.01)],
                [-1, 0, 1, 2, 10, 60]),
    }),
    "negativebinomiallogits": ("NegativeBinomialLogits(n, logits=l)",
                               ["n", "l"], True, ref_negativebinomiallogits, {
        "f32": ([(1, 0), (3, 0.5), (10, -4)], [-1, 0, 1, 2, 10, 60]),
        "f64": ([(1, 0), (3, 0.5), (10, -4), (2, 6)],
                [-1, 0, 1, 2, 10, 60, 5000]),
    }),
    "zeroinflatedpoisson_gate": ("ZeroInflatedPoisson(gate, rate)",
                                 ["gate", "rate"], True,
                                 ref_zeroinflatedpoisson_gate, {
        "f32": ([(0.3, 4), (0.05, 2), (0.9, 0.5)], [-1, 0, 1, 4, 25]),
        "f64": ([(0.3, 4), (0.05, 2), (0.9, 0.5), (1e-6, 30)],
                [-1, 0, 1, 4, 25, 60]),
    }),
    "zeroinflatednegativebinomial2_gate": (
        "ZeroInflatedNegativeBinomial2(mean, conc, gate=gate)",
        ["mean", "conc", "gate"], True, ref_zeroinflatednegativebinomial2_gate, {
            "f32": ([(3, 2, 0.2), (50, 0.5, 0.7)], [-1, 0, 1, 3, 20, 500]),
            "f64": ([(3, 2, 0.2), (50, 0.5, 0.7), (0.1, 10, 0.01)],
                    [-1, 0, 1, 3, 20, 500]),
        }),
    "zeroinflatednegativebinomial2_gate_logits": (
        "ZeroInflatedNegativeBinomial2(mean, conc, gate_logits=g)",
        ["mean", "conc", "g"], True,
        ref_zeroinflatednegativebinomial2_gate_logits, {
            "f32": ([(3, 2, -1), (50, 0.5, 2)], [-1, 0, 1, 3, 20, 500]),
            "f64": ([(3, 2, -1), (50, 0.5, 2), (0.1, 10, -30)],
                    [-1, 0, 1, 3, 20, 500]),
        }),
    "hurdlepoisson": ("HurdlePoisson(gate, rate)", ["gate", "rate"], True,
                      ref_hurdlepoisson, {
        "f32": ([(0.3, 4), (0.05, 2), (0.9, 0.1)], [-1, 0, 1, 4, 25]),
        "f64": ([(0.3, 4), (0.05, 2), (0.9, 0.1), (1e-6, 1e-4)],
                [-1, 0, 1, 4, 25, 60]),
    }),
    "hurdlenegativebinomial2": (
        "HurdleNegativeBinomial2(gate, mean, conc)", ["gate", "mean", "conc"],
        True, ref_hurdlenegativebinomial2, {
            "f32": ([(0.2, 3, 2), (0.7, 50, 0.5)], [-1, 0, 1, 3, 20, 500]),
            "f64": ([(0.2, 3, 2), (0.7, 50, 0.5), (0.4, 0.05, 0.5)],
                    [-1, 0, 1, 3, 20, 500]),
        }),
    "hurdlegamma": ("HurdleGamma(gate, conc, rate)", ["gate", "conc", "rate"],
                    False, ref_hurdlegamma, {
        "f32": ([(0.3, 2, 1.5), (0.6, 0.5, 1)], [-1, 0, 0.3, 1.7, 6]),
        "f64": ([(0.3, 2, 1.5), (0.6, 0.5, 1), (0.05, 20, 0.1)],
                [-1, 0, 0.3, 1.7, 6, 150]),
    }),
    "hurdlelognormal": ("HurdleLogNormal(gate, loc, scale)",
                        ["gate", "loc", "scale"], False, ref_hurdlelognormal, {
        "f32": ([(0.3, 0, 1), (0.6, 1.5, 0.25)], [-1, 0, 0.3, 1.7, 6]),
        "f64": ([(0.3, 0, 1), (0.6, 1.5, 0.25), (0.1, -1, 3)],
                [-1, 0, 0.3, 1.7, 6, 150]),
    }),
    "truncated_gamma": (
        "TruncatedDistribution(Gamma(conc, rate), low=low, high=high)",
        ["conc", "rate", "low", "high"], False, ref_truncated_gamma, {
            "f32": ([(2, 0.1, 1, 80), (0.5, 2, 0.01, 1), (3, 1, 6, 9)], [0.5, 0.02, 2, 7, 70]),
            "f64": ([(2, 0.1, 1, 80), (0.5, 2, 0.01, 1), (3, 1, 6, 9)], [0.5, 0.02, 2, 7, 70]),
        }),
    "truncated_lognormal": (
        "TruncatedDistribution(LogNormal(loc, scale), low=low, high=high)",
        ["loc", "scale", "low", "high"], False, ref_truncated_lognormal, {
            "f32": ([(0, 1, 0.5, 2), (1, 0.5, 4, 10)], [0.3, 0.7, 1.5, 5, 9]),
            "f64": ([(0, 1, 0.5, 2), (1, 0.5, 4, 10)], [0.3, 0.7, 1.5, 5, 9]),
        }),
    "truncated_exponential": (
        "TruncatedDistribution(Exponential(rate), low=low, high=high)",
        ["rate", "low", "high"], False, ref_truncated_exponential, {
            "f32": ([(0.5, 1, 3), (2, 4, 8)], [0.5, 1.5, 2.5, 5, 7]),
            "f64": ([(0.5, 1, 3), (2, 4, 8)], [0.5, 1.5, 2.5, 5, 7]),
        }),
    "betabinomial": ("BetaBinomial(c1, c0, total)", ["c1", "c0", "total"], True,
                     ref_betabinomial, {
        "f32": ([(2, 3, 10), (0.5, 0.5, 1), (1, 1, 40)], [-1, 0, 1, 5, 10, 11, 40]),
        "f64": ([(2, 3, 10), (0.5, 0.5, 1), (1, 1, 40), (30, 0.2, 1000)],
                [-1, 0, 1, 5, 10, 11, 40, 990, 1001]),
    }),
}

# Parameters are integer inputs where the language counts (total_count).
INT_PARAMS = {"total"}


def model_source(variant, prec):
    call, params, discrete, _, _ = DISTS[variant]
    name = "dist_%s_%s" % (variant, prec)
    ins = ", ".join("%s: %s[n]" % (p, "i32" if p in INT_PARAMS else prec)
                    for p in params)
    out = "i32" if discrete else prec
    return name, (
        "# Generated by make_reference.py: the %s log density / sampler of a\n"
        "# %s model, every parameter an input of the observation plate.\n"
        "model %s(%s) -> (y: %s[n]) {\n"
        "  plate obs(n) {\n"
        "    y ~ %s;\n"
        "  }\n"
        "}\n" % (variant, prec, name, ins, out, call))


# Parameters as latents (read from the posterior): global latents, a mix of
# input and latent, and an observation-aligned latent.
LATENT_MODELS = {
    "latent_normal_f32": (
        "model latent_normal_f32(x: f32[n]) -> (y: f32[n]) {\n"
        "  mu ~ Normal(0, 1);\n"
        "  s ~ HalfNormal(1);\n"
        "  plate obs(n) {\n"
        "    y ~ Normal(mu, s);\n"
        "  }\n"
        "}\n",
        ["mu", "s"], False, ref_normal, "f32",
        [(0.25, 1.5), (-3, 0.2), (7, 4)], [-2, 0.1, 6.5]),
    "latent_gamma_f64": (
        "model latent_gamma_f64(conc: f64[n]) -> (y: f64[n]) {\n"
        "  rate ~ Exponential(1);\n"
        "  plate obs(n) {\n"
        "    y ~ Gamma(conc, rate);\n"
        "  }\n"
        "}\n",
        ["conc", "rate"], False, ref_gamma, "f64",
        [(0.7, 2), (3, 0.5), (40, 10)], [-0.5, 0.2, 4, 9]),
    "latent_binomial_logits_f32": (
        "model latent_binomial_logits_f32(total: i32[n]) -> (y: i32[n]) {\n"
        "  logit ~ Normal(0, 2);\n"
        "  plate obs(n) {\n"
        "    y ~ Binomial(total, logits=logit);\n"
        "  }\n"
        "}\n",
        ["total", "logit"], True, ref_binomial_logits, "f32",
        [(12, -0.5), (30, 1.25)], [-2, 0, 5, 12, 31]),
    "latent_local_poisson_f64": (
        "model latent_local_poisson_f64(x: f64[n]) -> (y: i32[n]) {\n"
        "  plate obs(n) {\n"
        "    rate ~ Gamma(2, 1);\n"
        "    y ~ Poisson(rate);\n"
        "  }\n"
        "}\n",
        ["rate"], True, ref_poisson, "f64",
        [(0.5,), (3.25,), (60,)], [-1, 0, 2, 70]),
}


def fmt(v):
    if v == -INF:
        return "-HUGE_VAL"
    if v == INF:
        return "HUGE_VAL"
    assert math.isfinite(v), v
    return repr(float(v))


def rows_for(name, params, discrete, ref, prec, psets, xs, filter_small):
    rows = []
    for ps in psets:
        if prec == "f32":
            ps = tuple(p if isinstance(p, int) and n in INT_PARAMS else f32(p)
                       for p, n in zip(ps, params))
        for x in xs:
            if not discrete and prec == "f32":
                x = f32(x)
            xv = float(x) if not discrete else int(x)
            v = float(ref(xv, *[float(p) for p in ps]))
            assert not math.isnan(v), (name, ps, x)
            h = HP[ref](xv, *[float(p) for p in ps])
            if math.isinf(v) or math.isinf(h):
                assert v == h, (name, ps, x, v, h)
            else:
                rel = abs(v - h) / max(abs(h), 1e-300)
                assert rel < 1e-9, (name, ps, x, v, h)
                if rel > 1e-14:
                    print("  %s%s x=%r: scipy %r, mpmath %r (rel %.1e): "
                          "mpmath kept" % (name, ps, x, v, h, rel))
                    v = h
            if v == INF:
                continue  # a pole (density unbounded at the boundary)
            if filter_small and math.isfinite(v) and abs(v) < 0.05:
                continue
            rows.append((name, ps, x, v))
    return rows


def main():
    mdir = os.path.join(HERE, "models")
    os.makedirs(mdir, exist_ok=True)
    model_rows = []
    case_rows = []
    for variant, (_, params, discrete, ref, tables) in DISTS.items():
        for prec in ("f32", "f64"):
            name, src = model_source(variant, prec)
            with open(os.path.join(mdir, name + ".aimz"), "w") as f:
                f.write(src)
            model_rows.append((name, params, prec))
            psets, xs = tables[prec]
            # Discrete densities are exact sums of logs and lgammas that do
            # not cancel at these sizes, and the logits forms must stay
            # accurate near zero: keep every point there.
            case_rows += rows_for(name, params, discrete, ref, prec, psets,
                                  xs, filter_small=(prec == "f32"
                                                    and not discrete))
    for name, (src, params, discrete, ref, prec, psets, xs) in \
            LATENT_MODELS.items():
        with open(os.path.join(mdir, name + ".aimz"), "w") as f:
            f.write("# Generated by make_reference.py: parameters given as "
                    "latents.\n" + src)
        model_rows.append((name, params, prec))
        case_rows += rows_for(name, params, discrete, ref, prec, psets, xs,
                              filter_small=False)

    out = []
    out.append("// Generated by make_reference.py (scipy %s, numpy %s): do "
               "not edit." % (scipy.__version__, np.__version__))
    out.append("// clang-format off")
    out.append("// {model, precision, parameter names (inputs or sites)}")
    out.append("static const RefModel kRefModels[] = {")
    for name, params, prec in model_rows:
        ps = ", ".join('"%s"' % p for p in params)
        pad = ", nullptr" * (4 - len(params))
        out.append('    {"%s", "%s", %d, {%s%s}},' % (name, prec, len(params),
                                                        ps, pad))
    out.append("};")
    out.append("// {model, parameters, observation, expected log density}")
    out.append("static const RefCase kRefCases[] = {")
    for name, ps, x, v in case_rows:
        pv = [fmt(float(p)) for p in ps] + ["0.0"] * (4 - len(ps))
        out.append('    {"%s", {%s}, %s, %s},' % (name, ", ".join(pv),
                                                  fmt(float(x)), fmt(v)))
    out.append("};")
    with open(os.path.join(HERE, "logdensity_reference.inc"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("%d models, %d cases" % (len(model_rows), len(case_rows)))


if __name__ == "__main__":
    main()
