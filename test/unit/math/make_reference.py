#!/usr/bin/python3
"""Generate test/unit/math/logdensity_reference.inc.

Run with Debian's interpreter (it has python3-scipy and numpy):

    /usr/bin/python3 test/unit/math/make_reference.py

Every input (parameters and observations) is rounded to float32 first, so the
same rows test both the float and the double instantiations at exactly the
same arguments.  For each row two values are stored:

  * `expect`: the log density computed with 70-digit decimal arithmetic
    (hpmath.py) -- the value the C++ tests compare against;
  * `scipy`:  scipy.stats' logpdf / logpmf in double precision.

The script checks that the two agree (relative 1e-9, unit floor) and prints
every row where scipy's double-precision formula is less accurate than that
(large-count Poisson/Binomial, extreme Beta/StudentT); those rows keep the
high-precision value.  The C++ tests need neither Python nor scipy.
"""

import math
import os
import sys

import numpy as np
import scipy
import scipy.special as sc
import scipy.stats as st

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hpmath as hp  # noqa: E402

D = hp.D
INF = math.inf
NAN = math.nan


def f32(v):
    return float(np.float32(v))


# ------------------------------------------------------------ hp log densities
# Each takes Python floats (already float32-exact) and returns a float.


def _fin(d):
    return float(d)


def hp_normal(x, loc, scale):
    if not (math.isfinite(loc) and 0 < scale < INF) or math.isnan(x):
        return NAN
    if math.isinf(x):
        return -INF
    z = (D(x) - D(loc)) / D(scale)
    return _fin(-z * z / 2 - D(scale).ln() - hp.LN_2PI / 2)


def hp_half_normal(x, scale):
    if not (0 < scale < INF) or math.isnan(x):
        return NAN
    if x < 0 or math.isinf(x):
        return -INF
    z = D(x) / D(scale)
    return _fin((D(2) / hp.PI).ln() / 2 - D(scale).ln() - z * z / 2)


def hp_log_normal(x, loc, scale):
    if not (math.isfinite(loc) and 0 < scale < INF) or math.isnan(x):
        return NAN
    if x <= 0 or math.isinf(x):
        return -INF
    lx = D(x).ln()
    z = (lx - D(loc)) / D(scale)
    return _fin(-z * z / 2 - lx - D(scale).ln() - hp.LN_2PI / 2)


def hp_exponential(x, rate):
    if not (0 < rate < INF) or math.isnan(x):
        return NAN
    if x < 0 or math.isinf(x):
        return -INF
    return _fin(D(rate).ln() - D(rate) * D(x))


def hp_gamma(x, a, rate):
    if not (0 < a < INF and 0 < rate < INF) or math.isnan(x):
        return NAN
    if x < 0 or math.isinf(x):
        return -INF
    if x == 0:
        return INF if a < 1 else (math.log(rate) if a == 1 else -INF)
    a_, b_, x_ = D(a), D(rate), D(x)
    return _fin((a_ - 1) * x_.ln() + a_ * b_.ln() - b_ * x_ - hp.lgamma(a_))


def hp_beta(x, a, b):
    if not (0 < a < INF and 0 < b < INF) or math.isnan(x):
        return NAN
    if x < 0 or x > 1:
        return -INF
    if x == 0:
        return INF if a < 1 else (math.log(b) if a == 1 else -INF)
    if x == 1:
        return INF if b < 1 else (math.log(a) if b == 1 else -INF)
    a_, b_, x_ = D(a), D(b), D(x)
    return _fin((a_ - 1) * x_.ln() + (b_ - 1) * hp.log1p(-x_) - hp.lbeta(a_, b_))


def hp_uniform(x, low, high):
    if not (math.isfinite(low) and math.isfinite(high) and low < high) or math.isnan(x):
        return NAN
    if x < low or x > high:
        return -INF
    return _fin(-(D(high) - D(low)).ln())


def _log1p_sq(z):
    return (1 + z * z).ln()


def hp_cauchy(x, loc, scale):
    if not (math.isfinite(loc) and 0 < scale < INF) or math.isnan(x):
        return NAN
    if math.isinf(x):
        return -INF
    z = (D(x) - D(loc)) / D(scale)
    return _fin(-hp.PI.ln() - D(scale).ln() - _log1p_sq(z))


def hp_half_cauchy(x, scale):
    if not (0 < scale < INF) or math.isnan(x):
        return NAN
    if x < 0 or math.isinf(x):
        return -INF
    z = D(x) / D(scale)
    return _fin((D(2) / hp.PI).ln() - D(scale).ln() - _log1p_sq(z))


def hp_student_t(x, df, loc, scale):
    if not (0 < df and math.isfinite(loc) and 0 < scale < INF) or math.isnan(x):
        return NAN
    if df == INF:
        return hp_normal(x, loc, scale)
    if math.isinf(x):
        return -INF
    nu = D(df)
    z = (D(x) - D(loc)) / D(scale)
    return _fin(hp.lgamma((nu + 1) / 2) - hp.lgamma(nu / 2) - (nu * hp.PI).ln() / 2 - D(scale).ln()
                - (nu + 1) / 2 * (1 + z * z / nu).ln())


def _is_count(x):
    return math.isfinite(x) and math.floor(x) == x


def _hp_log_sigmoid(l):
    # log(1 / (1 + exp(-l)))
    return -hp.log1p((-D(l)).exp())


def hp_bernoulli(x, p):
    if not (0 <= p <= 1) or math.isnan(x):
        return NAN
    if x == 1:
        return -INF if p == 0 else _fin(D(p).ln())
    if x == 0:
        return -INF if p == 1 else _fin(hp.log1p(-D(p)))
    return -INF


def hp_bernoulli_logits(x, l):
    if math.isnan(l) or math.isnan(x):
        return NAN
    if x == 1:
        return _fin(_hp_log_sigmoid(l)) if math.isfinite(l) else (0.0 if l > 0 else -INF)
    if x == 0:
        return _fin(_hp_log_sigmoid(-l)) if math.isfinite(l) else (0.0 if l < 0 else -INF)
    return -INF


def _hp_binom(k, n, logp, logq):
    # logp / logq are Decimals or None for log(0)
    k_, n_ = D(k), D(n)
    s = hp.lgamma(n_ + 1) - hp.lgamma(k_ + 1) - hp.lgamma(n_ - k_ + 1)
    if k > 0:
        if logp is None:
            return -INF
        s += k_ * logp
    if n - k > 0:
        if logq is None:
            return -INF
        s += (n_ - k_) * logq
    return _fin(s)


def hp_binomial(x, n, p):
    if not (0 <= p <= 1) or not (n >= 0 and _is_count(n)) or math.isnan(x):
        return NAN
    if not _is_count(x) or x < 0 or x > n:
        return -INF
    logp = None if p == 0 else D(p).ln()
    logq = None if p == 1 else hp.log1p(-D(p))
    return _hp_binom(x, n, logp, logq)


def hp_binomial_logits(x, n, l):
    if math.isnan(l) or not (n >= 0 and _is_count(n)) or math.isnan(x):
        return NAN
    if not _is_count(x) or x < 0 or x > n:
        return -INF
    if math.isinf(l):
        p = 1.0 if l > 0 else 0.0
        return hp_binomial(x, n, p)
    return _hp_binom(x, n, _hp_log_sigmoid(l), _hp_log_sigmoid(-l))


def hp_poisson(x, rate):
    if not (0 <= rate < INF) or math.isnan(x):
        return NAN
    if not _is_count(x) or x < 0:
        return -INF
    if rate == 0:
        return 0.0 if x == 0 else -INF
    k, lam = D(x), D(rate)
    return _fin(k * lam.ln() - lam - hp.lgamma(k + 1))


# --- more continuous families


def _loc_scale_ok(loc, scale):
    return math.isfinite(loc) and 0 < scale < INF


def hp_laplace(x, loc, scale):
    if not _loc_scale_ok(loc, scale) or math.isnan(x):
        return NAN
    if math.isinf(x):
        return -INF
    return _fin(-(2 * D(scale)).ln() - abs(D(x) - D(loc)) / D(scale))


def hp_logistic(x, loc, scale):
    if not _loc_scale_ok(loc, scale) or math.isnan(x):
        return NAN
    if math.isinf(x):
        return -INF
    z = abs(D(x) - D(loc)) / D(scale)
    return _fin(-z - 2 * hp.log1p((-z).exp()) - D(scale).ln())


def hp_gumbel(x, loc, scale):
    if not _loc_scale_ok(loc, scale) or math.isnan(x):
        return NAN
    if math.isinf(x):
        return -INF
    z = (D(x) - D(loc)) / D(scale)
    if -z > 10000:  # exp(-z) beyond any double
        return -INF
    return _fin(-(z + (-z).exp()) - D(scale).ln())


def hp_inverse_gamma(x, a, rate):
    if not (0 < a < INF and 0 < rate < INF) or math.isnan(x):
        return NAN
    if x <= 0 or math.isinf(x):
        return -INF
    a_, b_, x_ = D(a), D(rate), D(x)
    return _fin(a_ * b_.ln() - hp.lgamma(a_) - (a_ + 1) * x_.ln() - b_ / x_)


def hp_pareto(x, scale, alpha):
    if not (0 < scale < INF and 0 < alpha < INF) or math.isnan(x):
        return NAN
    if x < scale or math.isinf(x):
        return -INF
    s_, a_, x_ = D(scale), D(alpha), D(x)
    return _fin(a_.ln() + a_ * s_.ln() - (a_ + 1) * x_.ln())


def hp_weibull(x, scale, k):
    if not (0 < scale < INF and 0 < k < INF) or math.isnan(x):
        return NAN
    if x < 0 or math.isinf(x):
        return -INF
    if x == 0:
        return INF if k < 1 else (-math.log(scale) if k == 1 else -INF)
    s_, k_, x_ = D(scale), D(k), D(x)
    z = x_ / s_
    return _fin((k_ / s_).ln() + (k_ - 1) * z.ln() - (k_ * z.ln()).exp())


def hp_truncated_normal(x, loc, scale, low, high):
    """Normal density renormalized on [low, high], with mpmath at 60 digits
    (hpmath has no erfc)."""
    import mpmath as mp
    if not (math.isfinite(loc) and 0 < scale < INF) or math.isnan(low) or math.isnan(high) or not low < high \
            or math.isnan(x):
        return NAN
    if x < low or x > high or math.isinf(x):
        return -INF
    with mp.workdps(60):
        m, s_ = mp.mpf(loc), mp.mpf(scale)
        z = (mp.mpf(x) - m) / s_
        a = (mp.mpf(low) - m) / s_ if math.isfinite(low) else -mp.inf
        b = (mp.mpf(high) - m) / s_ if math.isfinite(high) else mp.inf
        mass = mp.ncdf(b) - mp.ncdf(a)
        return float(-z * z / 2 - mp.log(s_) - mp.log(2 * mp.pi) / 2 - mp.log(mass))



def logpdf_at_0(logpdf):
    """The base's log density at 0 (-inf, finite or +inf)."""
    import mpmath as mp
    try:
        v = logpdf(mp.mpf(0))
    except (ValueError, ZeroDivisionError):
        return -INF
    return float(v) if mp.isfinite(v) else (INF if v > 0 else -INF)


def _hp_truncated(x, low, high, valid, logpdf, cdf, lo=-INF):
    """A base density renormalized on [low, high]: logpdf(x) (an mpf or a
    float) minus log(F(high) - F(low)), mpmath at 60 digits; cdf takes mpf
    arguments (-inf/inf allowed after clamping to the support's lower end)."""
    import mpmath as mp
    if not valid or math.isnan(low) or math.isnan(high) or not low < high or not high > lo \
            or math.isnan(x):
        return NAN
    if x < low or x > high or math.isinf(x) or x < lo or (x == lo and lo == 0 and math.isinf(logpdf_at_0(logpdf))):
        return -INF
    with mp.workdps(60):
        a = mp.mpf(max(low, lo)) if math.isfinite(max(low, lo)) else -mp.inf
        b = mp.mpf(high) if math.isfinite(high) else mp.inf
        mass = cdf(b) - cdf(a)
        return float(mp.mpf(logpdf(mp.mpf(x))) - mp.log(mass))


def hp_truncated_exponential(x, rate, low, high):
    import mpmath as mp
    r = mp.mpf(rate)
    return _hp_truncated(x, low, high, 0 < rate < INF, lambda v: mp.log(r) - r * v,
                         lambda v: 0 if v <= 0 else (1 if v == mp.inf else -mp.expm1(-r * v)), 0.0)


def hp_truncated_weibull(x, scale, k, low, high):
    import mpmath as mp
    s_, k_ = mp.mpf(scale), mp.mpf(k)
    return _hp_truncated(x, low, high, 0 < scale < INF and 0 < k < INF,
                         lambda v: mp.log(k_ / s_) + (k_ - 1) * mp.log(v / s_) - (v / s_) ** k_,
                         lambda v: 0 if v <= 0 else (1 if v == mp.inf else -mp.expm1(-(v / s_) ** k_)), 0.0)


def hp_truncated_gumbel(x, loc, scale, low, high):
    import mpmath as mp
    m, s_ = mp.mpf(loc), mp.mpf(scale)
    return _hp_truncated(x, low, high, _loc_scale_ok(loc, scale),
                         lambda v: -((v - m) / s_ + mp.exp(-(v - m) / s_)) - mp.log(s_),
                         lambda v: 0 if v == -mp.inf else (1 if v == mp.inf else mp.exp(-mp.exp(-(v - m) / s_))))


def hp_truncated_pareto(x, scale, alpha, low, high):
    import mpmath as mp
    s_, a_ = mp.mpf(scale), mp.mpf(alpha)
    return _hp_truncated(x, low, high, 0 < scale < INF and 0 < alpha < INF,
                         lambda v: mp.log(a_) + a_ * mp.log(s_) - (a_ + 1) * mp.log(v),
                         lambda v: 0 if v <= s_ else (1 if v == mp.inf else 1 - (s_ / v) ** a_), scale)


def hp_truncated_gamma(x, a, rate, low, high):
    import mpmath as mp
    a_, r = mp.mpf(a), mp.mpf(rate)
    return _hp_truncated(x, low, high, 0 < a < INF and 0 < rate < INF,
                         lambda v: a_ * mp.log(r) + (a_ - 1) * mp.log(v) - r * v - mp.loggamma(a_),
                         lambda v: 0 if v <= 0 else mp.gammainc(a_, 0, r * v, regularized=True), 0.0)


def hp_truncated_inverse_gamma(x, a, rate, low, high):
    import mpmath as mp
    a_, r = mp.mpf(a), mp.mpf(rate)
    return _hp_truncated(x, low, high, 0 < a < INF and 0 < rate < INF,
                         lambda v: a_ * mp.log(r) - (a_ + 1) * mp.log(v) - r / v - mp.loggamma(a_),
                         lambda v: 0 if v <= 0 else (1 if v == mp.inf else
                                                     mp.gammainc(a_, r / v, mp.inf, regularized=True)), 0.0)


def hp_truncated_log_normal(x, loc, scale, low, high):
    import mpmath as mp
    m, s_ = mp.mpf(loc), mp.mpf(scale)
    return _hp_truncated(x, low, high, _loc_scale_ok(loc, scale),
                         lambda v: -((mp.log(v) - m) / s_) ** 2 / 2 - mp.log(v) - mp.log(s_)
                         - mp.log(2 * mp.pi) / 2,
                         lambda v: 0 if v <= 0 else (1 if v == mp.inf else mp.ncdf((mp.log(v) - m) / s_)), 0.0)


def hp_truncated_half_normal(x, scale, low, high):
    import mpmath as mp
    s_ = mp.mpf(scale)
    return _hp_truncated(x, low, high, 0 < scale < INF,
                         lambda v: mp.log(2) - (v / s_) ** 2 / 2 - mp.log(s_) - mp.log(2 * mp.pi) / 2,
                         lambda v: 0 if v <= 0 else (1 if v == mp.inf else 2 * mp.ncdf(v / s_) - 1), 0.0)


def hp_truncated_half_cauchy(x, scale, low, high):
    import mpmath as mp
    s_ = mp.mpf(scale)
    return _hp_truncated(x, low, high, 0 < scale < INF,
                         lambda v: mp.log(2 / (mp.pi * s_)) - mp.log1p((v / s_) ** 2),
                         lambda v: 0 if v <= 0 else (1 if v == mp.inf else 2 * mp.atan(v / s_) / mp.pi), 0.0)


def hp_truncated_beta(x, a, b, low, high):
    import mpmath as mp
    a_, b_ = mp.mpf(a), mp.mpf(b)
    valid = 0 < a < INF and 0 < b < INF and low < 1
    return _hp_truncated(x, low, high, valid,
                         lambda v: (a_ - 1) * mp.log(v) + (b_ - 1) * mp.log1p(-v) - mp.log(mp.beta(a_, b_))
                         if 0 < v < 1 else hp_beta(float(v), a, b),
                         lambda v: 0 if v <= 0 else (1 if v >= 1 else mp.betainc(a_, b_, 0, v, regularized=True)),
                         0.0)


def hp_truncated_kumaraswamy(x, a, b, low, high):
    import mpmath as mp
    a_, b_ = mp.mpf(a), mp.mpf(b)
    valid = 0 < a < INF and 0 < b < INF and low < 1
    return _hp_truncated(x, low, high, valid,
                         lambda v: mp.log(a_) + mp.log(b_) + (a_ - 1) * mp.log(v) + (b_ - 1) * mp.log1p(-v ** a_)
                         if 0 < v < 1 else hp_kumaraswamy(float(v), a, b),
                         lambda v: 0 if v <= 0 else (1 if v >= 1 else 1 - (1 - v ** a_) ** b_), 0.0)


def hp_truncated_uniform(x, a, b, low, high):
    import mpmath as mp
    a_, b_ = mp.mpf(a), mp.mpf(b)
    valid = math.isfinite(a) and math.isfinite(b) and a < b and low < b
    return _hp_truncated(x, low, high, valid,
                         lambda v: -mp.log(b_ - a_) if a_ <= v <= b_ else -mp.inf,
                         lambda v: 0 if v <= a_ else (1 if v >= b_ else (v - a_) / (b_ - a_)), a)


def hp_truncated_log_uniform(x, a, b, low, high):
    import mpmath as mp
    a_, b_ = mp.mpf(a), mp.mpf(b)
    valid = 0 < a < INF and 0 < b < INF and a < b and low < b
    return _hp_truncated(x, low, high, valid,
                         lambda v: -mp.log(v) - mp.log(mp.log(b_) - mp.log(a_)) if a_ <= v <= b_ else -mp.inf,
                         lambda v: 0 if v <= a_ else (1 if v >= b_ else
                                                      (mp.log(v) - mp.log(a_)) / (mp.log(b_) - mp.log(a_))), a)


def hp_truncated_asymmetric_laplace(x, loc, scale, k, low, high):
    import mpmath as mp
    m, l, r = mp.mpf(loc), mp.mpf(scale) * mp.mpf(k), mp.mpf(scale) / mp.mpf(k)
    valid = _loc_scale_ok(loc, scale) and 0 < k < INF
    return _hp_truncated(x, low, high, valid,
                         lambda v: -abs(v - m) / (l if v < m else r) - mp.log(l + r),
                         lambda v: 0 if v == -mp.inf else (1 if v == mp.inf else (
                             l / (l + r) * mp.exp((v - m) / l) if v < m else 1 - r / (l + r) * mp.exp(-(v - m) / r))))


def hp_truncated_chi2(x, df, low, high):
    return hp_truncated_gamma(x, df / 2, 0.5, low, high) if 0 < df < INF else NAN


def hp_truncated_beta_proportion(x, mean, conc, low, high):
    if not (0 < mean < 1 and 0 < conc < INF):
        return NAN
    return hp_truncated_beta(x, float(D(mean) * D(conc)), float((1 - D(mean)) * D(conc)), low, high)


def _hp_truncated_count(x, low, high, valid, logpmf, cdf, top=INF):
    """A count's mass renormalized on the integers of [low, high] (both ends
    included): logpmf(x) minus log(F(U) - F(L - 1)), mpmath at 60 digits;
    cdf(k) takes an integer k >= 0 (or inf)."""
    import mpmath as mp
    if not valid or math.isnan(low) or math.isnan(high) or math.isnan(x):
        return NAN
    lo = max(math.ceil(low) if math.isfinite(low) else (0 if low < 0 else INF), 0)
    up = min(math.floor(high) if math.isfinite(high) else high, top)
    if lo > up:
        return NAN
    if not _is_count(x) or x < lo or x > up:
        return -INF
    with mp.workdps(60):
        below = cdf(lo - 1) if lo > 0 else mp.mpf(0)
        above = mp.mpf(1) if up == INF or up >= top else cdf(up)
        return float(mp.mpf(logpmf(x)) - mp.log(above - below))


def hp_truncated_poisson(x, rate, low, high):
    import mpmath as mp
    return _hp_truncated_count(x, low, high, 0 <= rate < INF, lambda k: hp_poisson(k, rate),
                               lambda k: mp.gammainc(k + 1, rate, mp.inf, regularized=True) if rate > 0 else 1)


def hp_truncated_negative_binomial2(x, mean, conc, low, high):
    import mpmath as mp
    m, c = mp.mpf(mean), mp.mpf(conc)
    return _hp_truncated_count(x, low, high, 0 < mean < INF and 0 < conc < INF,
                               lambda k: hp_negative_binomial2(k, mean, conc),
                               lambda k: mp.betainc(c, k + 1, 0, c / (c + m), regularized=True))


def hp_truncated_binomial(x, n, p, low, high):
    import mpmath as mp
    p_ = mp.mpf(p)
    valid = 0 <= p <= 1 and n >= 0 and _is_count(n)
    return _hp_truncated_count(x, low, high, valid, lambda k: hp_binomial(k, n, p),
                               lambda k: 1 if k >= n else mp.betainc(n - k, k + 1, 0, 1 - p_, regularized=True), n)


def hp_truncated_binomial_logits(x, n, l, low, high):
    import mpmath as mp
    valid = not math.isnan(l) and n >= 0 and _is_count(n)
    q = 1 / (1 + mp.exp(mp.mpf(l))) if valid else 0
    return _hp_truncated_count(x, low, high, valid, lambda k: hp_binomial_logits(k, n, l),
                               lambda k: 1 if k >= n else mp.betainc(n - k, k + 1, 0, q, regularized=True), n)


# --- more discrete families


def _hp_nb(k, a, log_p0, log_p1):
    """log Gamma(k + a) / (Gamma(a) k!) p0^a p1^k."""
    k_, a_ = D(k), D(a)
    return hp.lgamma(k_ + a_) - hp.lgamma(a_) - hp.lgamma(k_ + 1) + a_ * log_p0 + k_ * log_p1


def hp_gamma_poisson(x, a, rate):
    if not (0 < a < INF and 0 < rate < INF) or math.isnan(x):
        return NAN
    if not _is_count(x) or x < 0:
        return -INF
    r = D(rate)
    return _fin(_hp_nb(x, a, (r / (1 + r)).ln(), -hp.log1p(r)))


def hp_negative_binomial2(x, mean, conc):
    if not (0 < mean < INF and 0 < conc < INF) or math.isnan(x):
        return NAN
    if not _is_count(x) or x < 0:
        return -INF
    m, c = D(mean), D(conc)
    return _fin(_hp_nb(x, conc, (c / (c + m)).ln(), (m / (c + m)).ln()))


def hp_negative_binomial_probs(x, n, p):
    if not (0 < n < INF and 0 <= p < 1) or math.isnan(x):
        return NAN
    if not _is_count(x) or x < 0:
        return -INF
    if p == 0:
        return 0.0 if x == 0 else -INF
    return _fin(_hp_nb(x, n, hp.log1p(-D(p)), D(p).ln()))


def hp_negative_binomial_logits(x, n, l):
    if not (0 < n < INF) or math.isnan(l) or l == INF or math.isnan(x):
        return NAN
    if not _is_count(x) or x < 0:
        return -INF
    if l == -INF:
        return 0.0 if x == 0 else -INF
    return _fin(_hp_nb(x, n, _hp_log_sigmoid(-l), _hp_log_sigmoid(l)))


def _hp_zero_inflated(x, log_gate, log_keep, base):
    """base: the base log mass (a float, -inf allowed); logs are Decimals or
    None for log(0)."""
    if x == 0:
        terms = []
        if log_gate is not None:
            terms.append(log_gate)
        if log_keep is not None and base != -INF:
            terms.append(log_keep + D(base))
        if not terms:
            return -INF
        m = max(terms)
        return _fin(m + sum((t - m).exp() for t in terms).ln())
    if log_keep is None or base == -INF:
        return -INF
    return _fin(log_keep + D(base))


def hp_zero_inflated_poisson(x, gate, rate):
    if not (0 <= gate <= 1) or not (0 <= rate < INF) or math.isnan(x):
        return NAN
    if not _is_count(x) or x < 0:
        return -INF
    lg = None if gate == 0 else D(gate).ln()
    lk = None if gate == 1 else hp.log1p(-D(gate))
    return _hp_zero_inflated(x, lg, lk, hp_poisson(x, rate))


def hp_zero_inflated_poisson_logits(x, rate, g):
    if math.isnan(g) or not (0 <= rate < INF) or math.isnan(x):
        return NAN
    if not _is_count(x) or x < 0:
        return -INF
    lg = _hp_log_sigmoid(g) if math.isfinite(g) else (D(0) if g > 0 else None)
    lk = _hp_log_sigmoid(-g) if math.isfinite(g) else (D(0) if g < 0 else None)
    return _hp_zero_inflated(x, lg, lk, hp_poisson(x, rate))


def hp_zero_inflated_negative_binomial2(x, mean, conc, gate):
    if not (0 <= gate <= 1):
        return NAN
    base = hp_negative_binomial2(x, mean, conc)
    if math.isnan(base) or not _is_count(x) or x < 0:
        return base
    lg = None if gate == 0 else D(gate).ln()
    lk = None if gate == 1 else hp.log1p(-D(gate))
    return _hp_zero_inflated(x, lg, lk, base)


def hp_zero_inflated_negative_binomial2_logits(x, mean, conc, g):
    if math.isnan(g):
        return NAN
    base = hp_negative_binomial2(x, mean, conc)
    if math.isnan(base) or not _is_count(x) or x < 0:
        return base
    lg = _hp_log_sigmoid(g) if math.isfinite(g) else (D(0) if g > 0 else None)
    lk = _hp_log_sigmoid(-g) if math.isfinite(g) else (D(0) if g < 0 else None)
    return _hp_zero_inflated(x, lg, lk, base)


def hp_beta_binomial(x, a, b, n):
    if not (0 < a < INF and 0 < b < INF) or not (n >= 0 and _is_count(n)) or math.isnan(x):
        return NAN
    if not _is_count(x) or x < 0 or x > n:
        return -INF
    k_, n_ = D(x), D(n)
    return _fin(hp.lgamma(n_ + 1) - hp.lgamma(k_ + 1) - hp.lgamma(n_ - k_ + 1) + hp.lbeta(k_ + D(a), n_ - k_ + D(b))
                - hp.lbeta(a, b))


def _hp_hurdle(x, gate, base, log_positive):
    """Hurdle: log(gate) at 0, else log(1 - gate) + base - log_positive
    (Decimal or None for log(1) of the continuous bases)."""
    if x == 0:
        return -INF if gate == 0 else _fin(D(gate).ln())
    if gate == 1 or base == -INF:
        return -INF
    v = hp.log1p(-D(gate)) + D(base)
    if log_positive is not None:
        v -= log_positive
    return _fin(v)


def hp_hurdle_poisson(x, gate, rate):
    if not (0 <= gate <= 1) or not (0 < rate < INF) or math.isnan(x):
        return NAN
    if not _is_count(x) or x < 0:
        return -INF
    return _hp_hurdle(x, gate, hp_poisson(x, rate), hp.log1p(-(-D(rate)).exp()))


def hp_hurdle_negative_binomial2(x, gate, mean, conc):
    if not (0 <= gate <= 1) or not (0 < mean < INF and 0 < conc < INF) or math.isnan(x):
        return NAN
    if not _is_count(x) or x < 0:
        return -INF
    m, c = D(mean), D(conc)
    p0 = (c * (c / (c + m)).ln()).exp()
    return _hp_hurdle(x, gate, hp_negative_binomial2(x, mean, conc), hp.log1p(-p0))


def hp_hurdle_gamma(x, gate, a, rate):
    if not (0 <= gate <= 1) or not (0 < a < INF and 0 < rate < INF) or math.isnan(x):
        return NAN
    return _hp_hurdle(x, gate, hp_gamma(x, a, rate) if x != 0 else 0.0, None)


def hp_hurdle_log_normal(x, gate, loc, scale):
    if not (0 <= gate <= 1) or not _loc_scale_ok(loc, scale) or math.isnan(x):
        return NAN
    return _hp_hurdle(x, gate, hp_log_normal(x, loc, scale) if x != 0 else 0.0, None)



def hp_asymmetric_laplace(x, loc, scale, k):
    if not _loc_scale_ok(loc, scale) or not (0 < k < INF) or math.isnan(x):
        return NAN
    if math.isinf(x):
        return -INF
    left, right = D(scale) * D(k), D(scale) / D(k)
    z = D(x) - D(loc)
    return _fin(-abs(z) / (left if z < 0 else right) - (left + right).ln())


def hp_kumaraswamy(x, a, b):
    if not (0 < a < INF and 0 < b < INF) or math.isnan(x):
        return NAN
    if x < 0 or x > 1:
        return -INF
    a_, b_ = D(a), D(b)
    if x == 0:
        return INF if a < 1 else (_fin(a_.ln() + b_.ln()) if a == 1 else -INF)
    if x == 1:
        return INF if b < 1 else (_fin(a_.ln() + b_.ln()) if b == 1 else -INF)
    x_ = D(x)
    return _fin(a_.ln() + b_.ln() + (a_ - 1) * x_.ln() + (b_ - 1) * (1 - (a_ * x_.ln()).exp()).ln())


def hp_log_uniform(x, low, high):
    if not (0 < low < INF and 0 < high < INF and low < high) or math.isnan(x):
        return NAN
    if x < low or x > high:
        return -INF
    return _fin(-D(x).ln() - (D(high).ln() - D(low).ln()).ln())


def hp_beta_proportion(x, m, c):
    if not (0 < m < 1 and 0 < c < INF):
        return NAN
    return hp_beta(x, D(m) * D(c), (1 - D(m)) * D(c))


def hp_chi2(x, df):
    if not (0 < df < INF):
        return NAN
    return hp_gamma(x, df / 2, 0.5)


def hp_geometric(x, p):
    if not (0 < p <= 1) or math.isnan(x):
        return NAN
    if not _is_count(x) or x < 0:
        return -INF
    if p == 1:
        return 0.0 if x == 0 else -INF
    return _fin(D(p).ln() + D(x) * hp.log1p(-D(p)))


def hp_geometric_logits(x, l):
    if math.isnan(l) or l == -INF or math.isnan(x):
        return NAN
    if not _is_count(x) or x < 0:
        return -INF
    if l == INF:
        return 0.0 if x == 0 else -INF
    return _fin(_hp_log_sigmoid(l) + D(x) * _hp_log_sigmoid(-l))


# ------------------------------------------------------------ scipy versions


def sp_value(dist, params, x):
    with np.errstate(all="ignore"):
        if dist == "normal":
            return st.norm.logpdf(x, params[0], params[1])
        if dist == "half_normal":
            return st.halfnorm.logpdf(x, scale=params[0])
        if dist == "log_normal":
            return st.lognorm.logpdf(x, s=params[1], scale=math.exp(params[0]) if math.isfinite(params[0]) else NAN)
        if dist == "exponential":
            return st.expon.logpdf(x, scale=1.0 / params[0] if params[0] != 0 else NAN)
        if dist == "gamma":
            return st.gamma.logpdf(x, params[0], scale=1.0 / params[1] if params[1] != 0 else NAN)
        if dist == "beta":
            return st.beta.logpdf(x, params[0], params[1])
        if dist == "uniform":
            return st.uniform.logpdf(x, loc=params[0], scale=params[1] - params[0])
        if dist == "cauchy":
            return st.cauchy.logpdf(x, params[0], params[1])
        if dist == "half_cauchy":
            return st.halfcauchy.logpdf(x, scale=params[0])
        if dist == "student_t":
            return st.t.logpdf(x, params[0], params[1], params[2])
        if dist == "bernoulli":
            return st.bernoulli.logpmf(x, params[0])
        if dist == "bernoulli_logits":
            return st.bernoulli.logpmf(x, sc.expit(params[0]))
        if dist == "binomial":
            return st.binom.logpmf(x, params[0], params[1])
        if dist == "binomial_logits":
            return st.binom.logpmf(x, params[0], sc.expit(params[1]))
        if dist == "poisson":
            return st.poisson.logpmf(x, params[0])
        if dist == "laplace":
            return st.laplace.logpdf(x, params[0], params[1])
        if dist == "logistic":
            return st.logistic.logpdf(x, params[0], params[1])
        if dist == "gumbel":
            return st.gumbel_r.logpdf(x, params[0], params[1])
        if dist == "inverse_gamma":
            return st.invgamma.logpdf(x, params[0], scale=params[1])
        if dist == "pareto":
            return st.pareto.logpdf(x, params[1], scale=params[0])
        if dist == "weibull":
            return st.weibull_min.logpdf(x, params[1], scale=params[0])
        if dist.startswith("truncated_") and dist != "truncated_normal":
            *base, low, high = params
            frozen = {
                "truncated_exponential": lambda: st.expon(scale=1 / base[0]),
                "truncated_weibull": lambda: st.weibull_min(base[1], scale=base[0]),
                "truncated_gumbel": lambda: st.gumbel_r(base[0], base[1]),
                "truncated_pareto": lambda: st.pareto(base[1], scale=base[0]),
                "truncated_gamma": lambda: st.gamma(base[0], scale=1 / base[1]),
                "truncated_inverse_gamma": lambda: st.invgamma(base[0], scale=base[1]),
                "truncated_log_normal": lambda: st.lognorm(base[1], scale=math.exp(base[0])),
                "truncated_half_normal": lambda: st.halfnorm(scale=base[0]),
                "truncated_half_cauchy": lambda: st.halfcauchy(scale=base[0]),
                "truncated_beta": lambda: st.beta(base[0], base[1]),
                "truncated_uniform": lambda: st.uniform(base[0], base[1] - base[0]),
                "truncated_log_uniform": lambda: st.loguniform(base[0], base[1]),
                "truncated_asymmetric_laplace": lambda: st.laplace_asymmetric(base[2], base[0], base[1]),
                "truncated_chi2": lambda: st.chi2(base[0]),
                "truncated_beta_proportion": lambda: st.beta(base[0] * base[1], (1 - base[0]) * base[1]),
                "truncated_poisson": lambda: st.poisson(base[0]),
                "truncated_negative_binomial2": lambda: st.nbinom(base[1], base[1] / (base[1] + base[0])),
                "truncated_binomial": lambda: st.binom(base[0], base[1]),
                "truncated_binomial_logits": lambda: st.binom(base[0], sc.expit(base[1])),
            }.get(dist)
            if frozen is None:  # Kumaraswamy: not in scipy; its closed form
                a, b = base
                if math.isnan(x) or not low < high or low >= 1:
                    return NAN
                if not (low <= x <= high) or not (0 <= x <= 1):
                    return -INF
                cdf = lambda v: 0.0 if v <= 0 else (1.0 if v >= 1 else 1 - (1 - v ** a) ** b)
                return (np.log(a) + np.log(b) + (a - 1) * np.log(x) + (b - 1) * np.log1p(-x ** a)
                        - np.log(cdf(high) - cdf(low)))
            frozen = frozen()
            if dist in ("truncated_poisson", "truncated_negative_binomial2", "truncated_binomial",
                        "truncated_binomial_logits"):
                lo_k = max(math.ceil(low), 0) if math.isfinite(low) else 0
                up_k = math.floor(high) if math.isfinite(high) else INF
                if math.isnan(x) or lo_k > up_k:
                    return NAN
                if not (lo_k <= x <= up_k) or math.isinf(x) or x != math.floor(x):
                    return -INF
                mass = (1.0 if up_k == INF else frozen.cdf(up_k)) - (frozen.cdf(lo_k - 1) if lo_k > 0 else 0.0)
                return frozen.logpmf(x) - np.log(mass)
            if math.isnan(x) or not low < high:
                return NAN
            if not (low <= x <= high):
                return -INF
            return frozen.logpdf(x) - np.log(frozen.cdf(high) - frozen.cdf(low))
        if dist == "truncated_normal":
            loc, scale, low, high = params
            if not (scale > 0) or not low < high:
                return NAN
            return st.truncnorm.logpdf(x, (low - loc) / scale, (high - loc) / scale, loc, scale)
        if dist == "gamma_poisson":
            a, r = params
            return st.nbinom.logpmf(x, a, r / (1 + r))
        if dist == "negative_binomial2":
            m, c = params
            return st.nbinom.logpmf(x, c, c / (c + m))
        if dist == "negative_binomial_probs":
            return st.nbinom.logpmf(x, params[0], 1 - params[1])
        if dist == "negative_binomial_logits":
            return st.nbinom.logpmf(x, params[0], sc.expit(-params[1]))
        if dist in ("zero_inflated_poisson", "zero_inflated_poisson_logits",
                    "zero_inflated_negative_binomial2", "zero_inflated_negative_binomial2_logits"):
            if dist == "zero_inflated_poisson":
                g, base = params[0], st.poisson.logpmf(x, params[1])
            elif dist == "zero_inflated_poisson_logits":
                g, base = sc.expit(params[1]), st.poisson.logpmf(x, params[0])
            else:
                m, c = params[0], params[1]
                g = params[2] if dist.endswith("2") else sc.expit(params[2])
                base = st.nbinom.logpmf(x, c, c / (c + m))
            if x == 0:
                return np.logaddexp(np.log(g), np.log1p(-g) + base)
            return np.log1p(-g) + base
        if dist == "asymmetric_laplace":
            loc, scale, k = params
            return st.laplace_asymmetric.logpdf(x, k, loc, scale)
        if dist == "kumaraswamy":
            a, b = params
            if not (0 <= x <= 1):
                return -INF
            return np.log(a) + np.log(b) + (a - 1) * np.log(x) + (b - 1) * np.log1p(-x ** a)
        if dist == "log_uniform":
            return st.loguniform.logpdf(x, params[0], params[1])
        if dist == "beta_proportion":
            m, c = params
            return st.beta.logpdf(x, m * c, (1 - m) * c)
        if dist == "chi2":
            return st.chi2.logpdf(x, params[0])
        if dist == "geometric":
            return st.geom.logpmf(x + 1, params[0])
        if dist == "geometric_logits":
            return st.geom.logpmf(x + 1, sc.expit(params[0]))
        if dist.startswith("hurdle_"):
            g = params[0]
            if not (0 <= g <= 1):
                return NAN
            if dist == "hurdle_poisson":
                base = st.poisson.logpmf(x, params[1]) - np.log(-np.expm1(-params[1]))
            elif dist == "hurdle_negative_binomial2":
                m, c = params[1], params[2]
                base = st.nbinom.logpmf(x, c, c / (c + m)) - np.log(-np.expm1(c * np.log(c / (c + m))))
            elif dist == "hurdle_gamma":
                base = st.gamma.logpdf(x, params[1], scale=1.0 / params[2])
            else:
                base = st.lognorm.logpdf(x, s=params[2], scale=math.exp(params[1]))
            if math.isnan(base) or math.isnan(x):
                return NAN
            return np.log(g) if x == 0 else np.log1p(-g) + base
        if dist == "beta_binomial":
            return st.betabinom.logpmf(x, params[2], params[0], params[1])
    raise ValueError(dist)


HP = {
    "normal": hp_normal,
    "half_normal": hp_half_normal,
    "log_normal": hp_log_normal,
    "exponential": hp_exponential,
    "gamma": hp_gamma,
    "beta": hp_beta,
    "uniform": hp_uniform,
    "cauchy": hp_cauchy,
    "half_cauchy": hp_half_cauchy,
    "student_t": hp_student_t,
    "bernoulli": hp_bernoulli,
    "bernoulli_logits": hp_bernoulli_logits,
    "binomial": hp_binomial,
    "binomial_logits": hp_binomial_logits,
    "poisson": hp_poisson,
    "laplace": hp_laplace,
    "logistic": hp_logistic,
    "gumbel": hp_gumbel,
    "inverse_gamma": hp_inverse_gamma,
    "pareto": hp_pareto,
    "weibull": hp_weibull,
    "truncated_normal": hp_truncated_normal,
    "truncated_exponential": hp_truncated_exponential,
    "truncated_weibull": hp_truncated_weibull,
    "truncated_gumbel": hp_truncated_gumbel,
    "truncated_pareto": hp_truncated_pareto,
    "truncated_gamma": hp_truncated_gamma,
    "truncated_inverse_gamma": hp_truncated_inverse_gamma,
    "truncated_log_normal": hp_truncated_log_normal,
    "truncated_half_normal": hp_truncated_half_normal,
    "truncated_half_cauchy": hp_truncated_half_cauchy,
    "truncated_beta": hp_truncated_beta,
    "truncated_kumaraswamy": hp_truncated_kumaraswamy,
    "truncated_uniform": hp_truncated_uniform,
    "truncated_log_uniform": hp_truncated_log_uniform,
    "truncated_asymmetric_laplace": hp_truncated_asymmetric_laplace,
    "truncated_chi2": hp_truncated_chi2,
    "truncated_beta_proportion": hp_truncated_beta_proportion,
    "truncated_poisson": hp_truncated_poisson,
    "truncated_negative_binomial2": hp_truncated_negative_binomial2,
    "truncated_binomial": hp_truncated_binomial,
    "truncated_binomial_logits": hp_truncated_binomial_logits,
    "gamma_poisson": hp_gamma_poisson,
    "negative_binomial2": hp_negative_binomial2,
    "negative_binomial_probs": hp_negative_binomial_probs,
    "negative_binomial_logits": hp_negative_binomial_logits,
    "zero_inflated_poisson": hp_zero_inflated_poisson,
    "zero_inflated_poisson_logits": hp_zero_inflated_poisson_logits,
    "zero_inflated_negative_binomial2": hp_zero_inflated_negative_binomial2,
    "zero_inflated_negative_binomial2_logits": hp_zero_inflated_negative_binomial2_logits,
    "beta_binomial": hp_beta_binomial,
    "hurdle_poisson": hp_hurdle_poisson,
    "asymmetric_laplace": hp_asymmetric_laplace,
    "kumaraswamy": hp_kumaraswamy,
    "log_uniform": hp_log_uniform,
    "beta_proportion": hp_beta_proportion,
    "chi2": hp_chi2,
    "geometric": hp_geometric,
    "geometric_logits": hp_geometric_logits,
    "hurdle_negative_binomial2": hp_hurdle_negative_binomial2,
    "hurdle_gamma": hp_hurdle_gamma,
    "hurdle_log_normal": hp_hurdle_log_normal,
}

# --------------------------------------------------------------- test points

rows = []


def add(dist, params, xs):
    params = [f32(p) for p in params]
    for x in xs:
        x = f32(x)
        rows.append((dist, params, x))


SPECIAL_X = [NAN, INF, -INF]

# Normal
for loc, scale in [(0, 1), (1.5, 0.25), (-3, 20), (1000, 1e-3), (0, 1e-30), (1e30, 1e25)]:
    xs = [loc + scale * z for z in (0, 0.3, -0.5, 1, -2, 3.5, 10, -40)] + [1e30, -1e30] + SPECIAL_X
    add("normal", [loc, scale], xs)
add("normal", [0, 0], [0.5])
add("normal", [0, -1], [0.5])
add("normal", [NAN, 1], [0.5])
add("normal", [INF, 1], [0.5])
add("normal", [0, INF], [0.5])

# HalfNormal
for scale in (1, 0.3, 250, 1e-20):
    add("half_normal", [scale], [0, scale * 0.1, scale, scale * 2.5, scale * 12, -scale, -1e-30] + SPECIAL_X)
add("half_normal", [0], [1])
add("half_normal", [-2], [1])
add("half_normal", [NAN], [1])

# LogNormal
for loc, scale in [(0, 1), (2, 0.5), (-5, 3), (10, 1e-3)]:
    xs = [math.exp(loc + scale * z) for z in (0, 0.7, -1.3, 3, -6)] + [0, -1, 1e-30, 1e30] + SPECIAL_X
    add("log_normal", [loc, scale], xs)
add("log_normal", [0, 0], [1])
add("log_normal", [0, -1], [1])

# Exponential
for rate in (1, 0.01, 37.5, 1e6):
    add("exponential", [rate], [0, 0.3 / rate, 1 / rate, 7 / rate, 80 / rate, -1e-30, -1] + SPECIAL_X)
add("exponential", [0], [1])
add("exponential", [-1], [1])

# Gamma
for a, rate in [(1, 1), (0.5, 1), (0.01, 3), (2.5, 0.5), (7, 2), (30, 1), (1e3, 4), (1e6, 1), (1e-3, 1e-3),
                (0.3, 100)]:
    mean = a / rate
    sd = math.sqrt(a) / rate
    xs = [mean, mean + sd, max(mean - 0.5 * sd, mean * 0.01), mean + 5 * sd, mean * 1e-6, mean * 50, 0, -1] + SPECIAL_X
    if a < 1:
        xs += [1e-30, 1e-10, 1e-3]
    add("gamma", [a, rate], xs)
add("gamma", [0, 1], [1])
add("gamma", [1, 0], [1])
add("gamma", [-1, 1], [1])
add("gamma", [NAN, 1], [1])

# Beta
for a, b in [(1, 1), (0.5, 0.5), (2, 5), (5, 2), (1, 3), (3, 1), (0.2, 7), (2.5, 2.5), (40, 60), (1e3, 2e3),
             (1e6, 1e6), (1.5, 1e6), (1e5, 3), (0.01, 0.02)]:
    m = a / (a + b)
    xs = [m, 0.5, 0.1, 0.9, 0.001, 0.999, 0, 1, -0.1, 1.1, 1e-20] + [NAN, INF]
    if a > 10 and b > 10:
        sd = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
        xs += [m + sd, m - 2 * sd, m + 6 * sd]
    add("beta", [a, b], xs)
add("beta", [0, 1], [0.5])
add("beta", [1, -1], [0.5])
add("beta", [NAN, 1], [0.5])

# Uniform
for low, high in [(0, 1), (-2, 5), (1e3, 1e3 + 0.125), (-1e30, 1e30)]:
    add("uniform", [low, high], [low, high, 0.5 * (low + high), low - 1, high + 1, low + 0.25 * (high - low)] + SPECIAL_X)
add("uniform", [1, 1], [1])
add("uniform", [2, 1], [1.5])
add("uniform", [0, INF], [1])

# Cauchy
for loc, scale in [(0, 1), (3, 0.1), (-100, 25)]:
    xs = [loc + scale * z for z in (0, 0.5, -1, 3, 100, -1e6)] + [1e30, -1e35] + SPECIAL_X
    add("cauchy", [loc, scale], xs)
add("cauchy", [0, 0], [1])

# HalfCauchy
for scale in (1, 0.05, 300):
    add("half_cauchy", [scale], [0, 0.5 * scale, scale, 10 * scale, 1e8 * scale, -scale, 1e30] + SPECIAL_X)
add("half_cauchy", [-1], [1])

# StudentT
for df, loc, scale in [(1, 0, 1), (3, 0, 1), (2.5, -1, 2), (30, 5, 0.5), (0.3, 0, 1), (1e6, 0, 1), (1e10, 1, 3),
                       (7, 1e3, 1e-2)]:
    xs = [loc + scale * z for z in (0, 0.5, -1.5, 3, -8, 50, 1e5)] + [1e30] + SPECIAL_X
    add("student_t", [df, loc, scale], xs)
add("student_t", [0, 0, 1], [1])
add("student_t", [INF, 0, 1], [1, -3.5, 1e30, INF])
add("student_t", [3, 0, 0], [1])

# Bernoulli
for p in (0, 1, 0.5, 0.3, 1e-7, 1 - 2 ** -20):
    add("bernoulli", [p], [0, 1, 2, -1, 0.5] + SPECIAL_X)
add("bernoulli", [1.5], [1])
add("bernoulli", [-0.1], [0])
add("bernoulli", [NAN], [0])
for l in (0, 2.5, -2.5, 30, -30, 200, -200, 1e4, INF, -INF):
    add("bernoulli_logits", [l], [0, 1, 2, 0.5] + SPECIAL_X)
add("bernoulli_logits", [NAN], [1])

# Binomial
for n, p in [(0, 0.3), (1, 0.3), (10, 0.5), (20, 0.05), (20, 0.95), (100, 0.01), (1000, 0.3), (1e6, 0.5),
             (1e6, 1e-6), (1e7, 0.25), (50, 0), (50, 1), (16777216, 0.001)]:
    mean = n * p
    sd = math.sqrt(n * p * (1 - p))
    xs = {0, n, math.floor(mean), math.floor(mean + sd), max(0, math.floor(mean - 2 * sd)), math.floor(mean + 7 * sd),
          min(n, 1), max(0, n - 1)}
    xs = sorted(v for v in xs if 0 <= v <= n)
    xs += [-1, n + 1, 0.5, 1e30] + SPECIAL_X
    add("binomial", [n, p], xs)
add("binomial", [10.5, 0.3], [3])
add("binomial", [-1, 0.3], [0])
add("binomial", [10, 1.2], [3])
add("binomial", [10, NAN], [3])
add("binomial", [INF, 0.3], [3])
for n, l in [(10, 0), (10, 3), (10, -3), (1000, -8), (1000, 8), (1e6, 0.25), (30, 50), (30, -50), (5, INF),
             (5, -INF)]:
    p = sc.expit(l)
    mean = n * p
    sd = math.sqrt(n * p * (1 - p))
    xs = sorted({0, n, math.floor(mean), min(n, math.floor(mean + 2 * sd + 1)), 1, n - 1})
    xs += [-1, n + 1, 2.5] + SPECIAL_X
    add("binomial_logits", [n, l], xs)
add("binomial_logits", [10, NAN], [3])
add("binomial_logits", [-3, 0], [0])

# Poisson
for rate in (0, 0.5, 1, 5, 30, 1e4 + 0.25, 1e8, 1e-10):
    sd = math.sqrt(rate)
    xs = sorted({0, 1, 2, math.floor(rate), math.floor(rate + sd), max(0, math.floor(rate - 3 * sd)),
                 math.floor(rate + 10 * sd + 3), 1000})
    xs += [-1, 2.5, 1e30] + SPECIAL_X
    add("poisson", [rate], xs)
add("poisson", [-1], [0])
add("poisson", [INF], [0])
add("poisson", [NAN], [0])

# Laplace, Logistic, Gumbel
for dist in ("laplace", "logistic", "gumbel"):
    for loc, scale in [(0, 1), (1.5, 0.25), (-3, 7)]:
        xs = [loc, loc + 0.3 * scale, loc - 0.5 * scale, loc + 2 * scale, loc - 4 * scale, loc + 30 * scale,
              loc - 30 * scale, 1e30, -1e30] + SPECIAL_X
        add(dist, [loc, scale], xs)
    add(dist, [0, 0], [0.5])
    add(dist, [0, -1], [0.5])
    add(dist, [NAN, 1], [0.5])
    add(dist, [INF, 1], [0.5])

# InverseGamma
for a, rate in [(1, 1), (3, 2), (0.5, 0.1), (20, 15), (1e-3, 1), (1e3, 500)]:
    mode = rate / (a + 1)
    add("inverse_gamma", [a, rate], [mode, mode * 0.1, mode * 3, mode * 100, 1e-6, 1e6, 0, -1, 1e30] + SPECIAL_X)
add("inverse_gamma", [0, 1], [1])
add("inverse_gamma", [2, -1], [1])
add("inverse_gamma", [NAN, 1], [1])

# Pareto
for scale, alpha in [(1, 1), (2, 3.5), (0.1, 0.5), (10, 40)]:
    add("pareto", [scale, alpha], [scale, scale * 1.0001, scale * 2, scale * 100, scale * 0.999, 0, -1, 1e30]
        + SPECIAL_X)
add("pareto", [0, 1], [1])
add("pareto", [1, -2], [2])

# Weibull
for scale, k in [(1, 1), (2, 1.5), (0.5, 0.3), (10, 8)]:
    add("weibull", [scale, k], [0, scale * 1e-6, scale * 0.5, scale, scale * 2, scale * 5, -1, 1e30] + SPECIAL_X)
add("weibull", [0, 1], [1])
add("weibull", [1, 0], [1])

# TruncatedNormal
for loc, scale, low, high in [(0, 1, 0, INF), (0, 1, -1, 2.5), (1.5, 0.3, -INF, 1), (0, 1, 3, INF),
                              (0, 1, 8, 9), (0, 2, -INF, -10), (-1, 0.5, -1.2, -0.8), (2, 1, -INF, INF)]:
    xs = [v for v in (low, high, loc, (max(low, -50) + min(high, 50)) / 2, low + 1e-3, high - 1e-3, loc + scale)
          if math.isfinite(v)]
    xs += [low - 1 if math.isfinite(low) else -1e30, high + 1 if math.isfinite(high) else 1e30] + SPECIAL_X
    add("truncated_normal", [loc, scale, low, high], xs)
add("truncated_normal", [0, 1, 2, 1], [1.5])
add("truncated_normal", [0, -1, 0, 1], [0.5])
add("truncated_normal", [0, 1, NAN, 1], [0.5])

# Negative binomials
COUNT_X = [-1, 2.5, 1e30] + SPECIAL_X
for a, r in [(1, 1), (2.5, 0.5), (0.1, 0.01), (100, 2), (1e4, 1e3), (3, 1e-6)]:
    m = a / r
    sd = math.sqrt(m + m / r)
    add("gamma_poisson", [a, r], sorted({0, 1, 2, math.floor(m), math.floor(m + 2 * sd), math.floor(m + 8 * sd) + 1})
        + COUNT_X)
add("gamma_poisson", [0, 1], [1])
add("gamma_poisson", [1, 0], [1])
for m, c in [(1, 1), (4, 1.5), (0.05, 3), (100, 0.5), (1e5, 20), (3, 1e4)]:
    sd = math.sqrt(m + m * m / c)
    add("negative_binomial2", [m, c], sorted({0, 1, 2, math.floor(m), math.floor(m + 2 * sd),
                                              math.floor(m + 8 * sd) + 1}) + COUNT_X)
add("negative_binomial2", [0, 1], [1])
add("negative_binomial2", [1, -1], [1])
for n, p in [(1, 0.5), (3, 0.4), (0.5, 0.9), (50, 0.01), (20, 0)]:
    m = n * p / (1 - p)
    sd = math.sqrt(n * p) / (1 - p)
    add("negative_binomial_probs", [n, p], sorted({0, 1, math.floor(m), math.floor(m + 3 * sd) + 1, 100})
        + COUNT_X)
add("negative_binomial_probs", [3, 1], [1])
add("negative_binomial_probs", [0, 0.5], [1])
for n, l in [(1, 0), (3, 0.5), (10, -4), (2, 6), (5, -INF)]:
    add("negative_binomial_logits", [n, l], [0, 1, 2, 5, 30, 400] + COUNT_X)
add("negative_binomial_logits", [3, INF], [1])
add("negative_binomial_logits", [3, NAN], [1])

# Zero-inflated counts
for g, rate in [(0.3, 4), (0, 2), (1, 2), (0.9, 0.01), (1e-6, 30)]:
    add("zero_inflated_poisson", [g, rate], [0, 1, 3, 10, 60] + COUNT_X)
add("zero_inflated_poisson", [1.5, 1], [0])
add("zero_inflated_poisson", [0.5, -1], [0])
for rate, g in [(4, -0.5), (2, 3), (0.5, -20), (10, 0), (3, INF), (3, -INF)]:
    add("zero_inflated_poisson_logits", [rate, g], [0, 1, 4, 25] + COUNT_X)
add("zero_inflated_poisson_logits", [1, NAN], [0])
for m, c, g in [(3, 2, 0.2), (50, 0.5, 0.7), (0.1, 10, 0), (2, 1, 1)]:
    add("zero_inflated_negative_binomial2", [m, c, g], [0, 1, 3, 20, 500] + COUNT_X)
add("zero_inflated_negative_binomial2", [3, 2, -0.1], [0])
for m, c, g in [(3, 2, -1), (50, 0.5, 2), (0.1, 10, -30)]:
    add("zero_inflated_negative_binomial2_logits", [m, c, g], [0, 1, 3, 20, 500] + COUNT_X)

# BetaBinomial
for a, b, n in [(2, 3, 10), (0.5, 0.5, 1), (1, 1, 100), (30, 0.2, 1000), (0.01, 5, 20)]:
    add("beta_binomial", [a, b, n], sorted({0, 1, n // 2, n - 1, n}) + [-1, n + 1, 2.5] + SPECIAL_X)
add("beta_binomial", [2, 3, 2.5], [1])
add("beta_binomial", [0, 3, 5], [1])

# Truncations of the positive families (TruncatedByCdf.h): the interval on
# the lower side, straddling the median, far in the upper tail, one-sided.
def add_trunc(dist, base, bounds, xs_of):
    for low, high in bounds:
        add(dist, base + [low, high], xs_of(low, high))


def _trunc_xs(low, high):
    lo = low if math.isfinite(low) else -5
    hi = high if math.isfinite(high) else lo + 50
    return [lo, hi, (lo + hi) / 2, lo + (hi - lo) * 0.01, lo - 1, hi + 1] + SPECIAL_X


add_trunc("truncated_exponential", [0.5], [(1, 3), (0, 0.5), (20, 40), (5, INF), (-INF, 2)], _trunc_xs)
add_trunc("truncated_weibull", [2, 1.5], [(0.5, 3), (4, INF), (0, 0.1)], _trunc_xs)
add_trunc("truncated_gumbel", [1, 2], [(-2, 0), (3, 8), (20, INF), (-INF, -3)], _trunc_xs)
add_trunc("truncated_pareto", [1, 3], [(1.5, 4), (10, INF), (0, 2)], _trunc_xs)
add_trunc("truncated_gamma", [2, 0.1], [(1, 80), (0, 5), (100, INF), (150, 200)], _trunc_xs)
add_trunc("truncated_gamma", [0.5, 2], [(0.01, 1), (3, 5)], _trunc_xs)
add_trunc("truncated_inverse_gamma", [3, 2], [(0.5, 2), (0, 0.2), (5, INF)], _trunc_xs)
add_trunc("truncated_log_normal", [0, 1], [(0.5, 2), (10, 50), (0, 0.1), (3, INF)], _trunc_xs)
add_trunc("truncated_half_normal", [2], [(1, 3), (-1, 1), (8, INF)], _trunc_xs)
add_trunc("truncated_half_cauchy", [1], [(0.5, 5), (-3, 2), (30, INF)], _trunc_xs)
add("truncated_gamma", [2, 0.1, 5, 1], [3])
add("truncated_gamma", [-1, 0.1, 1, 5], [3])
add("truncated_exponential", [1, -3, -1], [-2])
# On the unit interval: Beta by the incomplete beta, Kumaraswamy in closed
# form; an interval past the support is invalid.
add_trunc("truncated_beta", [2, 5], [(0.1, 0.4), (0.6, 0.95), (0.9, INF), (-INF, 0.05)], _trunc_xs)
add_trunc("truncated_beta", [0.5, 0.5], [(0.01, 0.2), (0.4, 0.6)], _trunc_xs)
add_trunc("truncated_beta", [40, 300], [(0.2, 0.5), (0.01, 0.05)], _trunc_xs)
add_trunc("truncated_kumaraswamy", [2, 5], [(0.1, 0.4), (0.7, 1), (0.9, INF)], _trunc_xs)
add_trunc("truncated_kumaraswamy", [0.5, 3], [(0.001, 0.01), (0.3, 0.8)], _trunc_xs)
add("truncated_beta", [2, 5, 1.5, 3], [2])
add("truncated_kumaraswamy", [2, 5, 1.5, 3], [2])
add_trunc("truncated_uniform", [-1, 3], [(0, 1), (-INF, 0.5), (2.5, INF), (-5, 5)], _trunc_xs)
add("truncated_uniform", [-1, 3, 4, 5], [4.5])
add_trunc("truncated_log_uniform", [0.1, 100], [(1, 10), (0.2, 0.3), (50, INF)], _trunc_xs)
add_trunc("truncated_asymmetric_laplace", [1, 0.5, 2], [(0, 2), (-4, 0), (3, INF), (-INF, -5)], _trunc_xs)
add_trunc("truncated_asymmetric_laplace", [0, 2, 0.3], [(1, 8), (-20, -1)], _trunc_xs)
add_trunc("truncated_chi2", [3], [(1, 5), (0, 0.5), (20, INF)], _trunc_xs)
add_trunc("truncated_beta_proportion", [0.3, 10], [(0.1, 0.4), (0.7, 0.99)], _trunc_xs)
add("truncated_beta_proportion", [1.5, 10, 0.1, 0.4], [0.2])


# Counts on [low, high], both ends included (TruncatedCounts.h).
def _count_xs(low, high):
    lo = max(math.ceil(low), 0) if math.isfinite(low) else 0
    hi = math.floor(high) if math.isfinite(high) else lo + 40
    return sorted({lo, hi, (lo + hi) // 2, lo + 1}) + [lo - 1, hi + 1, lo + 0.5] + SPECIAL_X


add_trunc("truncated_poisson", [4], [(1, INF), (0, 3), (2, 7), (15, 30), (1.5, 6.5)], _count_xs)
add_trunc("truncated_poisson", [0.01], [(1, INF), (3, 10)], _count_xs)
add_trunc("truncated_poisson", [300], [(0, 250), (320, INF)], _count_xs)
add_trunc("truncated_negative_binomial2", [3, 2], [(1, INF), (0, 2), (10, 40)], _count_xs)
add_trunc("truncated_negative_binomial2", [0.05, 0.5], [(1, INF), (2, 5)], _count_xs)
add_trunc("truncated_negative_binomial2", [200, 30], [(0, 100), (300, INF)], _count_xs)
add_trunc("truncated_binomial", [20, 0.3], [(1, INF), (0, 3), (10, 20), (5, 8)], _count_xs)
add_trunc("truncated_binomial", [1000, 0.999], [(0, 990), (995, 998)], _count_xs)
add_trunc("truncated_binomial_logits", [20, -1], [(1, INF), (12, 20)], _count_xs)
add_trunc("truncated_binomial_logits", [50, 8], [(0, 45)], _count_xs)
add("truncated_poisson", [4, 5, 3], [4])
add("truncated_poisson", [-1, 0, 5], [2])
add("truncated_binomial", [10, 0.5, 11, 20], [11])

# Closed-form families (ClosedFormFamilies.h)
for loc, scale, k in [(0, 1, 1), (1.5, 0.5, 2), (-3, 4, 0.3), (0, 1e-3, 10)]:
    add("asymmetric_laplace", [loc, scale, k],
        [loc + scale * z for z in (0, 0.4, -0.4, 3, -3, 40, -40)] + SPECIAL_X)
add("asymmetric_laplace", [0, 1, 0], [0])
add("asymmetric_laplace", [0, -1, 1], [0])
for a, b in [(1, 1), (2, 5), (0.5, 0.5), (5, 0.3), (30, 200), (0.1, 3)]:
    add("kumaraswamy", [a, b], [0, 1e-6, 0.01, 0.3, 0.5, 0.9, 0.999, 1, -0.1, 1.1] + SPECIAL_X)
add("kumaraswamy", [0, 1], [0.5])
for lo, hi in [(1, 10), (1e-3, 1e3), (0.5, 0.6)]:
    add("log_uniform", [lo, hi], [lo, hi, (lo + hi) / 2, lo * 1.01, lo / 2, hi * 2] + SPECIAL_X)
add("log_uniform", [2, 1], [1.5])
add("log_uniform", [0, 1], [0.5])
for m, c in [(0.5, 2), (0.2, 10), (0.9, 0.5), (0.01, 300)]:
    add("beta_proportion", [m, c], [0, 0.001, 0.2, 0.5, 0.9, 0.999, 1, 1.5] + SPECIAL_X)
add("beta_proportion", [1, 2], [0.5])
add("beta_proportion", [0, 2], [0.5])
for df in [1, 2, 3.5, 30, 0.2]:
    add("chi2", [df], [0, 1e-4, 0.5, 1, 3, 40, -1] + SPECIAL_X)
add("chi2", [-1], [1])
for p in [0.5, 0.1, 0.9, 1, 1e-4]:
    add("geometric", [p], [0, 1, 2, 10, 300] + COUNT_X)
add("geometric", [0], [0])
add("geometric", [1.5], [0])
for l in [0, -3, 4, 30, -30, INF]:
    add("geometric_logits", [l], [0, 1, 2, 10, 300] + COUNT_X)
add("geometric_logits", [-INF], [0])
add("geometric_logits", [NAN], [0])

# Hurdles (gate: the probability of a zero)
for g, rate in [(0.3, 4), (0, 2), (1, 2), (0.9, 0.01), (1e-6, 30), (0.5, 1e-6)]:
    add("hurdle_poisson", [g, rate], [0, 1, 3, 10, 60] + COUNT_X)
add("hurdle_poisson", [1.5, 1], [0])
add("hurdle_poisson", [0.5, 0], [0, 1])
for g, m, c in [(0.2, 3, 2), (0.7, 50, 0.5), (0, 0.1, 10), (1, 2, 1), (0.4, 1e-4, 0.01)]:
    add("hurdle_negative_binomial2", [g, m, c], [0, 1, 3, 20, 500] + COUNT_X)
add("hurdle_negative_binomial2", [-0.1, 3, 2], [0])
for g, a, rate in [(0.3, 2, 1.5), (0, 0.5, 1), (1, 3, 2), (0.05, 20, 0.1)]:
    add("hurdle_gamma", [g, a, rate], [0, 1e-6, 0.5, 1, 4, 100, -1] + SPECIAL_X)
add("hurdle_gamma", [0.5, -1, 1], [0, 1])
for g, loc, scale in [(0.3, 0, 1), (0, 1.5, 0.25), (1, -1, 2), (0.6, 3, 10)]:
    add("hurdle_log_normal", [g, loc, scale], [0, 1e-6, 0.5, 1, 4, 100, -1] + SPECIAL_X)
add("hurdle_log_normal", [2, 0, 1], [0, 1])

# ------------------------------------------------------------ special funcs

special = []


def add_special(fn, args, value):
    special.append((fn, [f32(a) for a in args], value))


for x in [1e-30, 1e-8, 0.001, 0.1, 0.3, 0.5, 0.75, 0.9999, 1, 1.0000001, 1.1, 1.4999, 1.5, 1.9, 1.999999, 2,
          2.000001, 2.3, 2.5, 3, 3.7, 5.5, 9.99, 10, 10.01, 17.3, 100, 1234.5, 1e5, 1e10, 1e30, 3e38]:
    x = f32(x)
    v = hp.lgamma(x)
    add_special("log_gamma", [x], 0.0 if abs(v) < D("1e-50") else float(v))
for x in [-0.5, -1.5, -2.3, -10.7, -0.001, -100.25]:
    x = f32(x)
    # log|Gamma(x)| = log(pi / |sin(pi x)|) - lgamma(1 - x)
    v = hp.PI.ln() - D(abs(math.sin(math.pi * x))).ln() - hp.lgamma(1 - D(x))
    # refine sin(pi x) with decimals: sin via Taylor on reduced argument
    r = D(x) - 2 * (D(x) / 2).to_integral_value(rounding="ROUND_FLOOR")
    if r > 1:
        r -= 1
    if r > D("0.5"):
        r = 1 - r
    t = hp.PI * r
    s, term, k = D(0), t, 1
    while abs(term) > D("1e-60"):
        s += term
        term = -term * t * t / ((k + 1) * (k + 2))
        k += 2
    v = hp.PI.ln() - abs(s).ln() - hp.lgamma(1 - D(x))
    add_special("log_gamma", [x], float(v))
for a, b in [(1, 1), (0.5, 0.5), (2, 3), (0.01, 5), (5, 0.01), (12, 12), (12, 3), (3, 12), (1e3, 1e3), (1.5, 1e6),
             (1e6, 1e7), (1e-20, 1e-20), (20, 0.5), (0.5, 1e10)]:
    add_special("log_beta", [a, b], float(hp.lbeta(f32(a), f32(b))))
for x in [0.5, 1, 1.5, 2.25, 3.1, 7, 9.5, 9.9, 10, 10.5, 15, 100, 1e6, 1e-3]:
    add_special("stirlerr", [x], float(hp.stirlerr(f32(x))))
for x in [-1e4, -100, -20, -1, -1e-5, 0, 1e-5, 1, 20, 40, 100, 1e4]:
    add_special("softplus", [x], float(hp.softplus(f32(x))) if x < 1e3 else f32(x))
for x in [1e-30, 1e-8, 0.1, 0.5, 0.69, 0.7, 1, 5, 40, 200]:
    v = hp.log1p(-(-D(f32(x))).exp())
    add_special("log1mexp", [x], float(v))
for t in [-0.9, -0.3, -0.2, -1e-3, -1e-8, 1e-8, 1e-3, 0.1, 0.24, 0.26, 1, 100]:
    v = (1 + D(f32(t))).ln() - D(f32(t))
    add_special("log1pmx", [t], float(v))

# -------------------------------------------------------- CDF helper checks
# Values for the regularised incomplete gamma / beta and Student-t CDF the
# sampler tests implement themselves.
cdf = []
for a, x in [(0.3, 0.01), (0.3, 1), (1, 2), (2.5, 1), (2.5, 6), (10, 7), (10, 15), (100, 90), (100, 120), (0.05, 1e-5)]:
    cdf.append(("gamma_p", [a, x, 0.0], float(sc.gammainc(a, x))))
for a, b, x in [(0.5, 0.5, 0.1), (0.5, 0.5, 0.9), (2, 5, 0.3), (5, 2, 0.3), (1, 3, 0.5), (0.2, 7, 0.01),
                (40, 60, 0.42), (2.5, 2.5, 0.5), (3, 0.5, 0.99)]:
    cdf.append(("beta_i", [a, b, x], float(sc.betainc(a, b, x))))
for df, t in [(1, 0.5), (3, -2), (5, 1.2), (2.5, -0.3), (30, 2.5), (0.7, 4)]:
    cdf.append(("student_t", [df, t, 0.0], float(st.t.cdf(t, df))))


# ------------------------------------------------------------------- output


def cxx(v):
    if math.isnan(v):
        return "kNaN"
    if math.isinf(v):
        return "kInf" if v > 0 else "-kInf"
    return repr(float(v))


DISCRETE = {"bernoulli", "bernoulli_logits", "binomial", "binomial_logits", "poisson", "gamma_poisson",
            "negative_binomial2", "negative_binomial_probs", "negative_binomial_logits", "zero_inflated_poisson",
            "zero_inflated_poisson_logits", "zero_inflated_negative_binomial2",
            "zero_inflated_negative_binomial2_logits", "beta_binomial", "hurdle_poisson",
            "hurdle_negative_binomial2", "geometric", "geometric_logits"}


def float_sensitivity(dist, params, x, value):
    """Largest change of the log density, scaled by max(1, |value|), when any
    one real-valued input moves by half a float32 ulp (relative 2^-24).  This
    is the part of a float evaluation's error that no float implementation
    can avoid; the float test allows max(1e-5, 8 * sensitivity)."""
    if not math.isfinite(value):
        return 0.0
    inputs = list(params) + [x]
    fixed = set()
    if dist in DISCRETE:
        fixed.add(len(params))  # the observation is an integer
    if dist in ("binomial", "binomial_logits"):
        fixed.add(0)  # total_count
    if dist == "beta_binomial":
        fixed.add(2)  # total_count
    worst = 0.0
    for i, v in enumerate(inputs):
        if i in fixed or v == 0 or not math.isfinite(v):
            continue
        for sgn in (-1, 1):
            pert = list(inputs)
            pert[i] = v * (1 + sgn * 2.0 ** -24)
            w = HP[dist](pert[-1], *pert[:-1])
            if math.isfinite(w):
                worst = max(worst, abs(w - value) / max(1.0, abs(value)))
    return worst


def close(a, b, rtol):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= rtol * max(1.0, abs(b))


def main():
    out_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "logdensity_reference.inc")
    lines = []
    lines.append("// Generated by test/unit/math/make_reference.py (scipy %s, numpy %s). Do not edit." %
                 (scipy.__version__, np.__version__))
    lines.append("// {dist, {params}, x, expect (70-digit decimal arithmetic), scipy.stats value,")
    lines.append("//  float sensitivity (see float_sensitivity() in make_reference.py)}")
    lines.append("// All inputs are float32-exact.")
    lines.append("static const LogDensityCase kLogDensityCases[] = {")
    n_disagree = 0
    for dist, params, x in rows:
        expect = HP[dist](x, *params)
        try:
            spv = float(sp_value(dist, params, x))
        except ZeroDivisionError:  # scipy's parameterisation of invalid inputs
            spv = NAN
        if not close(spv, expect, 1e-9):
            n_disagree += 1
            print("scipy differs: %s%s x=%r  hp=%r scipy=%r" % (dist, tuple(params), x, expect, spv))
        p = list(params) + [0.0] * (5 - len(params))
        sens = float_sensitivity(dist, params, x, expect)
        lines.append('    {"%s", {%s}, %s, %s, %s, %.3g},' % (dist, ", ".join(cxx(v) for v in p), cxx(x), cxx(expect),
                                                            cxx(spv), sens))
    lines.append("};")
    lines.append("")
    lines.append("// {function, {args}, value (70-digit decimal arithmetic)}")
    lines.append("static const SpecialCase kSpecialCases[] = {")
    for fn, args, value in special:
        a = list(args) + [0.0] * (2 - len(args))
        lines.append('    {"%s", {%s}, %s},' % (fn, ", ".join(cxx(v) for v in a), cxx(value)))
    lines.append("};")
    lines.append("")
    lines.append("// {function, {args}, scipy.special / scipy.stats value}: checks the CDF helpers of the sampler tests")
    lines.append("static const CdfCase kCdfCases[] = {")
    for fn, args, value in cdf:
        lines.append('    {"%s", {%s}, %s},' % (fn, ", ".join(cxx(v) for v in args), cxx(value)))
    lines.append("};")
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %d log-density rows, %d special rows, %d cdf rows to %s (%d rows where scipy is off by > 1e-9)" %
          (len(rows), len(special), len(cdf), out_path, n_disagree))


if __name__ == "__main__":
    main()
