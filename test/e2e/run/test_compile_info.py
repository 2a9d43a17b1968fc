"""Compile every example; scan_rejected must fail with a diagnostic.
`aimz-run info` and `aimz-run devices`, and the README main path: predict on
a bundled example prints where the store is and how to open it in xarray,
and that command works."""

import glob
import json
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

# Expected plan and site classes, written from the .aimz sources.
EXPECTED = {
    "golf_angle": ("obs", [], {"sigma": "global", "sigma_degrees": "global",
                               "y": "observed"}),
    "linreg": ("obs", [], {"alpha": "global", "beta": "global",
                           "sigma": "global", "eta": "obs_aligned",
                           "y": "observed"}),
    "logistic": ("obs", [], {"intercept": "global", "coef": "global",
                             "p": "obs_aligned", "y": "observed"}),
    "hierarchical": ("obs", [], {"mu_a": "global", "sigma_a": "global",
                                 "a": "global", "b": "global",
                                 "sigma": "global", "y": "observed"}),
    "poisson": ("obs", [], {"beta0": "global", "beta": "global",
                            "rate": "obs_aligned", "y": "observed"}),
    "local_latent": ("draw", ["z"], {"beta": "global", "tau": "global",
                                     "sigma": "global", "z": "obs_aligned",
                                     "y": "observed"}),
    "mlp": ("obs", [], {"w1": "global", "b1": "global", "w2": "global",
                        "b2": "global", "w3": "global", "b3": "global",
                        "w4": "global", "b4": "global", "y": "observed"}),
    "negbin_glm": ("obs", [], {"alpha": "global", "beta": "global",
                               "phi": "global", "mu": "obs_aligned",
                               "y": "observed"}),
    "flat_prior_glm": ("obs", [], {"alpha": "global", "beta": "global",
                                   "sigma": "global", "mu": "obs_aligned",
                                   "y": "observed"}),
    "horseshoe_logistic": ("obs", [], {"tau": "global", "lam": "global",
                                       "z": "global", "intercept": "global",
                                       "beta": "global", "y": "observed"}),
    "zero_inflated_poisson": ("obs", [], {"gate_logit": "global",
                                          "alpha": "global",
                                          "beta": "global",
                                          "rate": "obs_aligned",
                                          "y": "observed"}),
    "hurdle_poisson": ("obs", [], {"gamma0": "global", "gamma": "global",
                                   "alpha": "global", "beta": "global",
                                   "rate": "obs_aligned", "y": "observed"}),
    "multinomial_logit": ("obs", [], {"alpha": "global", "beta": "global",
                                      "y": "observed"}),
    "ordinal_regression": ("obs", [], {"beta": "global",
                                       "cutpoints": "global",
                                       "y": "observed"}),
    "gaussian_mixture": ("obs", [], {"w": "global", "mu": "global",
                                     "sigma": "global", "y": "observed"}),
    "varying_slopes": ("obs", [], {"mu": "global", "tau": "global",
                                   "L_omega": "global", "ab": "global",
                                   "sigma": "global", "y": "observed"}),
    "robust_regression": ("obs", [], {"alpha": "global", "beta": "global",
                                      "sigma": "global", "nu": "global",
                                      "y": "observed"}),
    "truncated_regression": ("obs", [], {"alpha": "global", "beta": "global",
                                         "sigma": "global", "y": "observed"}),
    # Two outputs; the true covariate x is local, so the plan is draw.
    "measurement_error": ("draw", ["x"], {"mu_x": "global",
                                          "sigma_x": "global",
                                          "alpha": "global", "beta": "global",
                                          "sigma": "global",
                                          "x": "obs_aligned",
                                          "x_meas": "observed",
                                          "y": "observed"}),
    "factor_analysis": ("obs", [], {"w": "global", "psi": "global",
                                    "mu": "global", "Y": "observed"}),
    # Y is one MultivariateNormal over every observation.
    "gp_regression": ("draw", ["Y"], {"kernel_var": "global",
                                      "kernel_noise": "global",
                                      "kernel_length": "global",
                                      "Y": "joint"}),
    # Transformed data are values, not sites.
    "centred_regression": ("obs", [], {"Intercept": "global", "b": "global",
                                       "sigma": "global",
                                       "b_Intercept": "global",
                                       "y": "observed"}),
    # Statistics of views of the data are values too.
    "brms_design_matrix": ("obs", [], {"b": "global", "Intercept": "global",
                                       "sigma": "global",
                                       "b_Intercept": "global",
                                       "Y": "observed"}),
    # X.T @ X is a statistic of the data (the pre-pass), not a site.
    "qr_regression": ("obs", [], {"alpha": "global", "theta": "global",
                                  "sigma": "global", "beta": "global",
                                  "y": "observed"}),
    # A score-only output: its factor is the likelihood term.
    "hurdle_target": ("obs", [], {"theta": "global", "lambda": "global",
                                  "lp": "obs_aligned", "y": "observed"}),
}


class CompileExamples(E.E2ETestCase):
    def test_every_example_is_covered(self):
        names = sorted(os.path.basename(p)[:-5]
                       for p in glob.glob(os.path.join(E.EXAMPLES, "*.aimz")))
        self.assertEqual(names, sorted(list(EXPECTED) + ["scan_rejected"]))

    def test_examples_compile_and_manifest_plan(self):
        for name, (plan, reason, classes) in EXPECTED.items():
            with self.subTest(model=name):
                # Compiled by the build_models fixture (aimzc ... -o).
                with open(E.model(name), "rb") as f:
                    self.assertEqual(f.read(4), b"\x7fELF")
                r = E.aimzc(os.path.join(E.EXAMPLES, name + ".aimz"),
                            "--emit=manifest", check=True)
                m = json.loads(r.stdout)
                self.assertEqual(m["model"], name)
                self.assertEqual(m["plan"], plan)
                self.assertEqual(m["plan_reason"], reason)
                self.assertEqual({s["name"]: s["class"] for s in m["sites"]},
                                 classes)

    def test_scan_rejected(self):
        src = os.path.join(E.EXAMPLES, "scan_rejected.aimz")
        out = self.path("scan.so")
        r = E.aimzc(src, "-o", out)
        self.assertEqual(r.rc, 1, r)
        self.assertFalse(os.path.exists(out), "no model on failure")
        # file:line:col: error: ..., the source line, a caret.
        lines = r.stderr.splitlines()
        m = re.match(r"^(.*scan_rejected\.aimz):(\d+):(\d+): error: (.*)$",
                     lines[0])
        self.assertIsNotNone(m, r)
        self.assertIn("scan", m.group(4))
        self.assertIn("level", m.group(4))
        line, col = int(m.group(2)), int(m.group(3))
        with open(src) as f:
            src_line = f.read().splitlines()[line - 1]
        self.assertIn("level ~ Normal", src_line)
        self.assertEqual(lines[1], src_line)
        self.assertEqual(lines[2], " " * (col - 1) + "^")


class InfoAndDevices(E.E2ETestCase):
    def test_info_prints_plan_and_sites(self):
        for name, (plan, reason, classes) in EXPECTED.items():
            with self.subTest(model=name):
                r = E.aimz_run("info", E.model(name))
                self.assertIn("model " + name, r.stdout)
                m = re.search(r"^plan: (\w+)(.*)$", r.stdout, re.M)
                self.assertIsNotNone(m, r)
                self.assertEqual(m.group(1), plan)
                for z in reason:
                    self.assertIn(z, m.group(2))
                for site, cls in classes.items():
                    self.assertRegex(r.stdout, r"(?m)^\s+%s\s+\w+\s+%s\b"
                                     % (re.escape(site), cls))

    def test_info_columns_fit_long_names(self):
        # A long site name or distribution never runs into the next column.
        so = self.compile_source("long_names", (
            "model long_names(x: f64[n]) -> (y: f64[n]) {\n"
            "  a_rather_long_site_name ~ TruncatedDistribution(StudentT(3, 0, 2.5), low=0);\n"
            "  b ~ MultivariateStudentT(4.0, zeros(3), scale_tril=eye(3));\n"
            "  plate obs(n) { y ~ Normal(x, a_rather_long_site_name); }\n}\n"))
        r = E.aimz_run("info", so)
        lines = r.stdout.split("sites:\n")[1].splitlines()
        for name in ("a_rather_long_site_name", "b"):
            line = next(l for l in lines if l.split()[0] == name)
            fields = line.split()
            self.assertRegex(fields[4], r"^f64\b", line)

    def test_info_names_a_gated_form_as_written(self):
        # A hurdle or zero-inflated form over a base with no table row of
        # its own is a MixtureGeneral underneath: the site table names the
        # form the model wrote. One with a row is that row
        # (HurdleDistribution over a Poisson is HurdlePoisson).
        so = self.compile_source("gated_names", (
            "model gated_names(x: f32[n]) -> (y: f32[n]) {\n"
            "  s ~ HalfNormal(1);\n"
            "  k ~ ZeroInflatedDistribution(Binomial(5, 0.3), gate=0.2);\n"
            "  h ~ HurdleDistribution(Poisson(3.0), gate=0.2);\n"
            "  plate obs(n) {\n"
            "    y ~ HurdleDistribution(Weibull(2.0, exp(x) + s), gate=0.3);\n"
            "  }\n}\n"))
        r = E.aimz_run("info", so)
        dists = {l.split()[0]: l.split()[3]
                 for l in r.stdout.split("sites:\n")[1].splitlines()
                 if l.startswith("  ")}
        self.assertEqual(dists, {"s": "HalfNormal",
                                 "k": "ZeroInflatedDistribution",
                                 "h": "HurdlePoisson",
                                 "y": "HurdleDistribution"}, r.stdout)
        manifest = json.loads(E.aimz_run("info", "--json", so).stdout)
        self.assertEqual({s["name"]: s["dist"] for s in manifest["sites"]},
                         dists)

    def test_info_json_is_the_embedded_manifest(self):
        for name in ("linreg", "gp_regression", "hierarchical"):
            with self.subTest(model=name):
                r = E.aimz_run("info", "--json", E.model(name))
                ours = json.loads(r.stdout)
                ref = json.loads(E.aimzc(os.path.join(E.EXAMPLES,
                                                      name + ".aimz"),
                                         "--emit=manifest",
                                         check=True).stdout)
                self.assertEqual(ours, ref)
                self.assertEqual(ours["model"], name)

    def test_info_on_missing_model(self):
        r = E.aimz_run("info", self.path("nope.so"), check=False)
        self.assert_one_error_line(r, "nope.so", "no such file")

    def test_devices(self):
        # The CPU devices (GPUs, when a machine has them, are listed first by
        # default; test_gpu_device.py covers them).
        r = E.aimz_run("devices", "--device", "cpu")
        n = os.cpu_count()
        self.assertEqual(r.stdout.count("CPU worker thread"), n)
        self.assertEqual(re.findall(r"cpu:\d+", r.stdout),
                         ["cpu:%d" % i for i in range(n)])
        r = E.aimz_run("devices", "--device", "cpu", "--devices", 3)
        self.assertEqual(re.findall(r"cpu:\d+", r.stdout),
                         ["cpu:0", "cpu:1", "cpu:2"])


class ReadmeMainPath(E.E2ETestCase):
    """What tools/demo.sh does, small: compile linreg, make data, predict;
    the tool says where the store is and how to open it in xarray."""

    def test_predict_prints_store_and_how_to_open_it(self):
        so = E.model("linreg")
        rng = np.random.default_rng(0)
        X, _, post = E.linreg_data(rng, 2000, 4, 30)
        np.save(self.path("X.npy"), X)
        np.savez(self.path("post.npz"), **post)
        r = E.aimz_run("predict", so, "--data", "X=X.npy", "--posterior",
                       "post.npz", "--out", "pred.zarr", "--seed", 1,
                       cwd=self.dir)
        self.assertIn("pred.zarr", r.stdout)
        self.assertIn("30 draws x 2000 observations", r.stdout)
        m = re.search(r"open it with: (.*)$", r.stdout, re.M)
        self.assertIsNotNone(m, r)
        p = subprocess.run(m.group(1), shell=True, cwd=self.dir,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Dimensions", p.stdout)
        # Dims after linreg's `plate obs(n)`, as ArviZ names NumPyro's.
        self.assertRegex(p.stdout, r"y\s+\(draw, obs\) float32")
        self.assertRegex(p.stdout, r"eta\s+\(draw, obs\) float32")


if __name__ == "__main__":
    E.main()
