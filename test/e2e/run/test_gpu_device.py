"""GPU devices in aimz-run (issue 6), on machines without a GPU.

Without a driver: `devices` says why there is no GPU, `--device gpu` fails
with one error line, and the default runs on the CPU. With the checking
stand-in driver (AIMZ_CUDA_DRIVER=libaimz_fake_cuda.so from test/unit/gpu,
which runs each GPU thread's work with the model's host code and checks
every pointer, copy and wait), `--device gpu` and `--device all` must give
the CPU's bytes for both plans and every command. A real GPU is checked by
test/unit/gpu/device_check.sh on a lent machine."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

FAKE = os.environ.pop("AIMZ_TEST_FAKE_CUDA", "")


class GpuDevices(E.E2ETestCase):
    N, K, D = 3001, 4, 24

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(5)
        X, y, post = E.linreg_data(rng, cls.N, cls.K, cls.D)
        cls.xp = cls.save("X.npy", X)
        cls.yp = cls.save("y.npy", y)
        cls.pp = cls.savez("post.npz", **post)
        cls.so = E.model("linreg")

    def run_with(self, env, *args):
        with E.environment(env):
            return E.aimz_run(*args, check=False)

    def test_no_driver(self):
        env = {"AIMZ_CUDA_DRIVER": "/nonexistent/libcuda.so.1"}
        r = self.run_with(env, "devices")
        self.assertEqual(r.rc, 0)
        self.assertIn("cpu:0", r.stdout)
        self.assertIn("no GPU:", r.stdout)
        out = self.fresh()
        r = self.run_with(env, "predict", self.so, "--data", "X=" + self.xp,
                          "--posterior", self.pp, "--out", out, "--device",
                          "gpu")
        self.assertNotEqual(r.rc, 0)
        self.assertEqual(len(r.errors()), 1, r)
        self.assertIn("no GPU to run on", r.stderr)
        self.assertFalse(os.path.exists(out))
        r = self.run_with(env, "predict", self.so, "--data", "X=" + self.xp,
                          "--posterior", self.pp, "--out", out)
        self.assertEqual(r.rc, 0, r)
        self.assertIn("CPU thread", r.stdout)

    def test_stand_in_gpu_matches_cpu(self):
        if not FAKE:
            self.skipTest("no stand-in driver was built")
        env = {"AIMZ_CUDA_DRIVER": FAKE, "AIMZ_FAKE_CUDA_MODEL": self.so}
        r = self.run_with(env, "devices", "--device", "gpu")
        self.assertIn("gpu:0", r.stdout, r)
        cases = [("predict", ["--posterior", self.pp]),
                 ("log-likelihood", ["--posterior", self.pp, "--data",
                                     "y=" + self.yp]),
                 ("prior-predictive", ["--num-samples", "20"])]
        for command, extra in cases:
            for axis in ("obs", "draw"):
                outs = {}
                for device in ("cpu", "gpu", "all"):
                    out = self.fresh()
                    r = self.run_with(env, command, self.so, "--data",
                                      "X=" + self.xp, "--out", out,
                                      "--shard-axis", axis, "--device",
                                      device, "--seed", "9", "--batch-size",
                                      "700" if axis == "obs" else "5", *extra)
                    self.assertEqual(r.rc, 0, r)
                    outs[device] = E.read_arrays(out)
                for device in ("gpu", "all"):
                    for name, cpu in outs["cpu"].items():
                        with self.subTest(command=command, axis=axis,
                                          device=device, site=name):
                            self.assertTrue(E.same_bytes(outs[device][name],
                                                         cpu))


if __name__ == "__main__":
    E.main()
