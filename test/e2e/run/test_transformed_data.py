"""Transformed data: statistics of the inputs along the observation axis
(column means, sd, max, min), and of any expression of the data (through
the model's compiled pre-pass: mean(log(x)), X.T @ X), are computed by the
runtime once, from every observation, before the run. Every command against NumPy and SciPy, the
same bytes whatever the plan, devices, batch size or MPI ranks, and the
runtime's refusal of a statistic it cannot take."""

import os
import shutil
import subprocess
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


def same_on_partitions(test, command, so, data, partitions, suffix=".zarr",
                       **options):
    """aimz-run COMMAND once per (axis, devices, batch): every run writes
    the same arrays (the statistics of the data do not depend on the
    partition); the first run's arrays."""
    outs = []
    for axis, devices, batch in partitions:
        out = test.fresh(suffix)
        E.run_cmd(command, so, data, out, axis=axis, devices=devices,
                  batch=batch, **options)
        outs.append(E.read_arrays(out))
    for o in outs[1:]:
        test.assert_same_arrays(outs[0], o)
    return outs[0]


def assert_mpi_same_bytes(test, so, X, posterior):
    """predict on 3 MPI ranks writes the bytes of a one-rank run (the
    statistics of the data computed by every rank from the whole data)."""
    mpirun = shutil.which("mpirun")
    v = subprocess.run([E.AIMZ_RUN, "--version"], capture_output=True,
                       text=True).stdout
    if not mpirun or "MPI" not in v:
        test.skipTest("no mpirun or aimz-run built without MPI")
    args = ["predict", so, "--data", "X=" + X, "--posterior", posterior,
            "--seed", "3", "--devices", "1", "--batch-size", "500",
            "--no-progress"]
    ref = test.fresh()
    E.aimz_run(*(args + ["--out", ref]))
    out = test.fresh()
    p = subprocess.run([mpirun, "--oversubscribe", "--allow-run-as-root",
                        "-n", "3", E.AIMZ_RUN] + args + ["--out", out],
                       capture_output=True, text=True, timeout=300)
    test.assertEqual(p.returncode, 0, p.stderr)
    test.assert_same_store(ref, out)


class CentredRegression(E.E2ETestCase):
    N, K, D = 3000, 3, 8

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(351)
        self.X = (rng.normal(size=(self.N, self.K)) * [1, 3, 0.5] +
                  [5, -2, 100]).astype(np.float32)
        self.post = dict(Intercept=rng.normal(size=self.D),
                         b=rng.normal(size=(self.D, self.K)),
                         sigma=rng.uniform(0.5, 2, self.D))
        self.post = {k: v.astype(np.float32) for k, v in self.post.items()}
        self.data = {"X": self.save("X.npy", self.X)}
        self.pp = self.savez("post.npz", **self.post)

    def mu(self):
        # The model's own f32 arithmetic on the f32 means (computed in
        # double by the runtime, then rounded).
        means = self.X.astype(np.float64).mean(axis=0).astype(np.float32)
        Xc = self.X - means
        return (self.post["Intercept"][:, None].astype(np.float64) +
                self.post["b"].astype(np.float64) @ Xc.T.astype(np.float64)), means

    def test_predict_every_partition_same_bytes(self):
        so = E.model("centred_regression")
        got = same_on_partitions(
            self, "predict", so, self.data,
            (("obs", 1, None), ("obs", 2, 333), ("draw", 2, 3)),
            posterior=self.pp, seed=4, sites=["y", "b_Intercept"])
        mu, means = self.mu()
        want = (self.post["Intercept"].astype(np.float64) -
                self.post["b"].astype(np.float64) @ means.astype(np.float64))
        np.testing.assert_allclose(got["b_Intercept"], want, rtol=2e-5,
                                   atol=2e-4)
        z = (got["y"] - mu) / self.post["sigma"][:, None]
        self.assertGreater(stats.kstest(z.ravel(), "norm").pvalue, 1e-4)

    def test_log_likelihood_against_scipy(self):
        so = E.model("centred_regression")
        mu, _ = self.mu()
        y = (mu[0] + 0.7).astype(np.float32)
        data = dict(self.data, y=self.save("y.npy", y))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out, posterior=self.pp)
        got = E.read_arrays(out)["y"]
        ref = stats.norm.logpdf(y[None], mu, self.post["sigma"][:, None])
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-4)

    def test_prior_predictive_uses_the_data_means(self):
        so = E.model("centred_regression")
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, self.data, out, num_samples=50,
                  sites=["Intercept", "b", "b_Intercept"], seed=2)
        got = E.read_arrays(out)
        means = self.X.astype(np.float64).mean(axis=0)
        np.testing.assert_allclose(
            got["b_Intercept"],
            got["Intercept"] - got["b"].astype(np.float64) @ means,
            rtol=1e-4, atol=1e-3)

    def test_mpi_ranks_same_bytes(self):
        assert_mpi_same_bytes(self, E.model("centred_regression"),
                              self.data["X"], self.pp)


class StandardizedLatent(E.E2ETestCase):
    N, D = 1000, 5

    def test_draw_plan_against_scipy_on_any_partition(self):
        so = E.model("standardized_latent")
        r = E.aimz_run("info", so)
        self.assertIn("plan: draw", r.stdout)
        self.assertIn("transformed data (computed before the run): "
                      "mean(t): f64[] sd(t): f64[]", r.stdout)
        rng = np.random.default_rng(352)
        t = rng.gamma(2, 3, self.N)
        post = dict(s=rng.uniform(0.5, 1.5, self.D),
                    z=rng.normal(size=(self.D, self.N)))
        y = rng.normal(size=self.N)
        data = {"t": self.save("t.npy", t), "y": self.save("y.npy", y)}
        pp = self.savez("post.npz", **post)
        got = same_on_partitions(self, "log-likelihood", so, data,
                                 ((None, 1, None), (None, 2, 2)), ".npz",
                                 posterior=pp)
        span = t.max() - t.min()
        ref = stats.norm.logpdf(y[None], post["z"] + span, post["s"][:, None])
        np.testing.assert_allclose(got["y"], ref, rtol=1e-12)
        # predict draws z from its prior around the standardized t (with
        # the sample sd, N - 1).
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, {"t": data["t"]}, out,
                  num_samples=400, sites=["z", "t_scaled"], seed=8)
        z = E.read_arrays(out)["z"]
        tz = (t - t.mean()) / t.std(ddof=1)
        np.testing.assert_allclose(E.read_arrays(out)["t_scaled"][0], tz,
                                   rtol=1e-13, atol=1e-13)
        self.assertGreater(stats.kstest((z - tz[None]).ravel(), "norm").pvalue,
                           1e-4)

    def test_sums_are_compensated(self):
        # 1e16 + 1 - 1e16 + 1: a plain double sum loses the first 1.
        so = E.model("standardized_latent")
        t = np.array([1e16, 1.0, -1e16, 1.0])
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, {"t": self.save("tc.npy", t)}, out,
                  num_samples=2, sites=["t_total"])
        np.testing.assert_array_equal(E.read_arrays(out)["t_total"], [2, 2])

    def test_sd_of_one_observation_is_refused(self):
        so = E.model("standardized_latent")
        data = {"t": self.save("t1.npy", np.array([2.0]))}
        r = E.run_cmd("prior-predictive", so, data, self.fresh(),
                      num_samples=3, check=False)
        self.assert_one_error_line(r, "sd(t)", "at least two observations")


STATISTICS_SOURCE = """model stats(t: %s[n]) -> (y: f32[n]) {
  transformed lo = min(t);
  transformed hi = max(t);
  transformed total = sum(t);
  deterministic d_lo = lo;
  deterministic d_hi = hi;
  deterministic d_total = total;
  plate obs(n) { y ~ Normal(0, 1); }
}
"""


class ExactStatistics(E.E2ETestCase):
    """Integer statistics are exact (64-bit accumulators, never through
    double), their overflow is refused; a floating statistic beyond the
    model's precision is reported as a non-finite result."""

    def compile(self, dtype):
        return self.compile_source("stats_" + dtype, STATISTICS_SOURCE % dtype)

    def statistics(self, so, t, extra=(), check=True):
        out = self.fresh(".npz")
        r = E.run_cmd("prior-predictive", so, {"t": self.save("t.npy", t)},
                      out, num_samples=1, check=check, extra=list(extra),
                      sites=["d_lo", "d_hi", "d_total"])
        return r, (E.read_arrays(out) if r.rc == 0 else None)

    def test_integer_statistics_are_exact(self):
        so = self.compile("i64")
        # Nanosecond timestamps: through double, min is off by 21.
        t = np.array([1733438243123456789, 1733438243123456811,
                      1733438243123456790], np.int64)
        _, got = self.statistics(so, t)
        self.assertEqual(int(got["d_lo"][0]), int(t.min()))
        self.assertEqual(int(got["d_hi"][0]), int(t.max()))
        # 2^53 + 1 + 0: a double sum gives 2^53.
        _, got = self.statistics(so, np.array([2 ** 53, 1, 0], np.int64))
        self.assertEqual(int(got["d_total"][0]), 2 ** 53 + 1)

    def test_integer_overflow_is_refused(self):
        so = self.compile("i64")
        t = np.array([2 ** 62, 2 ** 62, 1], np.int64)
        r, _ = self.statistics(so, t, check=False)
        self.assert_one_error_line(r, "'sum(t)'", "overflows i64")
        so = self.compile("i32")
        r, _ = self.statistics(so, np.array([2 ** 30, 2 ** 30], np.int32),
                               check=False)
        self.assert_one_error_line(r, "'sum(t)'", "overflows i32")

    def test_float_overflow_is_a_non_finite_result(self):
        so = self.compile("f32")
        t = np.full(4, 3e38, np.float32)
        r, got = self.statistics(so, t)
        lines = [l for l in r.warnings() if "non-finite" in l]
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn("transformed data 'sum(t)' is NaN or infinite in 1 of "
                      "its 1 values in f32", lines[0])
        self.assertTrue(np.isinf(got["d_total"]).all())
        r, _ = self.statistics(so, t, extra=["--strict"], check=False)
        self.assertNotEqual(r.rc, 0)
        self.assertIn("transformed data 'sum(t)'", r.stderr)



class BrmsDesignMatrix(E.E2ETestCase):
    """brms's own layout: X with its intercept column, centred on X[:, 1:]
    (dsl-examples/brms_design_matrix.aimz); statistics of views of inputs
    against NumPy."""

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(12)
        N, K, D = 101, 4, 6
        self.X = np.column_stack([np.ones(N), rng.normal(2, 3, (N, K - 1))])
        self.Y = rng.normal(size=N)
        self.post = {"b": rng.normal(size=(D, K - 1)),
                     "Intercept": rng.normal(size=D),
                     "sigma": rng.uniform(0.5, 2, D)}
        self.pp = self.savez("brms_post.npz", **self.post)
        self.data = {"X": self.save("brms_X.npy", self.X)}

    def test_log_likelihood_and_b_intercept(self):
        so = E.model("brms_design_matrix")
        means = self.X[:, 1:].mean(axis=0)
        Xc = self.X[:, 1:] - means
        mu = self.post["Intercept"][:, None] + self.post["b"] @ Xc.T
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  dict(self.data, Y=self.save("brms_Y.npy", self.Y)), out,
                  posterior=self.pp)
        np.testing.assert_allclose(
            E.read_arrays(out)["Y"],
            stats.norm.logpdf(self.Y, mu, self.post["sigma"][:, None]),
            rtol=1e-12)
        got = same_on_partitions(
            self, "predict", so, self.data,
            (("obs", 1, None), ("obs", 2, 7), ("draw", 2, 2)),
            posterior=self.pp, seed=5, sites=["Y", "b_Intercept"])
        np.testing.assert_allclose(
            got["b_Intercept"],
            self.post["Intercept"] - self.post["b"] @ means, rtol=1e-12)

    def test_statistics_of_views(self):
        so = self.compile_source("view_statistics", """
model m(X: f64[N, K], t: f64[N, 2, 3]) -> (y: f64[N]) {
  transformed m1 = mean(X[:, 1:], axis=0);
  transformed s2 = sd(X[:, 2]);
  transformed x1 = max(X[:, 1:3], axis=0);
  transformed c0 = sum(X[:, 0]);
  transformed tm = mean(t[:, 1, 1:], axis=0);
  transformed lse = logsumexp(t[:, :, -1], axis=0);
  a ~ Normal(0, 1);
  deterministic d = concatenate([m1, [s2], x1, [c0], tm, lse]);
  y ~ Normal(a, 1)[N];
}
""")
        rng = np.random.default_rng(13)
        t = rng.normal(size=(self.X.shape[0], 2, 3))
        out = self.fresh()
        E.run_cmd("predict", so, dict(self.data, t=self.save("brms_t.npy", t)),
                  out, posterior=self.savez("vs_post.npz", a=np.zeros(2)),
                  seed=1, sites=["d"])
        X = self.X
        want = np.concatenate([X[:, 1:].mean(0), [X[:, 2].std(ddof=1)],
                               X[:, 1:3].max(0), [X[:, 0].sum()],
                               t[:, 1, 1:].mean(0),
                               np.log(np.exp(t[:, :, -1]).sum(0))])
        got = E.read_arrays(out)["d"]
        np.testing.assert_allclose(got, np.stack([want, want]), rtol=1e-13)


WELLS_SOURCE = """
# Gelman and Hill (2007), section 5.6: switching wells, with distance and
# log arsenic centred and their interaction (c.log.arsenic <- log.arsenic -
# mean(log.arsenic)); educ4 = educ / 4.
model wells(dist: f64[N], arsenic: f64[N], assoc: f64[N],
            educ: f64[N]) -> (switched: i32[N]) {
  transformed c_dist100 = (dist - mean(dist)) / 100;
  transformed log_arsenic = log(arsenic);
  transformed c_log_arsenic = log_arsenic - mean(log_arsenic);
  transformed educ4 = educ / 4;
  alpha ~ Normal(0, 2.5);
  beta ~ Normal(0, 2.5)[5];
  plate obs(N) {
    switched ~ Bernoulli(logits=alpha + beta[0] * c_dist100
                         + beta[1] * c_log_arsenic
                         + beta[2] * c_dist100 * c_log_arsenic
                         + beta[3] * assoc + beta[4] * educ4);
  }
}
"""


class WellsLogArsenic(E.E2ETestCase):
    """A statistic of a transformed value (mean(log_arsenic)) through the
    pre-pass: the log-likelihood against SciPy, the same bytes whatever the
    plan, devices or batch."""

    def test_log_likelihood_against_scipy_on_any_partition(self):
        so = self.compile_source("wells", WELLS_SOURCE)
        rng = np.random.default_rng(56)
        N, D = 3020, 7
        cols = {"dist": rng.gamma(2, 25, N), "arsenic": rng.gamma(2, 0.8, N),
                "assoc": rng.integers(0, 2, N).astype(float),
                "educ": rng.integers(0, 18, N).astype(float)}
        post = {"alpha": rng.normal(size=D), "beta": rng.normal(size=(D, 5))}
        y = rng.integers(0, 2, N).astype(np.int32)
        data = {k: self.save(k + ".npy", v) for k, v in cols.items()}
        data["switched"] = self.save("switched.npy", y)
        pp = self.savez("post.npz", **post)
        got = same_on_partitions(
            self, "log-likelihood", so, data,
            (("obs", 1, None), ("obs", 2, 333), ("draw", 2, 3)), ".npz",
            posterior=pp)
        cd = (cols["dist"] - cols["dist"].mean()) / 100
        la = np.log(cols["arsenic"])
        cla = la - la.mean()
        x = np.stack([cd, cla, cd * cla, cols["assoc"], cols["educ"] / 4])
        eta = post["alpha"][:, None] + post["beta"] @ x
        ref = stats.bernoulli.logpmf(y[None], 1 / (1 + np.exp(-eta)))
        np.testing.assert_allclose(got["switched"], ref, rtol=1e-9,
                                   atol=1e-12)


EXPRESSIONS_SOURCE = """
model m(x: f64[N], X: f64[N, K], t: i64[N]) -> (y: f64[N]) {
  transformed lx = log(x);
  transformed z = (lx - mean(lx)) / sd(lx - mean(lx));
  transformed mad = mean(abs(lx - mean(lx)));
  transformed XtX = X.T @ X;
  transformed Xtx = X.T @ x;
  transformed xx = x @ x;
  transformed cm = mean(X[:, 1:] * x[:, None], axis=0);
  transformed big = sum(x > 1.5);
  transformed tmin = min(t - 1);
  transformed lse = logsumexp(X * 2.0, axis=0);
  a ~ Normal(0, 1);
  deterministic d_z = z;
  deterministic d_XtX = XtX;
  deterministic d_vec = concatenate([Xtx, [xx], cm, lse, [mad]]);
  deterministic d_big = big;
  deterministic d_tmin = tmin;
  plate obs(N) { y ~ Normal(a + z, 1); }
}
"""


class StatisticsOfExpressions(E.E2ETestCase):
    """Statistics of expressions against NumPy: rounds (the mean absolute
    deviation of a value that reads mean(lx)), products over the observation axis, integer statistics
    exact (bool counts, an i64 minimum), over more rows than one pre-pass
    block, and the same bytes on any partition."""

    def setUp(self):
        super().setUp()
        self.so = self.compile_source("expressions", EXPRESSIONS_SOURCE)
        rng = np.random.default_rng(57)
        # 3 x 3 products per row: 116508 rows per block, so three blocks.
        N, K = 300001, 3
        self.x = rng.uniform(0.5, 3, N)
        self.X = rng.normal(size=(N, K))
        self.t = (1733438243123456789 + rng.integers(-10**6, 10**6, N)
                  ).astype(np.int64)
        self.data = {"x": self.save("x.npy", self.x),
                     "X": self.save("X.npy", self.X),
                     "t": self.save("t.npy", self.t)}

    def test_against_numpy_on_any_partition(self):
        sites = ["d_z", "d_XtX", "d_vec", "d_big", "d_tmin"]
        got = same_on_partitions(self, "prior-predictive", self.so,
                                 self.data, ((None, 1, None), (None, 2, 70000)),
                                 num_samples=2, sites=sites, seed=3)
        x, X = self.x, self.X
        lx = np.log(x)
        z = (lx - lx.mean()) / (lx - lx.mean()).std(ddof=1)
        np.testing.assert_allclose(got["d_z"][0], z, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got["d_XtX"][0], X.T @ X, rtol=1e-12)
        vec = np.concatenate([X.T @ x, [x @ x],
                              (X[:, 1:] * x[:, None]).mean(0),
                              np.log(np.exp(2 * X).sum(0)),
                              [np.abs(lx - lx.mean()).mean()]])
        np.testing.assert_allclose(got["d_vec"][0], vec, rtol=1e-12)
        self.assertEqual(int(got["d_big"][0]), int((x > 1.5).sum()))
        self.assertEqual(int(got["d_tmin"][0]), int(self.t.min()) - 1)

    def test_non_finite_statistic_is_reported(self):
        x = self.x.copy()
        x[17] = -1.0  # log(-1): NaN, so mean(lx) is NaN
        data = dict(self.data, x=self.save("x_neg.npy", x))
        r = E.run_cmd("prior-predictive", self.so, data, self.fresh(),
                      num_samples=1, sites=["d_z"])
        lines = [l for l in r.warnings() if "mean(lx)" in l]
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn("NaN or infinite", lines[0])
        r = E.run_cmd("prior-predictive", self.so, data, self.fresh(),
                      num_samples=1, sites=["d_z"], extra=["--strict"],
                      check=False)
        self.assertNotEqual(r.rc, 0)
        self.assertIn("transformed data 'mean(lx)'", r.stderr)

    def test_index_out_of_range_names_the_statistic(self):
        so = self.compile_source("gathered_statistic", """
model m(v: f64[G], g: i32[N]) -> (y: f64[N]) {
  transformed vm = mean(v[g]);
  a ~ Normal(0, 1);
  plate obs(N) { y ~ Normal(a + vm, 1); }
}
""")
        data = {"v": self.save("v.npy", np.arange(3.0)),
                "g": self.save("g.npy", np.array([0, 1, 5], np.int32))}
        r = E.run_cmd("prior-predictive", so, data, self.fresh(),
                      num_samples=1, check=False)
        self.assert_one_error_line(r, "transformed data 'mean(v[g])'",
                                   "outside its dimension")


class QRRegression(E.E2ETestCase):
    """dsl-examples/qr_regression.aimz (the Stan User's Guide's QR
    reparameterization) against NumPy's QR: the same likelihood as the
    regression on X, beta recovered, the same bytes on any partition and
    MPI rank count."""

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(58)
        N, K, D = 2001, 4, 6
        self.X = (rng.normal(size=(N, K)) @ rng.normal(size=(K, K)) +
                  rng.normal(size=K) * 3)
        self.post = {"alpha": rng.normal(size=D),
                     "theta": rng.normal(size=(D, K)),
                     "sigma": rng.uniform(0.5, 2, D)}
        self.pp = self.savez("qr_post.npz", **self.post)
        self.data = {"X": self.save("qr_X.npy", self.X)}

    def reference(self):
        N = self.X.shape[0]
        Q, R = np.linalg.qr(self.X)
        s = np.sign(np.diag(R))  # Cholesky's R has a positive diagonal
        R_ast = (R * s[:, None]) / np.sqrt(N - 1)
        Q_ast = Q * s * np.sqrt(N - 1)
        return Q_ast, np.linalg.inv(R_ast)

    def test_log_likelihood_against_scipy(self):
        so = E.model("qr_regression")
        Q_ast, R_inv = self.reference()
        mu = self.post["alpha"][:, None] + self.post["theta"] @ Q_ast.T
        y = mu[0] + np.random.default_rng(1).normal(size=mu.shape[1])
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, dict(self.data, y=self.save(
            "qr_y.npy", y)), out, posterior=self.pp)
        ref = stats.norm.logpdf(y[None], mu, self.post["sigma"][:, None])
        np.testing.assert_allclose(E.read_arrays(out)["y"], ref, rtol=1e-9)
        # The same regression on X: Q_ast theta = X beta.
        beta = self.post["theta"] @ R_inv.T
        np.testing.assert_allclose(mu, self.post["alpha"][:, None] +
                                   beta @ self.X.T, rtol=1e-9, atol=1e-9)

    def test_predict_beta_on_any_partition(self):
        so = E.model("qr_regression")
        got = same_on_partitions(
            self, "predict", so, self.data,
            (("obs", 1, None), ("obs", 2, 333), ("draw", 2, 2)),
            posterior=self.pp, seed=5, sites=["y", "beta"])
        _, R_inv = self.reference()
        np.testing.assert_allclose(got["beta"],
                                   self.post["theta"] @ R_inv.T, rtol=1e-9)

    def test_mpi_ranks_same_bytes(self):
        assert_mpi_same_bytes(self, E.model("qr_regression"), self.data["X"],
                              self.pp)


if __name__ == "__main__":
    E.main()
