"""Pairs of angles: NumPyro's SineBivariateVonMises and SineSkewed over it
(runtime/include/aimz/math/Circular.h), checked with NumPy and SciPy only:

- NumPyro's example "Sine-skewed sine (bivariate von Mises) mixture"
  (examples/ssbvm_mixture.py, protein backbone dihedral angles) written
  line by line compiles, and its predictive draws, given a posterior
  whose weight sits on one component, follow that component's law (KS
  against the marginal CDFs of the density integrated on a fine grid);
- the densities, with parameters per observation, against the formula
  normalized numerically over the torus (the periodic trapezoid rule
  converges geometrically), at both precisions: this checks the
  normalizer's Bessel series without NumPyro;
- draws of the plain pair against the same grid (both marginals and the
  coupling E[sin(phi - phi_loc) sin(psi - psi_loc)]), unimodal and bimodal.
"""

import os
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

# NumPyro's ss_model: mix_comp is enumerated there for inference and drawn
# by its Predictive, as here.
SS_MODEL = """
model ss_model() -> (phi_psi: f64[n, 2]) {
  const K = 3;
  mix_weights ~ Dirichlet(ones(K));
  beta_mean_phi ~ Uniform(0.0, 1.0);
  beta_count_phi ~ Gamma(1.0, 1.0 / K);  # shape, rate
  let halpha_phi = beta_mean_phi * beta_count_phi;
  beta_mean_psi ~ Uniform(0, 1.0);
  beta_count_psi ~ Gamma(1.0, 1.0 / K);
  let halpha_psi = beta_mean_psi * beta_count_psi;
  plate mixture(K) {
    phi_loc ~ VonMises(3.141592653589793, 2.0);
    psi_loc ~ VonMises(0.0, 0.1);
    phi_conc ~ Beta(halpha_phi, beta_count_phi - halpha_phi);
    psi_conc ~ Beta(halpha_psi, beta_count_psi - halpha_psi);
    corr_scale ~ Beta(2.0, 10.0);
    skew_phi ~ Uniform(-1.0, 1.0);
    let psi_bound = 1 - abs(skew_phi);
    skew_psi ~ Uniform(-1.0, 1.0);
    let skewness = stack((skew_phi, psi_bound * skew_psi), axis=-1);
  }
  plate obs_plate(n) {
    mix_comp ~ Categorical(mix_weights);
    phi_psi ~ SineSkewed(SineBivariateVonMises(
                           phi_loc=phi_loc[mix_comp], psi_loc=psi_loc[mix_comp],
                           phi_concentration=70 * phi_conc[mix_comp],
                           psi_concentration=70 * psi_conc[mix_comp],
                           weighted_correlation=corr_scale[mix_comp]),
                         skewness[mix_comp]);
  }
}
"""

PAIR = """
model pair(a: {p}[n], b: {p}[n], c: {p}[n], d: {p}[n], e: {p}[n], s: {p}[n, 2])
    -> (y: {p}[n, 2]) {{
  dummy ~ Normal(0, 1);
  plate obs(n) {{
    y ~ {call};
  }}
}}
"""
PLAIN = "SineBivariateVonMises(a, b, c, d, correlation=e)"
SKEWED = "SineSkewed(SineBivariateVonMises(a, b, c, d, weighted_correlation=e), s)"

M = 512  # grid points per angle
GRID = -np.pi + 2 * np.pi * np.arange(M) / M


def log_density(phi, psi, a, b, k1, k2, lam, skew=(0.0, 0.0)):
    """The unnormalized log density (NumPyro's formula) times the skewing."""
    u, v = phi - a, psi - b
    return (k1 * np.cos(u) + k2 * np.cos(v) + lam * np.sin(u) * np.sin(v)
            + np.log1p(skew[0] * np.sin(u) + skew[1] * np.sin(v)))


def grid_density(*params, skew=(0.0, 0.0)):
    """The density on the grid, normalized over the torus."""
    P, Q = np.meshgrid(GRID, GRID, indexing="ij")
    lf = log_density(P, Q, *params, skew=skew)
    f = np.exp(lf - lf.max())
    return f / (f.sum() * (2 * np.pi / M) ** 2)


def marginal_cdf(f, axis):
    """CDF on [-pi, pi) of one angle's marginal, as a function."""
    h = 2 * np.pi / M
    pdf = f.sum(axis=1 - axis) * h
    # the grid's cells, each [g, g + h), carry pdf(g) h (the midpoint-free
    # periodic rule); interpolate within cells
    edges = np.concatenate([GRID, [np.pi]])
    cdf = np.concatenate([[0.0], np.cumsum(pdf) * h])
    cdf /= cdf[-1]
    return lambda x: np.interp(x, edges, cdf)


class TorusAngles(E.E2ETestCase):
    def pair_model(self, call, prec):
        name = "pair_%s_%s" % ("skewed" if call is SKEWED else "plain", prec)
        return self.compile_source(name, PAIR.format(p=prec, call=call))

    def inputs(self, tag, columns, prec):
        t = np.float64 if prec == "f64" else np.float32
        return {k: self.save("%s_%s_%s.npy" % (tag, prec, k), np.asarray(v, t))
                for k, v in columns.items()}

    def random_params(self, rng, n):
        s = rng.uniform(-1, 1, (n, 2))
        s *= rng.uniform(0, 0.95, (n, 1)) / np.abs(s).sum(1, keepdims=True)
        return dict(a=rng.uniform(-np.pi, np.pi, n), b=rng.uniform(-np.pi, np.pi, n),
                    c=rng.uniform(0.2, 30, n), d=rng.uniform(0.2, 30, n),
                    e=rng.uniform(-1.5, 1.5, n), s=s)

    def check_densities(self, call, prec, tol):
        rng = np.random.default_rng(7)
        n = 60
        p = self.random_params(rng, n)
        t = np.float64 if prec == "f64" else np.float32
        p = {k: np.asarray(v, t) for k, v in p.items()}
        y = rng.uniform(-np.pi, np.pi, (n, 2))
        data = self.inputs("dens", dict(p, y=y), prec)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", self.pair_model(call, prec), data, out,
                  posterior=self.savez("dens_post.npz", dummy=np.zeros(1, t)))
        got = E.read_arrays(out)["y"][0]
        q = {k: v.astype(np.float64) for k, v in p.items()}
        yq = y.astype(t).astype(np.float64)
        for i in range(n):
            skewed = call is SKEWED
            lam = q["e"][i] * np.sqrt(q["c"][i] * q["d"][i]) if skewed else q["e"][i]
            params = (q["a"][i], q["b"][i], q["c"][i], q["d"][i], lam)
            skew = tuple(q["s"][i]) if skewed else (0.0, 0.0)
            P, Q = np.meshgrid(GRID, GRID, indexing="ij")
            lf = log_density(P, Q, *params, skew=skew)
            log_z = lf.max() + np.log(np.exp(lf - lf.max()).sum() * (2 * np.pi / M) ** 2)
            want = log_density(yq[i, 0], yq[i, 1], *params, skew=skew) - log_z
            self.assertLess(abs(got[i] - want) / max(1, abs(want)), tol, (i, params, skew))

    def test_plain_densities(self):
        self.check_densities(PLAIN, "f64", 1e-9)
        self.check_densities(PLAIN, "f32", 2e-5)

    def test_skewed_densities(self):
        self.check_densities(SKEWED, "f64", 1e-9)
        self.check_densities(SKEWED, "f32", 2e-5)

    def check_draws(self, so, data, out_name, params, skew, n, seed, post=None):
        out = self.fresh(".npz")
        if post is None:
            E.run_cmd("prior-predictive", so, data, out, num_samples=3, seed=seed)
        else:
            E.run_cmd("predict", so, {}, out, posterior=post, seed=seed,
                      extra=("--num-observations", str(n)))
        x = E.read_arrays(out)[out_name].reshape(-1, 2).astype(np.float64)
        self.assertTrue(np.all((x >= -np.pi) & (x < np.pi)))
        f = grid_density(*params, skew=skew)
        for axis in (0, 1):
            pvalue = stats.kstest(x[:, axis], marginal_cdf(f, axis)).pvalue
            self.assertGreater(pvalue, 1e-4, (params, skew, axis))
        P, Q = np.meshgrid(GRID, GRID, indexing="ij")
        g = np.sin(P - params[0]) * np.sin(Q - params[1])
        mean = (g * f).sum() * (2 * np.pi / M) ** 2
        sd = np.sqrt(((g - mean) ** 2 * f).sum() * (2 * np.pi / M) ** 2)
        got = np.mean(np.sin(x[:, 0] - params[0]) * np.sin(x[:, 1] - params[1]))
        self.assertLess(abs(got - mean), 5 * sd / np.sqrt(len(x)), params)

    def test_plain_draws(self):
        so = self.pair_model(PLAIN, "f64")
        for i, params in enumerate([(0.5, -2.0, 2.0, 1.0, 0.8), (0.0, 1.0, 1.0, 1.5, -3.5),
                                    (3.0, -3.0, 60.0, 25.0, 20.0)]):
            n = 4000
            cols = dict(zip("abcde", (np.full(n, v) for v in params)), s=np.zeros((n, 2)))
            self.check_draws(so, self.inputs("d%d" % i, cols, "f64"), "y", params,
                             (0.0, 0.0), n, 30 + i)

    def test_ss_model_component_law(self):
        """NumPyro's example, its weight on the second component."""
        so = self.compile_source("ss_model", SS_MODEL)
        draws, n = 4, 3000
        comp = dict(phi_loc=[2.5, -1.2, 0.3], psi_loc=[0.0, 2.4, -0.7],
                    phi_conc=[0.5, 0.2, 0.9], psi_conc=[0.4, 0.6, 0.1],
                    corr_scale=[0.1, 0.6, 0.3], skew_phi=[0.2, -0.5, 0.0],
                    skew_psi=[0.1, 0.8, -0.3])
        post = {k: np.tile(np.asarray(v, np.float64), (draws, 1)) for k, v in comp.items()}
        post.update(mix_weights=np.tile([0.0, 1.0, 0.0], (draws, 1)),
                    beta_mean_phi=np.full(draws, 0.5), beta_count_phi=np.full(draws, 3.0),
                    beta_mean_psi=np.full(draws, 0.5), beta_count_psi=np.full(draws, 3.0))
        k1, k2 = 70 * comp["phi_conc"][1], 70 * comp["psi_conc"][1]
        lam = comp["corr_scale"][1] * np.sqrt(k1 * k2)
        skew = (comp["skew_phi"][1], (1 - abs(comp["skew_phi"][1])) * comp["skew_psi"][1])
        params = (comp["phi_loc"][1], comp["psi_loc"][1], k1, k2, lam)
        self.check_draws(so, {}, "phi_psi", params, skew, n, 4,
                         post=self.savez("ss_post.npz", **post))


if __name__ == "__main__":
    E.main()
