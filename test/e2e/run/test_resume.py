"""--resume: a run killed mid-way (SIGKILL, or Ctrl-C) leaves its partial
store, never a complete-looking one; --resume finishes it, skipping the
batches already written, and the store is byte-identical to an
uninterrupted run. Anything that determines the bytes differing is refused
with one error line naming it."""

import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


class Resume(E.E2ETestCase):
    """Two models, one per plan: an MLP (obs) and a local latent (draw)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        E.save_obs_and_draw_plan_inputs(cls, np.random.default_rng(5),
                                        (40_000, 100, 24), (200_000, 60))

    def command(self, model, data, post, out, extra=()):
        cmd = [E.AIMZ_RUN, "predict", E.model(model)]
        for k, v in data.items():
            cmd += ["--data", "%s=%s" % (k, v)]
        return cmd + ["--posterior", post, "--out", out, "--seed", "3",
                      "--devices", "2", "--no-progress"] + list(extra)

    def interrupted(self, cmd, out, sig):
        """Starts cmd, sends sig once a few chunks are in the partial
        store; the partial store it leaves (or skips the test when the run
        was too quick to interrupt)."""
        partial = out + ".partial"
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        t0 = time.time()
        while time.time() - t0 < 60 and p.poll() is None and (
                not os.path.isdir(partial) or E.chunk_files(partial) < 3):
            time.sleep(0.005)
        if p.poll() is not None:
            p.communicate()
            self.skipTest("the run finished before it could be interrupted")
        p.send_signal(sig)
        _, err = p.communicate(timeout=30)
        self.assertFalse(os.path.exists(out), "complete-looking store")
        self.assertTrue(os.path.isdir(partial), err)
        self.assertTrue(os.path.exists(os.path.join(partial,
                                                    ".aimz-run.json")))
        return p.returncode, err

    def check_resumes(self, model, data, post, extra, sig):
        ref = self.fresh()
        E.aimz_run(*self.command(model, data, post, ref, extra)[1:])
        out = self.fresh()
        cmd = self.command(model, data, post, out, extra)
        rc, err = self.interrupted(cmd, out, sig)
        if sig == signal.SIGKILL:
            self.assertEqual(rc, -signal.SIGKILL)
        else:
            self.assertEqual(rc, 130, err)
            lines = [l for l in err.splitlines() if l.strip()]
            self.assertEqual(len(lines), 1, err)
            self.assertIn("interrupted", lines[0])
            self.assertIn("--resume", lines[0])
        r = E.aimz_run(*cmd[1:] + ["--resume"])
        self.assertIn("resumed: ", r.stdout)
        done = int(r.stdout.split("resumed: ")[1].split()[0])
        self.assertGreater(done, 0, r.stdout)  # chunks were there
        self.assertFalse(os.path.exists(out + ".partial"))
        self.assert_same_store(ref, out)
        if "3" not in extra:  # Debian's zarr 2 reads v2 stores
            A, B = E.read_arrays(ref), E.read_arrays(out)
            self.assertTrue(A)
            for k in A:
                self.assertTrue(E.same_bytes(A[k], B[k]), k)

    def test_obs_plan_after_sigkill(self):
        self.check_resumes("mlp", self.mlp_data, self.mlp_post,
                           ["--batch-size", "1000"], signal.SIGKILL)

    def test_draw_plan_after_ctrl_c(self):
        self.check_resumes("local_latent", self.ll_data, self.ll_post,
                           ["--batch-size", "4", "--return-sites", "y,z"],
                           signal.SIGINT)

    def test_inference_data_v3_after_sigkill(self):
        self.check_resumes("mlp", self.mlp_data, self.mlp_post,
                           ["--batch-size", "700", "--zarr-format", "3",
                            "--layout", "inference-data"], signal.SIGKILL)

    def test_kept_chunks_report_their_non_finite_values(self):
        # A NaN in the first draws only (draw plan: the first chunks): the
        # resumed run must report (warn, or refuse under --strict) exactly
        # what the uninterrupted run reports, though it computed none of
        # those chunks itself.
        rng = np.random.default_rng(8)
        post = dict(np.load(self.ll_post))
        post["sigma"] = post["sigma"].copy()
        post["sigma"][:2] = -1.0  # outside HalfNormal's support: NaN
        pp = self.savez("ll_nan_post.npz", **post)
        n = len(np.load(self.ll_data["x"]))
        data = dict(self.ll_data, y=self.save("ll_y.npy", rng.normal(
            size=n).astype(np.float32)))

        def cmd(out, extra=()):
            c = [E.AIMZ_RUN, "log-likelihood", E.model("local_latent")]
            for k, v in data.items():
                c += ["--data", "%s=%s" % (k, v)]
            return c + ["--posterior", pp, "--out", out, "--devices", "2",
                        "--no-progress", "--batch-size", "4"] + list(extra)

        ref = self.fresh()
        whole = E.aimz_run(*cmd(ref)[1:])
        expected = [l for l in whole.warnings() if "non-finite" in l]
        self.assertEqual(len(expected), 1, whole)
        out = self.fresh()
        self.interrupted(cmd(out), out, signal.SIGKILL)
        r = E.aimz_run(*cmd(out)[1:] + ["--resume"])
        self.assertGreater(int(r.stdout.split("resumed: ")[1].split()[0]), 0)
        self.assertEqual([l for l in r.warnings() if "non-finite" in l],
                         expected)
        self.assert_same_store(ref, out)
        # --strict: the resumed run refuses as the whole one does.
        whole = E.aimz_run(*cmd(self.fresh(), ["--strict"])[1:], check=False)
        self.assertNotEqual(whole.rc, 0)
        out = self.fresh()
        self.interrupted(cmd(out, ["--strict"]), out, signal.SIGKILL)
        r = E.aimz_run(*cmd(out, ["--strict"])[1:] + ["--resume"],
                       check=False)
        self.assertNotEqual(r.rc, 0, r)
        self.assertFalse(os.path.exists(out))
        self.assertIn("non-finite results", r.stderr)
        self.assertIn("'y' holds", r.stderr)

    def test_damaged_chunks_are_computed_again(self):
        # What --no-sync and a power loss leave: chunk files under their
        # final names but cut short, or empty. They used to be kept and the
        # store published, failing later with "Zstd decompression error".
        for codec in ("blosc", "zstd", "none"):
            with self.subTest(codec=codec):
                extra = ["--batch-size", "1000", "--codec", codec]
                ref, out = self.fresh(), self.fresh()
                E.aimz_run(*self.command("mlp", self.mlp_data, self.mlp_post,
                                         ref, extra)[1:])
                cmd = self.command("mlp", self.mlp_data, self.mlp_post, out,
                                   extra + ["--no-sync"])
                self.interrupted(cmd, out, signal.SIGKILL)
                chunks = sorted(
                    os.path.join(d, f)
                    for d, _, files in os.walk(out + ".partial")
                    for f in files
                    if not f.startswith(".") and f != "zarr.json"
                    and not f.endswith(".tmp"))
                self.assertGreaterEqual(len(chunks), 2)
                with open(chunks[0], "r+b") as f:
                    f.truncate(os.path.getsize(chunks[0]) // 2)
                open(chunks[1], "wb").close()
                r = E.aimz_run(*cmd[1:] + ["--resume"])
                notes = [l for l in r.warnings() if "computed again" in l]
                self.assertEqual(len(notes), 1, r)
                self.assertIn("2 chunks of 'y'", notes[0])
                self.assert_same_store(ref, out)

    def test_refusals(self):
        out = self.fresh()
        extra = ["--batch-size", "1000"]
        cmd = self.command("mlp", self.mlp_data, self.mlp_post, out, extra)
        self.interrupted(cmd, out, signal.SIGKILL)
        before = E.file_contents(out + ".partial")
        other_so = self.path("other.so")
        shutil.copyfile(E.model("mlp"), other_so)
        with open(other_so, "ab") as f:
            f.write(b"\0")  # another library, which loads the same
        X = np.load(self.mlp_data["X"])
        X[7, 3] += 1
        other_x = self.save("X2.npy", X)
        with np.load(self.mlp_post) as z:
            post = {k: z[k] for k in z.files}
        post["b4"] = post["b4"] + 1
        other_post = self.savez("post2.npz", **post)

        def swap(flag, value):
            c = list(cmd)
            c[c.index(flag) + 1] = value
            return c
        cases = [
            (swap("--seed", "4"), ["seed (3 then, 4 now)"]),
            (swap("--batch-size", "998"), ["batch_size"]),
            (swap("--data", "X=" + other_x), ["inputs [X]"]),
            (swap("--posterior", other_post), ["posterior"]),
            ([cmd[0], cmd[1], other_so] + cmd[3:], ["model_library"]),
            (cmd + ["--zarr-format", "3"], ["zarr_format"]),
            (cmd + ["--codec", "zstd:3"], ["codec"]),
            (cmd + ["--return-sites", "y,w1"], ["arrays"]),
            (cmd + ["--shard-axis", "draw"], ["plan (\"obs\" then, \"draw\" now)"]),
        ]
        for c, fragments in cases:
            with self.subTest(fragments=fragments):
                r = E.aimz_run(*c[1:] + ["--resume"], check=False)
                self.assert_one_error_line(r, "cannot resume", "--resume",
                                           *fragments)
        # Nothing was touched by the refusals.
        self.assertEqual(E.file_contents(out + ".partial"), before)
        self.assertFalse(os.path.exists(out))
        # Nothing to resume; and an .npz is never partial.
        r = E.aimz_run(*swap("--out", self.fresh())[1:] + ["--resume"],
                       check=False)
        self.assert_one_error_line(r, "nothing to resume", "partial store")
        r = E.aimz_run(*swap("--out", self.fresh(".npz"))[1:] + ["--resume"],
                       check=False)
        self.assert_one_error_line(r, "--resume", ".npz")
        # A run without --resume starts over, replacing the partial store.
        E.aimz_run(*cmd[1:])
        self.assertFalse(os.path.exists(out + ".partial"))
        self.assertFalse(os.path.exists(os.path.join(out, ".aimz-run.json")))

    def test_same_files_by_other_paths_resume(self):
        # X=./X.npy after X=/abs/X.npy: the same bytes, the same run (it
        # was refused as "differs in inputs").
        extra = ["--batch-size", "1000"]
        ref, out = self.fresh(), self.fresh()
        E.aimz_run(*self.command("mlp", self.mlp_data, self.mlp_post, ref,
                                 extra)[1:])
        cmd = self.command("mlp", self.mlp_data, self.mlp_post, out, extra)
        self.interrupted(cmd, out, signal.SIGKILL)
        where = os.path.dirname(self.mlp_data["X"])
        rel = ["./" + os.path.basename(a) if a in self.mlp_data.values()
               else a for a in cmd[1:]]
        rel = [a.replace("X=" + self.mlp_data["X"],
                         "X=./" + os.path.basename(self.mlp_data["X"]))
               for a in rel]
        r = E.aimz_run(*rel + ["--resume"], cwd=where)
        self.assertIn("resumed: ", r.stdout)
        self.assert_same_store(ref, out)


if __name__ == "__main__":
    E.main()
