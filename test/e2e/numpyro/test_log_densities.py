"""Every distribution's log density against NumPyro's own `log_prob`.

For each distribution (and each probs/logits, gate/gate_logits,
scale_tril/covariance_matrix variant) a one-site model takes the
parameters as per-observation inputs, and `aimz-run log-likelihood`
scores values inside and outside the support. The reference is NumPyro's
`log_prob` in float64 on the same (rounded) parameters: our f64 models must
agree to 1e-10 and our f32 models to 1e-5, relative to max(1, |log p|).

Run by the reference environment's python (.venv, tools/setup_venv.sh);
exits 77 (skip) when NumPyro is not installed there.
"""

import os
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import reference  # noqa: F401  (NumPyro or skip; float64 JAX)
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpyro.distributions as dist  # noqa: E402
from scipy import special, stats  # noqa: E402

import aimz_e2e as E  # noqa: E402

N = 400  # observations (parameter sets) per distribution
K = 4    # event size for vector parameters


def pos(rng, shape, lo=0.2, hi=5.0):
    return np.exp(rng.uniform(np.log(lo), np.log(hi), shape))


def real(rng, shape, s=2.0):
    return rng.normal(0, s, shape)


def unit(rng, shape):
    return rng.uniform(0.02, 0.98, shape)


def simplex(rng, shape):
    return rng.dirichlet(np.ones(shape[-1]), shape[:-1])


def counts(rng, shape, hi=12):
    return rng.integers(1, hi, shape).astype(np.int32)


def spd(rng, shape):
    A = rng.normal(0, 1, shape)
    return A @ np.swapaxes(A, -1, -2) + 0.5 * np.eye(shape[-1])


def tril(rng, shape):
    L = np.tril(rng.normal(0, 0.7, shape))
    i = np.arange(shape[-1])
    L[..., i, i] = pos(rng, shape[:-1], 0.3, 2.0)
    return L


def mask(rng, shape):
    """0/1 indicators, about half set."""
    return (rng.random(shape) < 0.5).astype(np.float64)


def mix_values(v, rng, bad):
    """Values with a few outside the support (NaN-free)."""
    v = v.copy()
    idx = rng.choice(len(v), size=len(v) // 20, replace=False)
    v[idx] = bad
    return v


# name: (aimz call, {param: (trailing shape, generator)}, numpyro(params),
#        value(rng, params, numpyro_dist) -> values, value dtype, value event)
def continuous(call, params, make, outside=None):
    def value(rng, p, d):
        v = np.asarray(d.sample(jax.random.PRNGKey(rng.integers(1 << 30))))
        return v if outside is None else mix_values(v, rng, outside)
    return (call, params, make, value, "f", ())


def given_values(call, params, make, values):
    return (call, params, make, lambda rng, p, d: values(rng, p), "f", ())


def discrete(call, params, make, outside=-1):
    def value(rng, p, d):
        v = np.asarray(d.sample(jax.random.PRNGKey(rng.integers(1 << 30))))
        v = v.astype(np.int32)
        return v if outside is None else mix_values(v, rng, outside)
    return (call, params, make, value, "i", ())


S = ()
V = (K,)
CASES = {
    "normal": continuous("Normal(a, b)", dict(a=(S, real), b=(S, pos)),
                         lambda p: dist.Normal(p["a"], p["b"])),
    "halfnormal": continuous("HalfNormal(a)", dict(a=(S, pos)),
                             lambda p: dist.HalfNormal(p["a"]), -1.0),
    "lognormal": continuous("LogNormal(a, b)", dict(a=(S, real), b=(S, pos)),
                            lambda p: dist.LogNormal(p["a"], p["b"]), -1.0),
    "exponential": continuous("Exponential(a)", dict(a=(S, pos)),
                              lambda p: dist.Exponential(p["a"]), -1.0),
    "gamma": continuous("Gamma(a, b)", dict(a=(S, pos), b=(S, pos)),
                        lambda p: dist.Gamma(p["a"], p["b"]), -1.0),
    "beta": continuous("Beta(a, b)", dict(a=(S, pos), b=(S, pos)),
                       lambda p: dist.Beta(p["a"], p["b"])),
    "cauchy": continuous("Cauchy(a, b)", dict(a=(S, real), b=(S, pos)),
                         lambda p: dist.Cauchy(p["a"], p["b"])),
    "halfcauchy": continuous("HalfCauchy(a)", dict(a=(S, pos)),
                             lambda p: dist.HalfCauchy(p["a"]), -1.0),
    "studentt": continuous("StudentT(a, b, c)",
                           dict(a=(S, pos), b=(S, real), c=(S, pos)),
                           lambda p: dist.StudentT(p["a"], p["b"], p["c"])),
    "laplace": continuous("Laplace(a, b)", dict(a=(S, real), b=(S, pos)),
                          lambda p: dist.Laplace(p["a"], p["b"])),
    "logistic": continuous("Logistic(a, b)", dict(a=(S, real), b=(S, pos)),
                           lambda p: dist.Logistic(p["a"], p["b"])),
    "gumbel": continuous("Gumbel(a, b)", dict(a=(S, real), b=(S, pos)),
                         lambda p: dist.Gumbel(p["a"], p["b"])),
    "inversegamma": continuous("InverseGamma(a, b)", dict(a=(S, pos), b=(S, pos)),
                               lambda p: dist.InverseGamma(p["a"], p["b"]), -1.0),
    "pareto": continuous("Pareto(a, b)", dict(a=(S, pos), b=(S, pos)),
                         lambda p: dist.Pareto(p["a"], p["b"])),
    "weibull": continuous("Weibull(a, b)", dict(a=(S, pos), b=(S, pos)),
                          lambda p: dist.Weibull(p["a"], p["b"]), -1.0),
    # low = a + b c: NumPyro's own log_prob fails (-inf) when the interval
    # lies tens of scales into a tail, which ours handles (test/unit/math).
    "truncatednormal": continuous(
        "TruncatedNormal(a, b, low=a + b * c, high=a + b * c + 3)",
        dict(a=(S, real), b=(S, pos), c=(S, lambda r, s: r.uniform(-2, 1, s))),
        lambda p: dist.TruncatedNormal(p["a"], p["b"], low=p["a"] + p["b"] * p["c"],
                                       high=p["a"] + p["b"] * p["c"] + 3)),
    # TruncatedDistribution over every base NumPyro truncates: two-sided,
    # lower only (Stan's real<lower=0>), and an interval in the upper tail.
    "truncated_cauchy": continuous(
        "TruncatedDistribution(Cauchy(a, b), low=a + b * c, high=a + b * c + 2 * b)",
        dict(a=(S, real), b=(S, pos), c=(S, lambda r, s: r.uniform(-3, 3, s))),
        lambda p: dist.TruncatedDistribution(
            dist.Cauchy(p["a"], p["b"]), low=p["a"] + p["b"] * p["c"],
            high=p["a"] + p["b"] * p["c"] + 2 * p["b"])),
    # (NumPyro samples a truncated StudentT only with tensorflow_probability:
    # values come from scipy, and its log_prob is the reference.)
    "truncated_studentt_half": given_values(
        "TruncatedDistribution(StudentT(d, 0, b), low=0)",
        dict(d=(S, pos), b=(S, pos)),
        lambda p: dist.TruncatedDistribution(dist.StudentT(p["d"], 0, p["b"]),
                                             low=0.0),
        lambda rng, p: mix_values(np.abs(stats.t.rvs(p["d"], 0, p["b"],
                                                     random_state=rng)),
                                  rng, -1.0)),
    "truncated_studentt": given_values(
        "TruncatedDistribution(StudentT(d, a, b), low=a + b * c, high=a + b * c + b)",
        dict(d=(S, pos), a=(S, real), b=(S, pos),
             c=(S, lambda r, s: r.uniform(-4, 4, s))),
        lambda p: dist.TruncatedDistribution(
            dist.StudentT(p["d"], p["a"], p["b"]), low=p["a"] + p["b"] * p["c"],
            high=p["a"] + p["b"] * p["c"] + p["b"]),
        lambda rng, p: p["a"] + p["b"] * (p["c"] + rng.uniform(0, 1, N))),
    "truncated_laplace": continuous(
        "TruncatedDistribution(Laplace(a, b), high=a + b * c)",
        dict(a=(S, real), b=(S, pos), c=(S, lambda r, s: r.uniform(-3, 3, s))),
        lambda p: dist.TruncatedDistribution(
            dist.Laplace(p["a"], p["b"]), high=p["a"] + p["b"] * p["c"])),
    "truncated_logistic": continuous(
        "TruncatedDistribution(Logistic(a, b), a + b * c, a + b * c + b)",
        dict(a=(S, real), b=(S, pos), c=(S, lambda r, s: r.uniform(-4, 4, s))),
        lambda p: dist.TruncatedDistribution(
            dist.Logistic(p["a"], p["b"]), low=p["a"] + p["b"] * p["c"],
            high=p["a"] + p["b"] * p["c"] + p["b"])),
    "truncated_normal_base": continuous(
        "TruncatedDistribution(Normal(a, b), low=a + b * c)",
        dict(a=(S, real), b=(S, pos), c=(S, lambda r, s: r.uniform(-3, 2, s))),
        lambda p: dist.TruncatedDistribution(
            dist.Normal(p["a"], p["b"]), low=p["a"] + p["b"] * p["c"])),
    # Written as another distribution (DistributionSugar.cpp).
    "asymmetric_laplace_quantile": continuous(
        "AsymmetricLaplaceQuantile(a, b, quantile=c)",
        dict(a=(S, real), b=(S, pos), c=(S, unit)),
        lambda p: dist.AsymmetricLaplaceQuantile(p["a"], p["b"], p["c"])),
    "left_truncated": continuous(
        "LeftTruncatedDistribution(Normal(a, b), low=a + b * c)",
        dict(a=(S, real), b=(S, pos), c=(S, lambda r, s: r.uniform(-3, 2, s))),
        lambda p: dist.LeftTruncatedDistribution(
            dist.Normal(p["a"], p["b"]), low=p["a"] + p["b"] * p["c"])),
    "right_truncated": continuous(
        "RightTruncatedDistribution(Logistic(a, b), a + b * c)",
        dict(a=(S, real), b=(S, pos), c=(S, lambda r, s: r.uniform(-2, 3, s))),
        lambda p: dist.RightTruncatedDistribution(
            dist.Logistic(p["a"], p["b"]), high=p["a"] + p["b"] * p["c"])),
    "two_sided_truncated": continuous(
        "TwoSidedTruncatedDistribution(Laplace(a, b), a + b * c, a + b * c + b)",
        dict(a=(S, real), b=(S, pos), c=(S, lambda r, s: r.uniform(-3, 3, s))),
        lambda p: dist.TwoSidedTruncatedDistribution(
            dist.Laplace(p["a"], p["b"]), low=p["a"] + p["b"] * p["c"],
            high=p["a"] + p["b"] * p["c"] + p["b"])),
    # FoldedDistribution (Folded.h): NumPyro's own class, values drawn by
    # it, a few negative ones (-inf).
    "folded_normal": continuous(
        "FoldedDistribution(Normal(a, b))", dict(a=(S, real), b=(S, pos)),
        lambda p: dist.FoldedDistribution(dist.Normal(p["a"], p["b"])), -1.0),
    "folded_studentt": continuous(
        "FoldedDistribution(StudentT(a, b, c))",
        dict(a=(S, pos), b=(S, real), c=(S, pos)),
        lambda p: dist.FoldedDistribution(dist.StudentT(p["a"], p["b"], p["c"])),
        -0.5),
    "folded_gumbel": continuous(
        "FoldedDistribution(base_dist=Gumbel(a, b))", dict(a=(S, real), b=(S, pos)),
        lambda p: dist.FoldedDistribution(dist.Gumbel(p["a"], p["b"])), -2.0),
    # MaskedDistribution (Masked.cpp), NumPyro's `.mask(m)` for missing
    # data: the base's density where the mask is set, 0 elsewhere (values
    # outside the support there too).
    "masked_normal": continuous(
        "MaskedDistribution(Normal(a, b), c)",
        dict(a=(S, real), b=(S, pos), c=(S, mask)),
        lambda p: dist.Normal(p["a"], p["b"]).mask(p["c"] > 0.5)),
    "masked_gamma": continuous(
        "MaskedDistribution(base_dist=Gamma(a, b), mask=c)",
        dict(a=(S, pos), b=(S, pos), c=(S, mask)),
        lambda p: dist.Gamma(p["a"], p["b"]).mask(p["c"] > 0.5), -1.0),
    "masked_truncated": continuous(
        "MaskedDistribution(TruncatedDistribution(Normal(a, b), low=a), c)",
        dict(a=(S, real), b=(S, pos), c=(S, mask)),
        lambda p: dist.TruncatedDistribution(dist.Normal(p["a"], p["b"]),
                                             low=p["a"]).mask(p["c"] > 0.5)),
    "masked_poisson": discrete(
        "MaskedDistribution(Poisson(a), c)", dict(a=(S, pos), c=(S, mask)),
        lambda p: dist.Poisson(p["a"]).mask(p["c"] > 0.5)),
    "bernoulli_probs": discrete("Bernoulli(probs=a)", dict(a=(S, unit)),
                                lambda p: dist.Bernoulli(probs=p["a"]), 2),
    "bernoulli_logits": discrete("Bernoulli(logits=a)", dict(a=(S, real)),
                                 lambda p: dist.Bernoulli(logits=p["a"]), 2),
    "binomial_probs": discrete(
        "Binomial(n, probs=a)", dict(n=(S, counts), a=(S, unit)),
        lambda p: dist.Binomial(p["n"], probs=p["a"])),
    "binomial_logits": discrete(
        "Binomial(n, logits=a)", dict(n=(S, counts), a=(S, real)),
        lambda p: dist.Binomial(p["n"], logits=p["a"])),
    "poisson": discrete("Poisson(a)", dict(a=(S, pos)),
                        lambda p: dist.Poisson(p["a"])),
    "gammapoisson": discrete("GammaPoisson(a, b)", dict(a=(S, pos), b=(S, pos)),
                             lambda p: dist.GammaPoisson(p["a"], p["b"])),
    "negativebinomial2": discrete(
        "NegativeBinomial2(a, b)", dict(a=(S, pos), b=(S, pos)),
        lambda p: dist.NegativeBinomial2(p["a"], p["b"])),
    "negativebinomialprobs": discrete(
        "NegativeBinomialProbs(a, b)", dict(a=(S, pos), b=(S, unit)),
        lambda p: dist.NegativeBinomialProbs(p["a"], p["b"])),
    "negativebinomiallogits": discrete(
        "NegativeBinomialLogits(a, b)", dict(a=(S, pos), b=(S, real)),
        lambda p: dist.NegativeBinomialLogits(p["a"], p["b"])),
    "zeroinflatedpoisson": discrete(
        "ZeroInflatedPoisson(a, b)", dict(a=(S, unit), b=(S, pos)),
        lambda p: dist.ZeroInflatedPoisson(p["a"], p["b"])),
    "zeroinflatedpoisson_logits": discrete(
        "ZeroInflatedPoisson(rate=b, gate_logits=a)", dict(a=(S, real), b=(S, pos)),
        lambda p: dist.ZeroInflatedDistribution(dist.Poisson(p["b"]),
                                                gate_logits=p["a"])),
    "zeroinflated_dist_poisson": discrete(
        "ZeroInflatedDistribution(Poisson(b), gate=a)",
        dict(a=(S, unit), b=(S, pos)),
        lambda p: dist.ZeroInflatedDistribution(dist.Poisson(p["b"]),
                                                gate=p["a"])),
    "zeroinflated_dist_nb2_logits": discrete(
        "ZeroInflatedDistribution(NegativeBinomial2(a, b), gate_logits=c)",
        dict(a=(S, pos), b=(S, pos), c=(S, real)),
        lambda p: dist.ZeroInflatedDistribution(
            dist.NegativeBinomial2(p["a"], p["b"]), gate_logits=p["c"])),
    # Over a count base with no zero-inflated row of its own: the mixture
    # of a point mass at 0 and the base (GatedComposites.cpp).
    "zeroinflated_dist_binomial": discrete(
        "ZeroInflatedDistribution(Binomial(n, probs=a), gate=c)",
        dict(n=(S, counts), a=(S, unit), c=(S, unit)),
        lambda p: dist.ZeroInflatedDistribution(dist.Binomial(p["n"], probs=p["a"]),
                                                gate=p["c"])),
    "zeroinflated_dist_gammapoisson_logits": discrete(
        "ZeroInflatedDistribution(GammaPoisson(a, b), gate_logits=c)",
        dict(a=(S, pos), b=(S, pos), c=(S, real)),
        lambda p: dist.ZeroInflatedDistribution(dist.GammaPoisson(p["a"], p["b"]),
                                                gate_logits=p["c"])),
    "zeroinflated_dist_betabinomial": discrete(
        "ZeroInflatedDistribution(base_dist=BetaBinomial(a, b, n), gate=c)",
        dict(a=(S, pos), b=(S, pos), n=(S, counts), c=(S, unit)),
        lambda p: dist.ZeroInflatedDistribution(dist.BetaBinomial(p["a"], p["b"], p["n"]),
                                                gate=p["c"])),
    # A hurdle over a count base with a CDF and no hurdle row of its own:
    # the base truncated to the positive counts, in the mixture.
    "hurdle_dist_gammapoisson": discrete(
        "HurdleDistribution(GammaPoisson(a, b), gate=c)",
        dict(a=(S, pos), b=(S, pos), c=(S, unit)),
        lambda p: dist.HurdleDistribution(dist.GammaPoisson(p["a"], p["b"]), gate=p["c"])),
    # A hurdle over a continuous base without a hurdle row of its own:
    # Delta(0) and the base, an exact 0 scored by the gate alone (an
    # Exponential's density at 0 is not 0, so adding it would show). NumPyro
    # without validation: with it, its support is the base's, which leaves
    # out 0, and every exact zero it draws scores -inf.
    "hurdle_dist_weibull": continuous(
        "HurdleDistribution(Weibull(a, b), gate=c)",
        dict(a=(S, pos), b=(S, pos), c=(S, unit)),
        lambda p: dist.HurdleDistribution(dist.Weibull(p["a"], p["b"]), gate=p["c"],
                                          validate_args=False)),
    "hurdle_dist_exponential_logits": continuous(
        "HurdleDistribution(Exponential(a), gate_logits=c)",
        dict(a=(S, pos), c=(S, real)),
        lambda p: dist.HurdleDistribution(dist.Exponential(p["a"]), gate_logits=p["c"],
                                          validate_args=False)),
    "hurdle_dist_binomial_logits": discrete(
        "HurdleDistribution(Binomial(n, probs=a), gate_logits=c)",
        dict(n=(S, counts), a=(S, unit), c=(S, real)),
        lambda p: dist.HurdleDistribution(dist.Binomial(p["n"], probs=p["a"]),
                                          gate_logits=p["c"])),
    # NumPyro's Geometric scores values off its support as if on it.
    "zeroinflated_dist_geometric_logits": discrete(
        "ZeroInflatedDistribution(Geometric(logits=a), gate_logits=c)",
        dict(a=(S, real), c=(S, real)),
        lambda p: dist.ZeroInflatedDistribution(dist.Geometric(logits=p["a"]),
                                                gate_logits=p["c"]), None),
    "zinb2": discrete(
        "ZeroInflatedNegativeBinomial2(a, b, gate=c)",
        dict(a=(S, pos), b=(S, pos), c=(S, unit)),
        lambda p: dist.ZeroInflatedNegativeBinomial2(p["a"], p["b"], gate=p["c"])),
    "zinb2_logits": discrete(
        "ZeroInflatedNegativeBinomial2(a, b, gate_logits=c)",
        dict(a=(S, pos), b=(S, pos), c=(S, real)),
        lambda p: dist.ZeroInflatedNegativeBinomial2(p["a"], p["b"],
                                                     gate_logits=p["c"])),
    "asymmetriclaplace": continuous(
        "AsymmetricLaplace(a, b, c)", dict(a=(S, real), b=(S, pos), c=(S, pos)),
        lambda p: dist.AsymmetricLaplace(p["a"], p["b"], p["c"])),
    "kumaraswamy": continuous(
        "Kumaraswamy(a, b)", dict(a=(S, pos), b=(S, pos)),
        lambda p: dist.Kumaraswamy(p["a"], p["b"])),
    "loguniform": continuous(
        "LogUniform(a, a + b)", dict(a=(S, pos), b=(S, pos)),
        lambda p: dist.LogUniform(p["a"], p["a"] + p["b"])),
    "betaproportion": continuous(
        "BetaProportion(a, b)", dict(a=(S, unit), b=(S, pos)),
        lambda p: dist.BetaProportion(p["a"], p["b"])),
    "chi2": continuous("Chi2(a)", dict(a=(S, pos)), lambda p: dist.Chi2(p["a"]), -1.0),
    # NumPyro's Geometric scores values off the support as if on it.
    "geometric_probs": discrete("Geometric(probs=a)", dict(a=(S, unit)),
                                lambda p: dist.Geometric(probs=p["a"]), None),
    "geometric_logits": discrete("Geometric(logits=a)", dict(a=(S, real)),
                                 lambda p: dist.Geometric(logits=p["a"]), None),
    # The family headers' NumPyro classes. NumPyro scores values off their
    # support with the formula (Levy's NaN, Gompertz's finite value), so
    # only NumPyro's own draws are scored here; test_distribution_families
    # checks the rest against SciPy.
    "vonmises": continuous("VonMises(a, b)", dict(a=(S, real), b=(S, pos)),
                           lambda p: dist.VonMises(p["a"], p["b"])),
    "softlaplace": continuous("SoftLaplace(a, b)", dict(a=(S, real), b=(S, pos)),
                              lambda p: dist.SoftLaplace(p["a"], p["b"])),
    "levy": continuous("Levy(a, b)", dict(a=(S, real), b=(S, pos)),
                       lambda p: dist.Levy(p["a"], p["b"])),
    # A point mass: log_density at v (the sampled value), -inf elsewhere.
    "delta": continuous("Delta(a, b)", dict(a=(S, real), b=(S, real)),
                        lambda p: dist.Delta(p["a"], p["b"]), 1e6),
    "gompertz": continuous("Gompertz(a, b)", dict(a=(S, pos), b=(S, pos)),
                           lambda p: dist.Gompertz(p["a"], p["b"])),
    "dagum": continuous("Dagum(a, b, c)", dict(a=(S, pos), b=(S, pos), c=(S, pos)),
                        lambda p: dist.Dagum(p["a"], p["b"], p["c"])),
    # `x` unused: a model of only count inputs would be f32.
    "lowertruncatedpowerlaw": continuous(
        "LowerTruncatedPowerLaw(-1 - a, b)", dict(a=(S, pos), b=(S, pos)),
        lambda p: dist.LowerTruncatedPowerLaw(-1 - p["a"], p["b"])),
    "doublytruncatedpowerlaw": continuous(
        "DoublyTruncatedPowerLaw(a, b, b + c)", dict(a=(S, real), b=(S, pos), c=(S, pos)),
        lambda p: dist.DoublyTruncatedPowerLaw(p["a"], p["b"], p["b"] + p["c"])),
    "zeroinflatedprobs": discrete(
        "ZeroInflatedProbs(Poisson(b), a)", dict(a=(S, unit), b=(S, pos)),
        lambda p: dist.ZeroInflatedProbs(dist.Poisson(p["b"]), p["a"])),
    "hurdlelogits": discrete(
        "HurdleLogits(Poisson(b), gate_logits=a)", dict(a=(S, real), b=(S, pos)),
        lambda p: dist.HurdleLogits(dist.Poisson(p["b"]), gate_logits=p["a"])),
    "discreteuniform": discrete(
        "DiscreteUniform(n, n + m)", dict(n=(S, counts), m=(S, counts), x=(S, real)),
        lambda p: dist.DiscreteUniform(p["n"], p["n"] + p["m"]), None),
    "betanegativebinomial": discrete(
        "BetaNegativeBinomial(a, b, c)", dict(a=(S, pos), b=(S, pos), c=(S, pos)),
        lambda p: dist.BetaNegativeBinomial(p["a"], p["b"], p["c"]), None),
    "hurdlepoisson": discrete(
        "HurdlePoisson(a, b)", dict(a=(S, unit), b=(S, pos)),
        lambda p: dist.HurdlePoisson(p["a"], p["b"])),
    "hurdle_nb2": discrete(
        "HurdleNegativeBinomial2(c, a, b)", dict(a=(S, pos), b=(S, pos), c=(S, unit)),
        lambda p: dist.HurdleNegativeBinomial2(p["c"], p["a"], p["b"])),
    "hurdle_dist_poisson_logits": discrete(
        "HurdleDistribution(Poisson(b), gate_logits=a)", dict(a=(S, real), b=(S, pos)),
        lambda p: dist.HurdleDistribution(dist.Poisson(p["b"]), gate_logits=p["a"])),
    "hurdlegamma": continuous(
        "HurdleGamma(c, a, b)", dict(a=(S, pos), b=(S, pos), c=(S, unit)),
        lambda p: dist.HurdleGamma(p["c"], p["a"], p["b"])),
    "hurdlelognormal": continuous(
        "HurdleLogNormal(c, a, b)", dict(a=(S, real), b=(S, pos), c=(S, unit)),
        lambda p: dist.HurdleLogNormal(p["c"], p["a"], p["b"])),
    "betabinomial": discrete(
        "BetaBinomial(a, b, n)", dict(a=(S, pos), b=(S, pos), n=(S, counts)),
        lambda p: dist.BetaBinomial(p["a"], p["b"], p["n"])),
    "categorical_probs": discrete("Categorical(probs=a)", dict(a=(V, simplex)),
                                  lambda p: dist.Categorical(probs=p["a"]), K),
    "categorical_logits": discrete("Categorical(logits=a)", dict(a=(V, real)),
                                   lambda p: dist.Categorical(logits=p["a"]), K),
    "orderedlogistic": discrete(
        "OrderedLogistic(a, c)",
        dict(a=(S, real), c=(V, lambda r, s: np.sort(real(r, s), axis=-1))),
        lambda p: dist.OrderedLogistic(p["a"], p["c"]), K + 1),
    "mixture_normal": continuous(
        "MixtureSameFamily(Categorical(probs=w), Normal(a, b))",
        dict(w=(V, simplex), a=(V, real), b=(V, pos)),
        lambda p: dist.MixtureSameFamily(dist.Categorical(probs=p["w"]),
                                         dist.Normal(p["a"], p["b"]))),
    "mixture_studentt_logits": continuous(
        "MixtureSameFamily(Categorical(logits=w), StudentT(c, a, b))",
        dict(w=(V, real), a=(V, real), b=(V, pos), c=(V, pos)),
        lambda p: dist.MixtureSameFamily(dist.Categorical(logits=p["w"]),
                                         dist.StudentT(p["c"], p["a"], p["b"]))),
    "mixture_poisson": discrete(
        "MixtureSameFamily(Categorical(probs=w), Poisson(a))",
        dict(w=(V, simplex), a=(V, pos)),
        lambda p: dist.MixtureSameFamily(dist.Categorical(probs=p["w"]),
                                         dist.Poisson(p["a"]))),
}


F32_SUPPORT = {"zerosumnormal"}


class _PerRow:
    """One NumPyro distribution per row, under NumPyro's sample / log_prob."""

    def __init__(self, rows):
        self.rows = rows

    def sample(self, key):
        keys = jax.random.split(key, len(self.rows))
        return jnp.stack([d.sample(k) for d, k in zip(self.rows, keys)])

    def log_prob(self, y):
        return jnp.stack([d.log_prob(y[i]) for i, d in enumerate(self.rows)])


def vector_case(call, params, make, kind, outside):
    def value(rng, p, d):
        v = np.asarray(d.sample(jax.random.PRNGKey(rng.integers(1 << 30))))
        v = v.astype(np.int32 if kind == "i" else np.float64)
        idx = rng.choice(len(v), size=len(v) // 20, replace=False)
        v[idx, 0] = outside
        return v
    return (call, params, make, value, kind, V)


CASES.update({
    "multinomial_probs": vector_case(
        "Multinomial(n, probs=a)", dict(n=(S, counts), a=(V, simplex)),
        lambda p: dist.Multinomial(p["n"], probs=p["a"]), "i", -1),
    "multinomial_logits": vector_case(
        "Multinomial(n, logits=a)", dict(n=(S, counts), a=(V, real)),
        lambda p: dist.Multinomial(p["n"], logits=p["a"]), "i", -1),
    "dirichletmultinomial": vector_case(
        "DirichletMultinomial(a, n)", dict(a=(V, pos), n=(S, counts)),
        lambda p: dist.DirichletMultinomial(p["a"], total_count=p["n"]),
        "i", -1),
    "dirichlet": vector_case("Dirichlet(a)", dict(a=(V, pos)),
                             lambda p: dist.Dirichlet(p["a"]), "f", -0.5),
    "mvn_scale_tril": vector_case(
        "MultivariateNormal(a, scale_tril=L)", dict(a=(V, real), L=((K, K), tril)),
        lambda p: dist.MultivariateNormal(p["a"], scale_tril=p["L"]), "f", 0.5),
    "mvn_covariance": vector_case(
        "MultivariateNormal(a, covariance_matrix=S)",
        dict(a=(V, real), S=((K, K), spd)),
        lambda p: dist.MultivariateNormal(p["a"], covariance_matrix=p["S"]),
        "f", 0.5),
    "multivariatestudentt": vector_case(
        "MultivariateStudentT(c, a, scale_tril=L)",
        dict(c=(S, pos), a=(V, real), L=((K, K), tril)),
        lambda p: dist.MultivariateStudentT(p["c"], p["a"], p["L"]), "f", 0.5),
    # NumPyro's ZeroSumNormal takes a scale that broadcasts with its event
    # only: one distribution per row.
    "zerosumnormal": vector_case(
        "ZeroSumNormal(a, (%d,))" % K, dict(a=(S, pos)),
        lambda p: _PerRow([dist.ZeroSumNormal(a, (K,)) for a in p["a"]]), "f", 0.5),
    "gaussianrandomwalk": vector_case(
        "GaussianRandomWalk(a, num_steps=%d)" % K, dict(a=(S, pos)),
        lambda p: dist.GaussianRandomWalk(p["a"], num_steps=K), "f", 0.5),
    "mvn_precision": vector_case(
        "MultivariateNormal(a, precision_matrix=S)",
        dict(a=(V, real), S=((K, K), spd)),
        lambda p: dist.MultivariateNormal(p["a"], precision_matrix=p["S"]),
        "f", 0.5),
})


class _LKJCholeskyOnSupport:
    """NumPyro's LKJCholesky with -inf for a matrix with an entry above the
    diagonal (as ours). Its own support check is off: it wants rows of unit
    length to f64's rounding, which an f32 value (ours to 1e-4) misses."""

    def __init__(self, a):
        self.d = dist.LKJCholesky(K, a, validate_args=False)

    def sample(self, key):
        return self.d.sample(key)

    def log_prob(self, y):
        upper = jnp.any(jnp.triu(y, 1) != 0, axis=(-2, -1))
        return jnp.where(upper, -jnp.inf, self.d.log_prob(y))


# The factor of a correlation matrix; 1 in 20 has its first row set to 0.5
# (entries above the diagonal: off the support).
_lkj = vector_case("LKJCholesky(%d, a)" % K, dict(a=(S, pos)),
                   lambda p: _LKJCholeskyOnSupport(p["a"]), "f", 0.5)
CASES["lkjcholesky"] = _lkj[:5] + ((K, K),)
_lkj_corr = vector_case("LKJ(%d, a)" % K, dict(a=(S, pos)),
                        lambda p: _PerRow([dist.LKJ(K, a) for a in p["a"]]), "f", 0.5)
CASES["lkj"] = _lkj_corr[:5] + ((K, K),)


class _OnMatrixSupport:
    """NumPyro's density with -inf off the support, as ours: NumPyro
    scores any matrix by its formula. A factor is off it with an entry above
    the diagonal, a matrix when it is not symmetric to sqrt(eps) of f64
    relative (NumPyro's own draws are not always exactly symmetric)."""

    def __init__(self, d, factor):
        self.d, self.factor = d, factor

    def sample(self, key):
        return self.d.sample(key)

    def log_prob(self, y):
        if self.factor:
            off = jnp.any(jnp.triu(y, 1) != 0, axis=(-2, -1))
        else:
            yt = jnp.swapaxes(y, -1, -2)
            tol = 1.4901161193847656e-08 * jnp.maximum(jnp.abs(y), jnp.abs(yt))
            off = jnp.any(jnp.abs(y - yt) > tol, axis=(-2, -1))
        return jnp.where(off, -jnp.inf, self.d.log_prob(y))


def _wishart_case(call, make, factor):
    """A Wishart-family row: concentration from K + 1 (just above K - 1
    the draws are singular to 1e13, where two correct factorizations
    differ in the fifth digit); 1 in 20 values has its first row set to
    0.5 (off the support)."""
    df = lambda r, s: K + 1 + pos(r, s)  # noqa: E731
    matrix = "S" if "_matrix" in call else "L"
    gen = spd if matrix == "S" else tril
    case = vector_case(call, dict(c=(S, df), **{matrix: ((K, K), gen)}),
                       lambda p: _OnMatrixSupport(make(p), factor), "f", 0.5)
    return case[:5] + ((K, K),)


CASES.update({
    "wishart_scale_matrix": _wishart_case(
        "Wishart(c, scale_matrix=S)",
        lambda p: dist.Wishart(p["c"], scale_matrix=p["S"]), False),
    "wishart_rate_matrix": _wishart_case(
        "Wishart(c, rate_matrix=S)",
        lambda p: dist.Wishart(p["c"], rate_matrix=p["S"]), False),
    "wishartcholesky_scale_tril": _wishart_case(
        "WishartCholesky(c, scale_tril=L)",
        lambda p: dist.WishartCholesky(p["c"], scale_tril=p["L"]), True),
    "inversewishart_scale_matrix": _wishart_case(
        "InverseWishart(c, scale_matrix=S)",
        lambda p: dist.InverseWishart(p["c"], scale_matrix=p["S"]), False),
    "inversewishartcholesky_rate_matrix": _wishart_case(
        "InverseWishartCholesky(c, rate_matrix=S)",
        lambda p: dist.InverseWishartCholesky(p["c"], rate_matrix=p["S"]), True),
})

def _interval_values(rng, p, d):
    """(lower, upper) around base draws: 1 in 10 a point, the others an
    interval of up to a third of the draw on either side (so a positive
    draw keeps a positive lower end; upper infinite for 1 in 10
    right-censored rows)."""
    x = np.asarray(d.base_dist.sample(jax.random.PRNGKey(rng.integers(1 << 30))))
    w = np.abs(x) * rng.uniform(0.05, 0.35, (2, len(x)))
    v = np.stack([x - w[0], x + w[1] + 0.01], axis=-1)
    point = rng.random(len(x)) < 0.1
    v[point] = x[point, None]
    right = np.asarray(p["r"] != 0) & (np.asarray(p["l"]) == 0) & (rng.random(len(x)) < 0.1)
    v[right, 1] = np.inf
    return v


def _interval_case(base, params, make):
    """IntervalCensoredDistribution over a base, the indicators about half
    set each (every combination occurs)."""
    call = "IntervalCensoredDistribution(%s, left_censored=l, right_censored=r)" % base
    params = dict(params, l=(S, mask), r=(S, mask))
    return (call, params,
            lambda p: dist.IntervalCensoredDistribution(make(p), p["l"], p["r"]),
            _interval_values, "f", (2,))


CASES.update({
    "interval_weibull": _interval_case(
        "Weibull(a, b)", dict(a=(S, pos), b=(S, pos)),
        lambda p: dist.Weibull(p["a"], p["b"])),
    "interval_normal": _interval_case(
        "Normal(a, b)", dict(a=(S, real), b=(S, pos)),
        lambda p: dist.Normal(p["a"], p["b"])),
    "interval_lognormal": _interval_case(
        "LogNormal(a, b)", dict(a=(S, real), b=(S, pos)),
        lambda p: dist.LogNormal(p["a"], p["b"])),
})

# TransformedDistribution over elementwise transforms whose result is a
# named distribution (TransformedSugar.cpp), against NumPyro's own
# TransformedDistribution (its log_prob inverts the transforms and adds
# their log-Jacobians); a negative affine scale included.
_T = dist.transforms
CASES.update({
    "transformed_affine_normal": continuous(
        "TransformedDistribution(Normal(a, b), AffineTransform(c, d))",
        dict(a=(S, real), b=(S, pos), c=(S, real), d=(S, real)),
        lambda p: dist.TransformedDistribution(dist.Normal(p["a"], p["b"]),
                                               _T.AffineTransform(p["c"], p["d"]))),
    "transformed_affine_studentt": continuous(
        "TransformedDistribution(StudentT(a), [AffineTransform(b, c), AffineTransform(d, 2.0)])",
        dict(a=(S, pos), b=(S, real), c=(S, real), d=(S, real)),
        lambda p: dist.TransformedDistribution(
            dist.StudentT(p["a"]), [_T.AffineTransform(p["b"], p["c"]),
                                    _T.AffineTransform(p["d"], 2.0)])),
    "transformed_exp": continuous(
        "TransformedDistribution(Normal(a, b), [AffineTransform(c, d), ExpTransform()])",
        dict(a=(S, real), b=(S, pos), c=(S, real), d=(S, real)),
        lambda p: dist.TransformedDistribution(dist.Normal(p["a"], p["b"]),
                                               [_T.AffineTransform(p["c"], p["d"]),
                                                _T.ExpTransform()])),
    # A folded base (Composites.cpp's bindFoldedBase): |X|, then exp
    # (NumPyro's own nesting has no Jacobian for the fold: _ExpOf).
    "transformed_folded_exp": continuous(
        "TransformedDistribution(FoldedDistribution(Normal(a, b)), ExpTransform())",
        dict(a=(S, real), b=(S, pos)),
        lambda p: _ExpOf(dist.FoldedDistribution(dist.Normal(p["a"], p["b"])))),
    "transformed_sigmoid": continuous(
        "TransformedDistribution(base_distribution=Normal(a, b), transforms=SigmoidTransform())",
        dict(a=(S, real), b=(S, pos)),
        lambda p: dist.TransformedDistribution(dist.Normal(p["a"], p["b"]),
                                               _T.SigmoidTransform())),
})

# TransformedDistribution over transforms whose result is no named
# distribution: the base's density at the inverse plus the inverse's log
# Jacobian (Sema/Transformed.cpp, Conversion/LowerValueMaps.cpp), each
# elementwise transform of ValueTransforms.def once, a chain whose prefix
# is rewritten (Exp of Normal is LogNormal, then an affine map of it), and
# a reflected (negative-scale) affine map of a bounded base.
CASES.update({
    "transformed_exp_gamma": continuous(
        "TransformedDistribution(Gamma(a, b), ExpTransform())",
        dict(a=(S, pos), b=(S, pos)),
        lambda p: dist.TransformedDistribution(dist.Gamma(p["a"], p["b"]),
                                               _T.ExpTransform())),
    "transformed_affine_beta": continuous(
        "TransformedDistribution(Beta(a, b), AffineTransform(c, d))",
        dict(a=(S, lambda rng, shape: pos(rng, shape, 1.0, 5.0)),
             b=(S, lambda rng, shape: pos(rng, shape, 1.0, 5.0)),
             c=(S, real), d=(S, real)),
        lambda p: dist.TransformedDistribution(dist.Beta(p["a"], p["b"]),
                                               _T.AffineTransform(p["c"], p["d"]))),
    "transformed_power_gamma": continuous(
        "TransformedDistribution(Gamma(a, b), PowerTransform(exponent=c))",
        dict(a=(S, pos), b=(S, pos), c=(S, pos)),
        lambda p: dist.TransformedDistribution(dist.Gamma(p["a"], p["b"]),
                                               _T.PowerTransform(p["c"]))),
    "transformed_softplus_normal": continuous(
        "TransformedDistribution(Normal(a, b), SoftplusTransform())",
        dict(a=(S, real), b=(S, pos)),
        lambda p: dist.TransformedDistribution(dist.Normal(p["a"], p["b"]),
                                               _T.SoftplusTransform())),
    # The values NumPyro's f32 sigmoid draws (clipped to [tiny, 1 - eps]
    # of f32): a heavy tail's 1 - 1e-9 would round onto 1 in f32, where
    # NumPyro's density is NaN and the map's -inf.
    "transformed_sigmoid_studentt": given_values(
        "TransformedDistribution(StudentT(a, b, c), [SigmoidTransform(), IdentityTransform()])",
        dict(a=(S, pos), b=(S, real), c=(S, pos)),
        lambda p: dist.TransformedDistribution(dist.StudentT(p["a"], p["b"], p["c"]),
                                               _T.SigmoidTransform()),
        lambda rng, p: np.clip(
            special.expit(stats.t.rvs(p["a"], p["b"], p["c"], random_state=rng)),
            np.finfo(np.float32).tiny, 1 - np.finfo(np.float32).eps)),
    "transformed_shifted_lognormal": continuous(
        "TransformedDistribution(Normal(a, b), [ExpTransform(), AffineTransform(c, 2.0)])",
        dict(a=(S, real), b=(S, pos), c=(S, real)),
        lambda p: dist.TransformedDistribution(dist.Normal(p["a"], p["b"]),
                                               [_T.ExpTransform(),
                                                _T.AffineTransform(p["c"], 2.0)])),
})

# Mixtures written as a list of components (Sema/MixtureSugar.cpp,
# MixtureGeneral.cpp): of different families (NumPyro's MixtureGeneral,
# PyMC's Mixture(w, comp_dists)), continuous and counts; of one family
# (stacked into MixtureSameFamily, a scalar parameter broadcast with the
# others), and PyMC's NormalMixture(w, mu, sigma).
W2 = (2,)
CASES.update({
    "mixturegeneral_normal_studentt": continuous(
        "MixtureGeneral(Categorical(probs=w), [Normal(a, b), StudentT(3.0, c, b)])",
        dict(w=(W2, simplex), a=(S, real), b=(S, pos), c=(S, real)),
        lambda p: dist.MixtureGeneral(dist.Categorical(probs=p["w"]),
                                      [dist.Normal(p["a"], p["b"]),
                                       dist.StudentT(3.0, p["c"], p["b"])])),
    "mixturegeneral_counts": discrete(
        "MixtureGeneral(Categorical(logits=w), [Poisson(a), Geometric(probs=u)])",
        dict(w=(W2, real), a=(S, pos), u=(S, unit)),
        lambda p: dist.MixtureGeneral(dist.Categorical(logits=p["w"]),
                                      [dist.Poisson(p["a"]),
                                       dist.Geometric(probs=p["u"])]), None),
    "mixturegeneral_one_family": continuous(
        "MixtureGeneral(Categorical(probs=w), [Normal(a, b), Normal(c)])",
        dict(w=(W2, simplex), a=(S, real), b=(S, pos), c=(S, real)),
        lambda p: dist.MixtureGeneral(dist.Categorical(probs=p["w"]),
                                      [dist.Normal(p["a"], p["b"]),
                                       dist.Normal(p["c"], 1.0)])),
    "pymc_mixture_gamma_lognormal": continuous(
        "Mixture(w=w, comp_dists=[Gamma(alpha=a, beta=b), LogNormal(mu=c, sigma=b)])",
        dict(w=(W2, simplex), a=(S, pos), b=(S, pos), c=(S, real)),
        lambda p: dist.MixtureGeneral(dist.Categorical(probs=p["w"]),
                                      [dist.Gamma(p["a"], p["b"]),
                                       dist.LogNormal(p["c"], p["b"])])),
    "pymc_normalmixture": continuous(
        "NormalMixture(w, a, b)",
        dict(w=(V, simplex), a=(V, real), b=(V, pos)),
        lambda p: dist.MixtureSameFamily(dist.Categorical(probs=p["w"]),
                                         dist.Normal(p["a"], p["b"]))),
})

# TruncatedPolyaGamma takes no parameters (its batch_shape is the site's).
CASES["truncatedpolyagamma"] = given_values(
    "TruncatedPolyaGamma()", {},
    lambda p: dist.TruncatedPolyaGamma(batch_shape=(N,)),
    lambda rng, p: np.asarray(dist.TruncatedPolyaGamma(batch_shape=(N,)).sample(
        jax.random.PRNGKey(rng.integers(1 << 30)))))

# Censored counts (NumPyro's censored forms take any base with a cdf; its
# NegativeBinomial2 is a GammaPoisson): log P(X > x) where right-censored,
# log P(X <= x) where left-censored.
CASES.update({
    "rightcensored_poisson": discrete(
        "RightCensoredDistribution(Poisson(a), censored=c)", dict(a=(S, pos), c=(S, mask)),
        lambda p: dist.RightCensoredDistribution(dist.Poisson(p["a"]), p["c"]), None),
    "rightcensored_gammapoisson": discrete(
        "RightCensoredDistribution(GammaPoisson(a, b), censored=c)",
        dict(a=(S, pos), b=(S, pos), c=(S, mask)),
        lambda p: dist.RightCensoredDistribution(dist.GammaPoisson(p["a"], p["b"]), p["c"]), None),
    "leftcensored_nb2": discrete(
        "LeftCensoredDistribution(NegativeBinomial2(a, b), censored=c)",
        dict(a=(S, pos), b=(S, pos), c=(S, mask)),
        lambda p: dist.LeftCensoredDistribution(dist.NegativeBinomial2(p["a"], p["b"]), p["c"]), None),
})

class _OnSphere:
    """NumPyro's ProjectedNormal with -inf off the unit sphere (its
    log_prob scores any vector by the formula), as ours."""

    def __init__(self, d):
        self.d = d

    def sample(self, key):
        return self.d.sample(key)

    def log_prob(self, y):
        off = jnp.abs(jnp.linalg.norm(y, axis=-1) - 1) > 1e-6
        return jnp.where(off, -jnp.inf, self.d.log_prob(y))


# NumPyro's log_prob has the sphere in 2 and 3 dimensions only.
for _k in (2, 3):
    CASES["projectednormal_%d" % _k] = vector_case(
        "ProjectedNormal(a)", dict(a=((_k,), real)),
        lambda p: _OnSphere(dist.ProjectedNormal(p["a"])), "f", 0.5)[:5] + ((_k,),)

def corr(rng, shape):
    """Correlation matrices: spd matrices scaled to a unit diagonal."""
    a = spd(rng, shape)
    d = np.sqrt(np.diagonal(a, axis1=-2, axis2=-1))
    return a / d[..., :, None] / d[..., None, :]


def _copula_case(call, params, make, ppf):
    """A copula row scored on draws made here: normal scores of correlation
    R mapped by SciPy's marginal quantile (NumPyro's icdf of a Gamma or Beta
    needs TensorFlow Probability). No value is pushed into a far tail:
    NumPyro clamps F to [eps, 1 - eps] there, which ours does not."""
    def value(rng, p, d):
        L = np.linalg.cholesky(p["R"].astype(np.float64))
        z = np.einsum("nij,nj->ni", L, rng.normal(size=(N, K)))
        return ppf(p, stats.norm.cdf(z))
    return (call, params, make, value, "f", V)


CASES.update({
    "gaussiancopulabeta": _copula_case(
        "GaussianCopulaBeta(a, b, correlation_matrix=R)",
        dict(a=(V, pos), b=(V, pos), R=((K, K), corr)),
        lambda p: dist.GaussianCopulaBeta(p["a"], p["b"], correlation_matrix=p["R"]),
        lambda p, u: stats.beta(p["a"].astype(np.float64), p["b"].astype(np.float64)).ppf(u)),
    "gaussiancopula_normal": _copula_case(
        "GaussianCopula(Normal(a, b), correlation_cholesky=cholesky(R))",
        dict(a=(V, real), b=(V, pos), R=((K, K), corr)),
        lambda p: dist.GaussianCopula(dist.Normal(p["a"], p["b"]),
                                      correlation_cholesky=jnp.linalg.cholesky(p["R"])),
        lambda p, u: stats.norm(p["a"].astype(np.float64), p["b"].astype(np.float64)).ppf(u)),
    "gaussiancopula_gamma": _copula_case(
        "GaussianCopula(Gamma(a, b), correlation_matrix=R)",
        dict(a=(V, pos), b=(V, pos), R=((K, K), corr)),
        lambda p: dist.GaussianCopula(dist.Gamma(p["a"], p["b"]), correlation_matrix=p["R"]),
        lambda p, u: stats.gamma(p["a"].astype(np.float64),
                                 scale=1 / p["b"].astype(np.float64)).ppf(u)),
})


def l1(rng, shape):
    """Skewness vectors inside NumPyro's l1 ball (sum |s| <= 0.9)."""
    s = rng.uniform(-1, 1, shape)
    return 0.9 * rng.uniform(0, 1, shape[:-1] + (1,)) * s / np.abs(s).sum(-1, keepdims=True)


CASES["sineskewed_vonmises"] = vector_case(
    "SineSkewed(VonMises(a, b), s)",
    dict(a=(V, lambda r, s: r.uniform(-np.pi, np.pi, s)), b=(V, pos), s=(V, l1)),
    lambda p: dist.SineSkewed(dist.VonMises(p["a"], p["b"]).to_event(1), p["s"]), "f", 0.5)



def _angles(rng, shape):
    return rng.uniform(-np.pi, np.pi, shape)


def _torus_values(rng, p, d):
    """NumPyro's draws, a tenth of the rows replaced by uniform angles (away
    from the modes). (Angles outside [-pi, pi) are scored periodically, as
    NumPyro does without validation: SineBivariateVonMisesDraws.)"""
    v = np.array(d.sample(jax.random.PRNGKey(rng.integers(1 << 30))), np.float64)
    idx = rng.choice(len(v), size=len(v) // 10, replace=False)
    v[idx] = _angles(rng, (len(idx), 2))
    return v


_SBVM = dict(a=(S, _angles), b=(S, _angles), c=(S, pos), d=(S, pos))
CASES.update({
    "sinebivariatevonmises": (
        "SineBivariateVonMises(a, b, c, d, correlation=e)", dict(_SBVM, e=(S, real)),
        lambda p: dist.SineBivariateVonMises(p["a"], p["b"], p["c"], p["d"],
                                             correlation=p["e"]),
        _torus_values, "f", (2,)),
    "sinebivariatevonmises_weighted": (
        "SineBivariateVonMises(a, b, c, d, weighted_correlation=e)",
        dict(_SBVM, e=(S, lambda r, s: r.uniform(-1.5, 1.5, s))),
        lambda p: dist.SineBivariateVonMises(p["a"], p["b"], p["c"], p["d"],
                                             weighted_correlation=p["e"]),
        _torus_values, "f", (2,)),
    "sineskewed_sinebivariatevonmises": (
        "SineSkewed(SineBivariateVonMises(a, b, c, d, correlation=e), s)",
        dict(_SBVM, e=(S, real), s=((2,), l1)),
        lambda p: dist.SineSkewed(dist.SineBivariateVonMises(
            p["a"], p["b"], p["c"], p["d"], correlation=p["e"]), p["s"]),
        _torus_values, "f", (2,)),
})


# MatrixNormal: 3 x K matrices, the rows' and the columns' factors drawn
# per row; values are its draws, 1 in 20 with an entry set to 40 (far in
# the tail, still in the support).
_MN = (3, K)


def _matrix_values(rng, p, d):
    v = np.array(d.sample(jax.random.PRNGKey(rng.integers(1 << 30))))
    v[rng.choice(len(v), size=len(v) // 20, replace=False), 1, 2] = 40.0
    return v


CASES["matrixnormal"] = (
    "MatrixNormal(a, A, B)", dict(a=(_MN, real), A=((3, 3), tril), B=((K, K), tril)),
    lambda p: dist.MatrixNormal(p["a"], p["A"], p["B"]), _matrix_values, "f", _MN)

class _ScipyTruncated:
    """The reference where NumPyro has none (it truncates only bases with
    real support): scipy's frozen base renormalized on [low, high]; for
    counts, on the integers in it, both ends included."""

    def __init__(self, frozen, low, high, discrete):
        self.f, self.discrete = frozen, discrete
        self.low = np.asarray(low, np.float64) + np.zeros(N)
        self.high = np.asarray(high, np.float64) + np.zeros(N)
        if discrete:
            self.low = np.maximum(np.ceil(self.low), 0)
            self.high = np.floor(self.high)

    def _mass(self):
        below = self.low - 1 if self.discrete else self.low
        with np.errstate(divide="ignore"):
            upper = self.f.sf(below) - np.where(np.isinf(self.high), 0, self.f.sf(self.high))
            lower = self.f.cdf(self.high) - self.f.cdf(below)
        return np.where(self.f.cdf(below) > 0.5, upper, lower)

    def draws(self, rng):
        below = self.low - 1 if self.discrete else self.low
        u = rng.uniform(self.f.cdf(below), self.f.cdf(self.high))
        return self.f.ppf(u)

    def log_prob(self, y):
        y = np.asarray(y, np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            base = self.f.logpmf(y) if self.discrete else self.f.logpdf(y)
            inside = (y >= self.low) & (y <= self.high)
            return np.where(inside, base - np.log(self._mass()), -np.inf)


class _ExpOf:
    """exp(X) for X from a NumPyro distribution: its draws and density."""

    def __init__(self, base):
        self.base = base

    def sample(self, key):
        return jnp.exp(self.base.sample(key))

    def log_prob(self, y):
        return self.base.log_prob(jnp.log(y)) - jnp.log(y)


class _Kumaraswamy:
    """Kumaraswamy(a, b) as a scipy-like frozen distribution (closed form)."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def cdf(self, x):
        x = np.clip(x, 0, 1)
        with np.errstate(divide="ignore"):
            return -np.expm1(self.b * np.log1p(-x ** self.a))

    def sf(self, x):
        return 1 - self.cdf(x)

    def ppf(self, u):
        return (-np.expm1(np.log1p(-u) / self.b)) ** (1 / self.a)

    def logpdf(self, x):
        with np.errstate(divide="ignore", invalid="ignore"):
            v = (np.log(self.a) + np.log(self.b) + (self.a - 1) * np.log(x)
                 + (self.b - 1) * np.log1p(-x ** self.a))
        return np.where((x > 0) & (x < 1), v, -np.inf)


class _ZeroInflated:
    """A scipy-like frozen count distribution with extra mass g at 0."""

    def __init__(self, frozen, g):
        self.f, self.g = frozen, np.asarray(g, np.float64)

    def cdf(self, k):
        return np.where(k < 0, 0.0, self.g + (1 - self.g) * self.f.cdf(k))

    def sf(self, k):
        return np.where(k < 0, 1.0, (1 - self.g) * self.f.sf(k))

    def ppf(self, u):
        inner = np.clip((u - self.g) / (1 - self.g), 0, 1)
        return np.where(u <= self.cdf(0), 0.0, self.f.ppf(inner))

    def logpmf(self, k):
        with np.errstate(divide="ignore"):
            base = self.f.logpmf(k)
            return np.where(k == 0, np.logaddexp(np.log(self.g), np.log1p(-self.g) + base),
                            np.log1p(-self.g) + base)


class _RightCensored:
    """scipy's count law, right-censored where c is set: log S(y) there."""

    def __init__(self, frozen, c):
        self.f, self.c = frozen, np.asarray(c) != 0

    def sample(self, key):
        rng = np.random.default_rng(int(jax.random.randint(key, (), 0, 1 << 30)))
        u = rng.uniform(size=len(self.c))
        return self.f.ppf(u)

    def log_prob(self, y):
        y = np.asarray(y, np.float64)
        with np.errstate(divide="ignore"):
            return np.where(self.c, self.f.logsf(y), self.f.logpmf(y))


def truncated(call, params, make, discrete, outside):
    """A truncation scored against _ScipyTruncated, on its own draws with a
    few values outside [low, high]."""
    def value(rng, p, d):
        v = d.draws(rng)
        v = v.astype(np.int32) if discrete else v
        return mix_values(v, rng, outside)
    return (call, params, lambda p: make({k: np.asarray(v) for k, v in p.items()}),
            value, "i" if discrete else "f", ())


CASES.update({
    "truncated_beta": truncated(
        "TruncatedDistribution(Beta(a, b), low=c, high=c + 0.3)",
        dict(a=(S, pos), b=(S, pos), c=(S, lambda r, s: r.uniform(0.05, 0.6, s))),
        lambda p: _ScipyTruncated(stats.beta(p["a"], p["b"]), p["c"], p["c"] + 0.3, False),
        False, 0.01),
    "truncated_kumaraswamy": truncated(
        "TruncatedDistribution(Kumaraswamy(a, b), low=c)",
        dict(a=(S, pos), b=(S, pos), c=(S, lambda r, s: r.uniform(0.05, 0.8, s))),
        lambda p: _ScipyTruncated(_Kumaraswamy(p["a"], p["b"]), p["c"], np.inf, False),
        False, 0.01),
    "truncated_uniform": truncated(
        "TruncatedDistribution(Uniform(a, a + b), low=a + c)",
        dict(a=(S, real), b=(S, pos), c=(S, lambda r, s: r.uniform(0.05, 0.2, s))),
        lambda p: _ScipyTruncated(stats.uniform(p["a"], p["b"]), p["a"] + p["c"], np.inf, False),
        False, -50.0),
    "truncated_loguniform": truncated(
        "TruncatedDistribution(LogUniform(a, a + b), high=a + 0.5 * b)",
        dict(a=(S, pos), b=(S, pos)),
        lambda p: _ScipyTruncated(stats.loguniform(p["a"], p["a"] + p["b"]), -np.inf,
                                  p["a"] + 0.5 * p["b"], False), False, 1e-3),
    "truncated_asymmetriclaplace": truncated(
        "TruncatedDistribution(AsymmetricLaplace(a, b, c), low=a - b, high=a + 2 * b)",
        dict(a=(S, real), b=(S, pos), c=(S, pos)),
        lambda p: _ScipyTruncated(stats.laplace_asymmetric(p["c"], p["a"], p["b"]),
                                  p["a"] - p["b"], p["a"] + 2 * p["b"], False), False, -50.0),
    "truncated_chi2": truncated(
        "TruncatedDistribution(Chi2(a), low=b, high=b + 2)", dict(a=(S, pos), b=(S, pos)),
        lambda p: _ScipyTruncated(stats.chi2(p["a"]), p["b"], p["b"] + 2, False), False, 1e-3),
    "truncated_betaproportion": truncated(
        "TruncatedDistribution(BetaProportion(a, b), low=0.2, high=0.7)",
        dict(a=(S, unit), b=(S, pos)),
        lambda p: _ScipyTruncated(stats.beta(p["a"] * p["b"], (1 - p["a"]) * p["b"]), 0.2, 0.7,
                                  False), False, 0.9),
    # Zero-truncated counts (Stan's T[1, ], PyMC's pm.Truncated(lower=1)).
    "truncated_poisson": truncated(
        "TruncatedDistribution(Poisson(a), low=1)", dict(a=(S, pos)),
        lambda p: _ScipyTruncated(stats.poisson(p["a"]), 1, np.inf, True), True, 0),
    "truncated_poisson_interval": truncated(
        "TruncatedDistribution(Poisson(a), low=n, high=n + 4)", dict(a=(S, pos), n=(S, counts)),
        lambda p: _ScipyTruncated(stats.poisson(p["a"]), p["n"], p["n"] + 4, True), True, 0),
    "truncated_nb2": truncated(
        "TruncatedDistribution(NegativeBinomial2(a, b), low=1)", dict(a=(S, pos), b=(S, pos)),
        lambda p: _ScipyTruncated(stats.nbinom(p["b"], p["b"] / (p["b"] + p["a"])), 1, np.inf,
                                  True), True, 0),
    "truncated_binomial_probs": truncated(
        "TruncatedDistribution(Binomial(n, probs=a), low=1)", dict(n=(S, counts), a=(S, unit)),
        lambda p: _ScipyTruncated(stats.binom(p["n"], p["a"]), 1, np.inf, True), True, 0),
    "truncated_gammapoisson": truncated(
        "TruncatedDistribution(GammaPoisson(a, b), low=1)", dict(a=(S, pos), b=(S, pos)),
        lambda p: _ScipyTruncated(stats.nbinom(p["a"], p["b"] / (1 + p["b"])), 1, np.inf, True),
        True, 0),
    "truncated_nbprobs": truncated(
        "TruncatedDistribution(NegativeBinomialProbs(a, b), low=n, high=n + 6)",
        dict(a=(S, pos), b=(S, unit), n=(S, counts)),
        lambda p: _ScipyTruncated(stats.nbinom(p["a"], 1 - p["b"]), p["n"], p["n"] + 6, True), True, 0),
    "truncated_nblogits": truncated(
        "TruncatedDistribution(NegativeBinomialLogits(a, b), high=4)", dict(a=(S, pos), b=(S, real)),
        lambda p: _ScipyTruncated(stats.nbinom(p["a"], special.expit(-p["b"])), -np.inf, 4, True), True, 5),
    "truncated_geometric": truncated(
        "TruncatedDistribution(Geometric(a), low=2)", dict(a=(S, unit)),
        lambda p: _ScipyTruncated(stats.geom(p["a"], loc=-1), 2, np.inf, True), True, 1),
    "truncated_geometric_logits": truncated(
        "TruncatedDistribution(Geometric(logits=a), low=1, high=9)", dict(a=(S, real)),
        lambda p: _ScipyTruncated(stats.geom(special.expit(p["a"]), loc=-1), 1, 9, True), True, 10),
    # Count CDFs summed term by term (BetaBinomial), in closed form
    # (DiscreteUniform), and the zero-inflated counts' g + (1 - g) F.
    "truncated_betabinomial": truncated(
        "TruncatedDistribution(BetaBinomial(a, b, n), low=1)",
        dict(a=(S, pos), b=(S, pos), n=(S, counts)),
        lambda p: _ScipyTruncated(stats.betabinom(p["n"], p["a"], p["b"]), 1, np.inf, True),
        True, 0),
    "truncated_discreteuniform": truncated(
        "TruncatedDistribution(DiscreteUniform(n, n + 6), low=n + a)",
        dict(n=(S, counts), a=(S, lambda r, s: r.uniform(0.5, 4.5, s))),
        lambda p: _ScipyTruncated(stats.randint(p["n"], p["n"] + 7), p["n"] + p["a"], np.inf, True),
        True, 0),
    "truncated_zip": truncated(
        "TruncatedDistribution(ZeroInflatedPoisson(c, a), high=3)", dict(a=(S, pos), c=(S, unit)),
        lambda p: _ScipyTruncated(_ZeroInflated(stats.poisson(p["a"]), p["c"]), -np.inf, 3, True),
        True, 5),
    "truncated_zinb2_logits": truncated(
        "TruncatedDistribution(ZeroInflatedNegativeBinomial2(a, b, gate_logits=c), high=n + 2)",
        dict(a=(S, pos), b=(S, pos), c=(S, real), n=(S, counts)),
        lambda p: _ScipyTruncated(_ZeroInflated(stats.nbinom(p["b"], p["b"] / (p["b"] + p["a"])),
                                                special.expit(p["c"])), -np.inf, p["n"] + 2, True),
        True, 40),
    "truncated_zib": truncated(
        "TruncatedDistribution(ZeroInflatedBinomial(c, n, a), low=0, high=2)",
        dict(a=(S, unit), c=(S, unit), n=(S, counts)),
        lambda p: _ScipyTruncated(_ZeroInflated(stats.binom(p["n"], p["a"]), 1 - p["c"]), 0, 2, True),
        True, 3),
    "rightcensored_betabinomial": discrete(
        "RightCensoredDistribution(BetaBinomial(a, b, n), censored=c)",
        dict(a=(S, pos), b=(S, pos), n=(S, counts), c=(S, mask)),
        lambda p: _RightCensored(stats.betabinom(np.asarray(p["n"]), np.asarray(p["a"]),
                                                 np.asarray(p["b"])), p["c"]), None),
    "truncated_binomial_logits": truncated(
        "TruncatedDistribution(Binomial(n, logits=a), high=2)", dict(n=(S, counts), a=(S, real)),
        lambda p: _ScipyTruncated(stats.binom(p["n"], special.expit(p["a"])), -np.inf, 2, True),
        True, 3),
})


def gen_is_count(param):
    return param[1] is counts


# NumPyro's float64 log_prob of the gamma-Poisson family and of Multinomial
# is itself only good to ~1e-6 (GammaPoisson(4.9, 0.22) at 11 differs from
# scipy.stats.nbinom by 3.9e-7, Multinomial(9, p) from
# scipy.stats.multinomial by 6e-7): against NumPyro these get that
# tolerance, and against scipy (below) 1e-10. BetaBinomial likewise.
NUMPYRO_F64_ERROR = {n: 5e-6 for n in (
    "gammapoisson", "negativebinomial2", "negativebinomialprobs",
    "negativebinomiallogits", "zinb2", "zinb2_logits",
    "zeroinflated_dist_nb2_logits", "multinomial_probs",
    "zeroinflated_dist_gammapoisson_logits", "zeroinflated_dist_betabinomial",
    "hurdle_dist_gammapoisson",
    "multinomial_logits", "betabinomial", "hurdle_nb2",
    "betanegativebinomial", "leftcensored_nb2", "rightcensored_gammapoisson")}


# A transformed distribution's parameters are composed in the model's
# precision (loc c + d a, scale |d| b), and the density's z amplifies that
# rounding where the composed scale is small: at f32, 1e-4.
F32_COMPOSED_ERROR = {n: 1e-4 for n in (
    "transformed_affine_normal", "transformed_affine_studentt", "transformed_exp")}


def _nb(y, n, q):
    return stats.nbinom.logpmf(y, n, q)


def _zi(y, gate, lp):
    with np.errstate(divide="ignore"):
        return np.where(y == 0, np.logaddexp(np.log(gate), np.log1p(-gate) + lp),
                        np.log1p(-gate) + lp)


def _hurdle(y, gate, positive):
    with np.errstate(divide="ignore"):
        return np.where(y == 0, np.log(gate), np.log1p(-gate) + positive)


def _multinomial(y, n, probs):
    return np.array([stats.multinomial.logpmf(y[i], n[i], probs[i])
                     for i in range(len(y))])


SCIPY = {
    "matrixnormal": lambda y, p: np.array([
        stats.matrix_normal.logpdf(y[i], p["a"][i], p["A"][i] @ p["A"][i].T,
                                   p["B"][i] @ p["B"][i].T) for i in range(len(y))]),
    "mixturegeneral_normal_studentt": lambda y, p: np.logaddexp(
        np.log(p["w"][:, 0]) + stats.norm.logpdf(y, p["a"], p["b"]),
        np.log(p["w"][:, 1]) + stats.t.logpdf(y, 3.0, p["c"], p["b"])),
    "mixturegeneral_counts": lambda y, p: np.logaddexp(
        special.log_softmax(p["w"], -1)[:, 0] + stats.poisson.logpmf(y, p["a"]),
        special.log_softmax(p["w"], -1)[:, 1] + stats.geom.logpmf(y + 1, p["u"])),
    "transformed_power_gamma": lambda y, p: stats.gamma.logpdf(
        y ** (1 / p["c"]), p["a"], scale=1 / p["b"]) + (1 / p["c"] - 1) * np.log(y)
        - np.log(p["c"]),
    "transformed_affine_beta": lambda y, p: stats.beta.logpdf(
        (y - p["c"]) / p["d"], p["a"], p["b"]) - np.log(np.abs(p["d"])),
    "transformed_exp_gamma": lambda y, p: stats.gamma.logpdf(
        np.log(y), p["a"], scale=1 / p["b"]) - np.log(y),
    "transformed_shifted_lognormal": lambda y, p: stats.lognorm.logpdf(
        y, p["b"], loc=p["c"], scale=2.0 * np.exp(p["a"])),
    "rightcensored_poisson": lambda y, p: np.where(
        p["c"] != 0, stats.poisson.logsf(y, p["a"]), stats.poisson.logpmf(y, p["a"])),
    "leftcensored_nb2": lambda y, p: np.where(
        p["c"] != 0, stats.nbinom.logcdf(y, p["b"], p["b"] / (p["b"] + p["a"])),
        _nb(y, p["b"], p["b"] / (p["b"] + p["a"]))),
    # C(n + k - 1, k) B(a + k, b + n) / B(a, b), the coefficient as
    # 1 / ((n + k) B(n, k + 1)) (gammaln's difference loses 1e-8 at k ~
    # 3e8; Debian's SciPy predates stats.betanbinom); JAX's betaln loses
    # 6e-7 at k = 0.
    "betanegativebinomial": lambda y, p: (
        -special.betaln(p["c"], y + 1) - np.log(p["c"] + y)
        + special.betaln(p["a"] + y, p["b"] + p["c"]) - special.betaln(p["a"], p["b"])),
    "betabinomial": lambda y, p: stats.betabinom.logpmf(y, p["n"], p["a"], p["b"]),
    "zeroinflated_dist_binomial": lambda y, p: _zi(
        y, p["c"], stats.binom.logpmf(y, p["n"], p["a"])),
    "zeroinflated_dist_betabinomial": lambda y, p: _zi(
        y, p["c"], stats.betabinom.logpmf(y, p["n"], p["a"], p["b"])),
    "gammapoisson": lambda y, p: _nb(y, p["a"], p["b"] / (1 + p["b"])),
    "negativebinomial2": lambda y, p: _nb(y, p["b"], p["b"] / (p["b"] + p["a"])),
    "negativebinomialprobs": lambda y, p: _nb(y, p["a"], 1 - p["b"]),
    "negativebinomiallogits": lambda y, p: _nb(y, p["a"], special.expit(-p["b"])),
    "zinb2": lambda y, p: _zi(y, p["c"], _nb(y, p["b"], p["b"] / (p["b"] + p["a"]))),
    "zinb2_logits": lambda y, p: _zi(y, special.expit(p["c"]),
                                     _nb(y, p["b"], p["b"] / (p["b"] + p["a"]))),
    "zeroinflated_dist_nb2_logits": lambda y, p: _zi(
        y, special.expit(p["c"]), _nb(y, p["b"], p["b"] / (p["b"] + p["a"]))),
    "hurdle_nb2": lambda y, p: _hurdle(
        y, p["c"], _nb(y, p["b"], p["b"] / (p["b"] + p["a"]))
        - np.log(-np.expm1(p["b"] * np.log(p["b"] / (p["b"] + p["a"]))))),
    "multinomial_probs": lambda y, p: _multinomial(y, p["n"], p["a"]),
    "multinomial_logits": lambda y, p: _multinomial(y, p["n"],
                                                    special.softmax(p["a"], -1)),
}


def model_source(name, case, prec):
    call, params, _, _, kind, event = case
    ins = []
    for p, (shape, gen) in params.items():
        t = "i32" if gen is counts else prec
        ins.append("%s: %s[%s]" % (p, t, ", ".join(["n"] + [str(s) for s in shape])))
    out = "%s[%s]" % ("i32" if kind == "i" else prec,
                      ", ".join(["n"] + [str(s) for s in event]))
    return ("model %s(%s) -> (y: %s) {\n  dummy ~ Normal(0, 1);\n"
            "  plate obs(n) {\n    y ~ %s;\n  }\n}\n"
            % (name, ", ".join(ins), out, call))


class LogDensities(E.E2ETestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        jobs = [(n, p) for n in CASES for p in ("f64", "f32")]

        def build(job):
            name, prec = job
            src = cls.path("%s_%s.aimz" % job)
            with open(src, "w") as f:
                f.write(model_source("d_" + name, CASES[name], prec))
            r = E.aimzc(src, "-o", cls.path("%s_%s.so" % job))
            return job, r
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            cls.built = {job: r for job, r in ex.map(build, jobs)}

    def check(self, name, prec):
        r = self.built[(name, prec)]
        self.assertEqual(r.rc, 0, r)
        call, params, make, value, kind, event = CASES[name]
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        ftype = np.float64 if prec == "f64" else np.float32
        p = {}
        for k, (shape, gen) in params.items():
            v = gen(rng, (N,) + shape)
            p[k] = v if gen is counts else v.astype(ftype)
        ref_params = {k: jnp.asarray(v.astype(np.int64) if gen_is_count(params[k]) else
                                     v.astype(np.float64))
                      for k, v in p.items()}
        d = make(ref_params)
        y = value(rng, p, d)
        if kind == "f":
            y = y.astype(ftype)
        # A support with a tolerance of the value's precision (ZeroSumNormal's
        # sum) is checked on the f32 model's values as f32, as the model does.
        vtype = np.float32 if prec == "f32" and name in F32_SUPPORT else np.float64
        ref = np.asarray(d.log_prob(jnp.asarray(y.astype(
            vtype if kind == "f" else np.int64))))
        data = {k: self.save("%s_%s_%s.npy" % (name, prec, k), v)
                for k, v in p.items()}
        data["y"] = self.save("%s_%s_y.npy" % (name, prec), y)
        post = self.savez("%s_%s_post.npz" % (name, prec),
                          dummy=np.zeros(1, ftype))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", self.path("%s_%s.so" % (name, prec)),
                  data, out, posterior=post)
        got = E.read_arrays(out)["y"][0]
        self.assertEqual(got.shape, ref.shape)
        tol = 1e-10 if prec == "f64" else 1e-5
        tol = max(tol, NUMPYRO_F64_ERROR.get(name, 0))
        if prec == "f32":
            tol = max(tol, F32_COMPOSED_ERROR.get(name, 0))
        finite = np.isfinite(ref)
        np.testing.assert_array_equal(np.isfinite(got), finite,
                                      "%s %s: support differs" % (name, prec))
        np.testing.assert_array_equal(got[~finite], ref[~finite])
        err = np.abs(got[finite] - ref[finite]) / np.maximum(1, np.abs(ref[finite]))
        self.assertLess(err.max(), tol, "%s %s: worst at %s" % (
            name, prec, np.argmax(err)))
        if prec == "f64" and name in SCIPY:
            with np.errstate(all="ignore"):
                sref = SCIPY[name](y, {k: v.astype(np.float64) if k != "n" else v
                                       for k, v in p.items()})
            ok = np.isfinite(sref)
            err = np.abs(got[ok] - sref[ok]) / np.maximum(1, np.abs(sref[ok]))
            self.assertLess(err.max(), 1e-10, "%s: against scipy" % name)


class TruncatedPolyaGammaDraws(E.E2ETestCase):
    """Draws against NumPyro's own sampler (two-sample KS): the same law,
    clipped at 2.5."""

    def test_same_law_as_numpyro(self):
        so = self.compile_source("tpg", "model m(x: f64[n]) -> (y: f64[n]) {\n"
                                 "  plate obs(n) {\n    y ~ TruncatedPolyaGamma();\n"
                                 "  }\n}\n")
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, {"x": self.save("x.npy", np.zeros(4000))},
                  out, num_samples=5, seed=2)
        ours = E.read_arrays(out)["y"].ravel()
        theirs = np.asarray(dist.TruncatedPolyaGamma(batch_shape=(20000,)).sample(
            jax.random.PRNGKey(5)))
        self.assertTrue(np.all((ours > 0) & (ours <= 2.5)))
        self.assertGreater(stats.ks_2samp(ours, theirs).pvalue, 1e-4)



class SineBivariateVonMisesDraws(E.E2ETestCase):
    """Draws against NumPyro's own sampler (two-sample KS on each angle and
    on sin(phi - phi_loc) sin(psi - psi_loc), which carries the coupling),
    in a unimodal, a bimodal (correlation^2 > k1 k2) and a concentrated
    case; and the density integrates to 1 over the torus (the normalizer
    summed as a series, checked without NumPyro), periodic in each angle."""

    CASES = [(0.5, -2.0, 2.0, 1.0, 0.8), (0.0, 1.0, 1.0, 1.5, -3.5),
             (3.0, -3.0, 60.0, 25.0, 20.0)]

    def model(self, prec):
        return self.compile_source("sbvm_" + prec, (
            "model m(a: {p}[n], b: {p}[n], c: {p}[n], d: {p}[n], e: {p}[n]) -> "
            "(y: {p}[n, 2]) {{\n  dummy ~ Normal(0, 1);\n  plate obs(n) {{\n"
            "    y ~ SineBivariateVonMises(a, b, c, d, e);\n  }}\n}}\n").format(p=prec))

    def inputs(self, tag, params, n, prec):
        ftype = np.float64 if prec == "f64" else np.float32
        return {k: self.save("%s_%s.npy" % (tag, k), np.full(n, v, ftype))
                for k, v in zip("abcde", params)}

    def test_same_law_as_numpyro(self):
        for prec in ("f64", "f32"):
            so = self.model(prec)
            for i, params in enumerate(self.CASES):
                out = self.fresh(".npz")
                E.run_cmd("prior-predictive", so, self.inputs("c%d" % i, params, 4000, prec),
                          out, num_samples=3, seed=11 + i)
                ours = E.read_arrays(out)["y"].reshape(-1, 2).astype(np.float64)
                theirs = np.asarray(dist.SineBivariateVonMises(*params).sample(
                    jax.random.PRNGKey(i), (12000,)))
                self.assertTrue(np.all((ours >= -np.pi) & (ours < np.pi)), (prec, params))
                a, b = params[0], params[1]
                for f in (lambda v: v[:, 0], lambda v: v[:, 1],
                          lambda v: np.sin(v[:, 0] - a) * np.sin(v[:, 1] - b)):
                    self.assertGreater(stats.ks_2samp(f(ours), f(theirs)).pvalue, 1e-4,
                                       (prec, params))

    def test_density_integrates_to_one(self):
        so = self.model("f64")
        m = 256  # the periodic trapezoid rule converges geometrically
        g = -np.pi + 2 * np.pi * np.arange(m) / m
        y = np.stack(np.meshgrid(g, g, indexing="ij"), -1).reshape(-1, 2)
        for i, params in enumerate(self.CASES + [(0.0, 0.0, 0.3, 0.2, 0.0)]):
            data = self.inputs("g%d" % i, params, len(y), "f64")
            data["y"] = self.save("g%d_y.npy" % i, y)
            out = self.fresh(".npz")
            E.run_cmd("log-likelihood", so, data, out,
                      posterior=self.savez("g%d_post.npz" % i, dummy=np.zeros(1)))
            lp = E.read_arrays(out)["y"][0]
            total = np.exp(lp).sum() * (2 * np.pi / m) ** 2
            self.assertAlmostEqual(total, 1.0, delta=1e-10, msg=params)
        # Angles a whole number of turns away score the same.
        shifted = y + 2 * np.pi * np.random.default_rng(3).integers(-3, 4, y.shape)
        data["y"] = self.save("g_shifted_y.npy", shifted)
        out2 = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out2,
                  posterior=self.savez("g_post.npz", dummy=np.zeros(1)))
        np.testing.assert_allclose(E.read_arrays(out2)["y"][0], lp, rtol=1e-9, atol=1e-9)

def add_tests():
    for name in CASES:
        for prec in ("f64", "f32"):
            def t(self, name=name, prec=prec):
                self.check(name, prec)
            setattr(LogDensities, "test_%s_%s" % (name, prec), t)


add_tests()

if __name__ == "__main__":
    E.main()
