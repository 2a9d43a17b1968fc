"""mpirun -n R aimz-run ...: the ranks share one run (batches from one
counter, every rank writing its own chunks into the store, rank 0
publishing it). The store is byte-identical to a single-process run
whatever R, for both plans; errors appear once; a killed rank leaves a
resumable partial store that --resume (one process or several) finishes
identically. Skipped where mpirun or an MPI-enabled aimz-run is missing."""

import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

MPIRUN = shutil.which("mpirun")


def mpi_enabled():
    if not MPIRUN:
        return False
    p = subprocess.run([E.AIMZ_RUN, "--version"], capture_output=True,
                       text=True)
    return "MPI" in p.stdout


def mpirun(n):
    # Root in containers; more ranks than cores on small machines.
    return [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-n", str(n)]


class Mpi(E.E2ETestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not mpi_enabled():
            raise unittest.SkipTest("no mpirun or aimz-run built without MPI")
        E.save_obs_and_draw_plan_inputs(cls, np.random.default_rng(9),
                                        (6000, 20, 10), (5000, 30))

    def args(self, model, data, post, out, extra=(), command="predict"):
        a = [E.AIMZ_RUN, command, E.model(model)]
        for k, v in data.items():
            a += ["--data", "%s=%s" % (k, v)]
        return a + ["--posterior", post, "--out", out, "--seed", "11",
                    "--devices", "1", "--no-progress"] + list(extra)

    def run_mpi(self, n, args, check=True, timeout=300):
        p = subprocess.run(mpirun(n) + args, capture_output=True, text=True,
                           timeout=timeout)
        if check and p.returncode != 0:
            raise AssertionError("mpirun failed (rc %d):\n%s\n%s"
                                 % (p.returncode, p.stdout, p.stderr))
        return p

    def test_byte_identical_to_one_process(self):
        cases = [("mlp", self.mlp_data, self.mlp_post,
                  ["--batch-size", "700"], "predict"),
                 ("local_latent", self.ll_data, self.ll_post,
                  ["--batch-size", "7", "--return-sites", "y,z"], "predict"),
                 ("mlp", self.mlp_data, self.mlp_post,
                  ["--batch-size", "500", "--zarr-format", "3", "--layout",
                   "inference-data"], "predict")]
        for model, data, post, extra, command in cases:
            ref = self.fresh()
            E.aimz_run(*self.args(model, data, post, ref, extra, command)[1:])
            for n in (1, 2, 3):
                with self.subTest(model=model, extra=extra, ranks=n):
                    out = self.fresh()
                    p = self.run_mpi(n, self.args(model, data, post, out,
                                                  extra, command))
                    self.assertEqual(p.stdout.count("wrote "), 1, p.stdout)
                    self.assertNotIn("warning", p.stderr)
                    self.assert_same_store(ref, out)
                    self.assertFalse(os.path.exists(out + ".partial"))

    def test_log_likelihood_with_more_ranks_than_batches(self):
        y = self.save("y.npy", np.ones(6000, np.int32))
        data = dict(self.mlp_data, y=y)
        ref, out = self.fresh(), self.fresh()
        extra = ["--batch-size", "4000"]  # 2 batches, 3 ranks
        E.aimz_run(*self.args("mlp", data, self.mlp_post, ref, extra,
                              "log-likelihood")[1:])
        self.run_mpi(3, self.args("mlp", data, self.mlp_post, out, extra,
                                  "log-likelihood"))
        self.assert_same_store(ref, out)

    def test_errors_appear_once(self):
        out = self.fresh()
        p = self.run_mpi(3, self.args("mlp", {"X": self.path("none.npy")},
                                      self.mlp_post, out), check=False)
        self.assertNotEqual(p.returncode, 0)
        errors = [l for l in p.stderr.splitlines() if "error:" in l]
        self.assertEqual(len(errors), 1, p.stderr)
        self.assertIn("none.npy", errors[0])
        self.assertFalse(os.path.exists(out))
        # --resume with nothing to resume: refused once, by rank 0.
        p = self.run_mpi(2, self.args("mlp", self.mlp_data, self.mlp_post,
                                      out, ["--resume"]), check=False)
        errors = [l for l in p.stderr.splitlines() if "error:" in l]
        self.assertEqual(len(errors), 1, p.stderr)
        self.assertIn("nothing to resume", errors[0])
        # An .npz is written whole by one process.
        p = self.run_mpi(2, self.args("mlp", self.mlp_data, self.mlp_post,
                                      self.fresh(".npz")), check=False)
        errors = [l for l in p.stderr.splitlines() if "error:" in l]
        self.assertEqual(len(errors), 1, p.stderr)
        self.assertIn(".npz", errors[0])

    def test_ranks_that_disagree_refuse_together(self):
        # Every rank must run the same thing: one given another seed, data,
        # batch size, codec, format or command used to write its chunks
        # into the shared store (half the chunks of each seed, or a store
        # that cannot be read), with exit 0.
        y = self.save("y_mpi.npy", np.ones(6000, np.int32))
        X = np.load(self.mlp_data["X"])
        X[3, 2] += 1
        other_x = self.save("X_other.npy", X)
        base = ["--batch-size", "700"]
        cases = [
            (["--batch-size", "700", "--seed", "12"], "predict", None,
             "seed (11 on rank 0, 12 here)"),
            (["--batch-size", "500"], "predict", None, "batch_size"),
            (base + ["--codec", "zstd:3"], "predict", None, "codec"),
            (base + ["--zarr-format", "3"], "predict", None, "zarr_format"),
            (base, "predict", {"X": other_x}, "inputs [X]"),
            (base, "log-likelihood", dict(self.mlp_data, y=y), "computed"),
        ]
        for extra, command, data, fragment in cases:
            with self.subTest(fragment=fragment):
                out = self.fresh()
                first = self.args("mlp", self.mlp_data, self.mlp_post, out,
                                  base)
                second = self.args("mlp", data or self.mlp_data,
                                   self.mlp_post, out, extra, command)
                p = subprocess.run(
                    [MPIRUN, "--oversubscribe", "--allow-run-as-root",
                     "-n", "1"] + first + [":", "-n", "1"] + second,
                    capture_output=True, text=True, timeout=300)
                self.assertNotEqual(p.returncode, 0, p.stderr)
                errors = [l for l in p.stderr.splitlines() if "error:" in l]
                self.assertEqual(len(errors), 1, p.stderr)
                self.assertIn("disagree", errors[0])
                self.assertIn("rank 1", errors[0])
                self.assertIn(fragment, errors[0])
                self.assertFalse(os.path.exists(out))
                self.assertFalse(os.path.exists(out + ".partial"))

    def test_killed_rank_leaves_a_resumable_store(self):
        rng = np.random.default_rng(3)
        n = 200_000
        x = self.save("big_x.npy", rng.normal(size=n).astype(np.float32))
        post = self.savez("big_post.npz",
                          **E.local_latent_posterior(rng, n, 40))
        extra = ["--batch-size", "1", "--return-sites", "y,z"]
        ref, out = self.fresh(), self.fresh()
        E.aimz_run(*self.args("local_latent", {"x": x}, post, ref, extra)[1:])
        args = self.args("local_latent", {"x": x}, post, out, extra)
        p = subprocess.Popen(mpirun(2) + args, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        partial = out + ".partial"
        t0 = time.time()
        while time.time() - t0 < 60 and p.poll() is None and (
                not os.path.isdir(partial) or E.chunk_files(partial) < 4):
            time.sleep(0.005)
        ranks = subprocess.run(["pgrep", "-P", str(p.pid)],
                               capture_output=True, text=True).stdout.split()
        if p.poll() is not None or not ranks:
            p.communicate()
            self.skipTest("the run finished before a rank could be killed")
        os.kill(int(ranks[-1]), signal.SIGKILL)
        _, err = p.communicate(timeout=120)
        self.assertNotEqual(p.returncode, 0, err)
        self.assertFalse(os.path.exists(out), "complete-looking store")
        self.assertTrue(os.path.isdir(partial))
        # Three ranks finish what two started.
        r = self.run_mpi(3, args + ["--resume"])
        self.assertIn("resumed: ", r.stdout)
        self.assert_same_store(ref, out)


if __name__ == "__main__":
    E.main()
