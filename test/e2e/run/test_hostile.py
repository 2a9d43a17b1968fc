"""Hostile files, races and symbolic links never destroy data (issue 9).

Each case sets up what a careless or hostile user (or a second run) could
leave around the output, runs aimz-run or aimzc, and checks both the
message (one error line naming the problem, or the documented behaviour)
and that every file outside the output is byte-for-byte untouched."""

import fcntl
import os
import signal
import struct
import subprocess
import sys
import time
import zipfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


class Hostile(E.E2ETestCase):
    N, K, D = 2000, 3, 10

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(91)
        X, y, post = E.linreg_data(rng, cls.N, cls.K, cls.D)
        cls.post = post
        cls.Xp = cls.save("X.npy", X)
        cls.yp = cls.save("y.npy", y)
        cls.pp = cls.savez("post.npz", **post)
        cls.linreg = E.model("linreg")

    def victim(self, name="victim"):
        """A directory of a user's files that no run may touch."""
        d = self.path(name)
        os.makedirs(d, exist_ok=True)
        for f, data in [("notes.txt", b"my notes\n"), ("0.0", b"not ours"),
                        (".zgroup", b'{"zarr_format": 2}')]:
            with open(os.path.join(d, f), "wb") as fh:
                fh.write(data)
        return d, E.file_contents(d)

    def predict(self, out, check=False, seed=1, extra=()):
        return E.run_cmd("predict", self.linreg, {"X": self.Xp}, out,
                         posterior=self.pp, seed=seed, check=check,
                         extra=extra)

    # -- 1. two runs, one output

    def test_locked_output_is_refused_naming_the_holder(self):
        out = self.fresh()
        with open(out + ".lock", "w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fh.write("%d\n" % os.getpid())
            fh.flush()
            r = self.predict(out)
            self.assert_one_error_line(r, "being written by another run",
                                       "pid %d" % os.getpid())
            self.assertFalse(os.path.exists(out))
        # The holder is gone: the next run writes normally.
        self.predict(out, check=True)
        self.assertTrue(os.path.exists(os.path.join(out, ".zgroup")))
        self.assertFalse(os.path.exists(out + ".lock"))

    def test_concurrent_run_neither_corrupts_nor_is_corrupted(self):
        rng = np.random.default_rng(5)
        n = 400000
        X = self.save("bigX.npy", rng.normal(size=(n, self.K)).astype(np.float32))
        out = self.fresh()
        args = [E.AIMZ_RUN, "predict", self.linreg, "--data", "X=" + X,
                "--posterior", self.pp, "--seed", "11", "--batch-size",
                "20000", "--devices", "1", "--no-progress", "--out", out]
        first = subprocess.Popen(args, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while not os.path.exists(out + ".partial") and time.time() < deadline:
            time.sleep(0.005)
        second = E.run_cmd("predict", self.linreg, {"X": X}, out,
                           posterior=self.pp, seed=22, batch=20000, devices=1,
                           check=False)
        _, err = first.communicate(timeout=300)
        self.assertEqual(first.returncode, 0, err)

        def alone(seed):
            path = self.fresh()
            E.run_cmd("predict", self.linreg, {"X": X}, path,
                      posterior=self.pp, seed=seed, batch=20000, devices=1)
            return E.read_arrays(path)["y"]
        got = E.read_arrays(out)["y"]
        if second.rc != 0:
            # The usual case: the second run found the first one writing.
            self.assert_one_error_line(second, "being written by another run",
                                       "pid %d" % first.pid)
            self.assertTrue(E.same_bytes(got, alone(11)))
            self.assertEqual(E.open_group(out).attrs["seed"], 11)
        else:
            # The first had already published: the second replaced the
            # store whole. Never a mix of the two runs.
            self.assertTrue(E.same_bytes(got, alone(22)))
            self.assertEqual(E.open_group(out).attrs["seed"], 22)

    def test_stale_partial_of_a_dead_run_is_replaced(self):
        out = self.fresh()
        os.makedirs(os.path.join(out + ".partial", "y"))
        for f in [".zgroup", "y/0.0", "y/.zarray.ab12cd34.tmp"]:
            with open(os.path.join(out + ".partial", f), "w") as fh:
                fh.write("{}")
        with open(out + ".lock", "w") as fh:  # a dead run's lock file
            fh.write("999999\n")
        self.predict(out, check=True)
        self.assertFalse(os.path.exists(out + ".partial"))
        self.assertEqual(E.read_arrays(out)["y"].shape, (self.D, self.N))

    # -- 2. a symlinked stale partial store

    def test_symlinked_partial_is_never_followed(self):
        d, before = self.victim()
        out = self.fresh()
        os.symlink(d, out + ".partial")
        r = self.predict(out)
        self.assert_one_error_line(r, "symbolic link", ".partial")
        self.assertEqual(E.file_contents(d), before)
        self.assertTrue(os.path.islink(out + ".partial"))

    def test_foreign_file_in_stale_partial_is_kept(self):
        out = self.fresh()
        os.makedirs(out + ".partial")
        with open(os.path.join(out + ".partial", "thesis.tex"), "w") as fh:
            fh.write("years of work")
        r = self.predict(out)
        self.assert_one_error_line(r, "thesis.tex", "does not contain")
        with open(os.path.join(out + ".partial", "thesis.tex")) as fh:
            self.assertEqual(fh.read(), "years of work")

    # -- 3. --out a symlink, or a store holding a user's file

    def test_symlinked_out_is_refused(self):
        store = self.fresh()
        self.predict(store, check=True)
        with open(os.path.join(store, "README"), "w") as fh:
            fh.write("mine")
        before = E.file_contents(store)
        link = self.fresh()
        os.symlink(store, link)
        r = self.predict(link)
        self.assert_one_error_line(r, "symbolic link")
        self.assertEqual(E.file_contents(store), before)

    def test_store_with_a_users_file_is_not_replaced(self):
        store = self.fresh()
        self.predict(store, check=True)
        with open(os.path.join(store, "y", "analysis.ipynb"), "w") as fh:
            fh.write("{}")
        before = E.file_contents(store)
        r = self.predict(store, seed=2)
        self.assert_one_error_line(r, "analysis.ipynb", "refusing to replace")
        self.assertEqual(E.file_contents(store), before)

    def test_own_store_is_replaced(self):
        store = self.fresh()
        self.predict(store, check=True, seed=1)
        self.predict(store, check=True, seed=2)
        self.assertEqual(E.open_group(store).attrs["seed"], 2)

    # -- 4. .npz temp file through a planted link

    def test_npz_temporary_never_writes_through_a_link(self):
        target = self.path("precious.bin")
        with open(target, "wb") as fh:
            fh.write(b"precious")
        out = self.fresh(".npz")
        os.symlink(target, out + ".partial")
        self.predict(out, check=True)
        with open(target, "rb") as fh:
            self.assertEqual(fh.read(), b"precious")
        self.assertEqual(E.read_arrays(out)["y"].shape, (self.D, self.N))

    # -- 5. .npz output over an input or a foreign file

    def test_npz_out_over_the_posterior_is_refused(self):
        p = self.savez("own_post.npz", **self.post)
        with open(p, "rb") as fh:
            before = fh.read()
        r = E.run_cmd("predict", self.linreg, {"X": self.Xp}, p,
                      posterior=p, check=False)
        self.assert_one_error_line(r, "is the input", "own_post.npz")
        with open(p, "rb") as fh:
            self.assertEqual(fh.read(), before)

    def test_npz_out_over_a_foreign_file_is_refused(self):
        out = self.fresh(".npz")
        with open(out, "w") as fh:
            fh.write("not an archive")
        r = self.predict(out)
        self.assert_one_error_line(r, "not an .npz archive")
        with open(out) as fh:
            self.assertEqual(fh.read(), "not an archive")

    def test_npz_out_symlink_is_refused(self):
        target = self.savez("other.npz", a=np.zeros(3))
        with open(target, "rb") as fh:
            before = fh.read()
        link = self.fresh(".npz")
        os.symlink(target, link)
        r = self.predict(link)
        self.assert_one_error_line(r, "symbolic link")
        with open(target, "rb") as fh:
            self.assertEqual(fh.read(), before)

    # -- 6-7. aimzc

    def test_aimzc_output_over_its_source_is_refused(self):
        src = self.path("m.aimz")
        with open(E.source_of("linreg")) as fh, open(src, "w") as o:
            o.write(fh.read())
        with open(src, "rb") as fh:
            before = fh.read()
        r = E.aimzc(src, "-o", src)
        self.assertNotEqual(r.rc, 0, r)
        self.assertIn("is the model source", r.stderr)
        with open(src, "rb") as fh:
            self.assertEqual(fh.read(), before)

    def test_aimzc_replaces_a_library_whole(self):
        out = self.path("lib.so")
        with open(out, "w") as fh:
            fh.write("old")
        r = E.aimzc(E.source_of("linreg"), "-o", out, "--no-ptx")
        self.assertEqual(r.rc, 0, r)
        with open(out, "rb") as fh:
            self.assertEqual(fh.read(4), b"\x7fELF")
        self.assertEqual([f for f in os.listdir(self.dir)
                          if f.startswith("lib.so.")], [])

    def aimzc_survives(self, body):
        src = self.path("deep.aimz")
        with open(src, "w") as fh:
            fh.write("model m(x: f32[n]) -> (y: f32[n]) {\n"
                     "  plate obs(n) { y ~ Normal(%s, 1); }\n}\n" % body)
        r = E.aimzc(src, "--emit=sites")
        self.assertNotIn(r.rc, (-11, -6, 134, 139), "crashed: %r" % r.stderr[-500:])
        self.assertEqual(r.rc, 1, r.stderr[-500:])
        self.assertIn("error:", r.stderr)

    def test_aimzc_on_a_full_disk(self):
        # The linker used to die with SIGBUS and LLVM's "PLEASE submit a
        # bug report" backtrace, sometimes leaving m.so.*.tmp behind.
        d = self.path("tiny_fs")
        os.makedirs(d, exist_ok=True)
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k",
                            "tmpfs", d], capture_output=True, text=True)
        if m.returncode != 0:
            self.skipTest("cannot mount a small tmpfs: " + m.stderr.strip())
        try:
            p = subprocess.run([E.AIMZC, E.source_of("linreg"), "-o",
                                os.path.join(d, "m.so")],
                               capture_output=True, text=True, timeout=300)
            self.assertGreater(p.returncode, 0, p.stderr)
            lines = [l for l in p.stderr.splitlines() if l.strip()]
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertIn("No space left on device", lines[0])
            self.assertIn("'%s'" % os.path.join(d, "m.so"), lines[0])
            self.assertEqual(os.listdir(d), [])
        finally:
            subprocess.run(["umount", d], capture_output=True)

    def test_aimzc_long_flat_chain(self):
        self.aimzc_survives(" + ".join(["1"] * 150000))

    def test_aimzc_million_unary_minuses(self):
        self.aimzc_survives("-" * 1000000 + "x")

    def test_aimzc_device_source_is_refused(self):
        r = E.aimzc("/dev/zero", "--emit=sites")
        self.assertEqual(r.rc, 1, r)
        self.assertIn("not a regular file", r.stderr)

    # -- 8-9. .npz integrity

    def test_flipped_value_in_stored_member_fails_its_crc(self):
        p = self.savez("flip.npz", **self.post)
        with zipfile.ZipFile(p) as z:
            info = z.getinfo("sigma.npy")
        raw = bytearray(open(p, "rb").read())
        # Local header: 30 bytes + name + extra; then the .npy bytes.
        name_len, extra_len = struct.unpack_from("<HH", raw,
                                                 info.header_offset + 26)
        data = info.header_offset + 30 + name_len + extra_len
        raw[data + info.file_size - 4:data + info.file_size] = \
            np.float32(1e30).tobytes()
        with open(p, "wb") as fh:
            fh.write(raw)
        r = E.run_cmd("predict", self.linreg, {"X": self.Xp}, self.fresh(),
                      posterior=p, check=False)
        self.assert_one_error_line(r, "sigma", "CRC-32")

    def test_duplicate_member_names_are_refused(self):
        p = self.path("dup.npz")
        import io
        import warnings
        with zipfile.ZipFile(p, "w") as z, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name, arr in list(self.post.items()) + [
                    ("sigma", self.post["sigma"] * 2)]:
                b = io.BytesIO()
                np.save(b, arr)
                z.writestr(name + ".npy", b.getvalue())
        r = E.run_cmd("predict", self.linreg, {"X": self.Xp}, self.fresh(),
                      posterior=p, check=False)
        self.assert_one_error_line(r, "two arrays named 'sigma'")

    # -- minor

    def test_fifo_input_does_not_hang(self):
        fifo = self.path("X.fifo")
        os.mkfifo(fifo)
        t0 = time.time()
        r = E.run_cmd("predict", self.linreg, {"X": fifo}, self.fresh(),
                      posterior=self.pp, check=False)
        self.assertLess(time.time() - t0, 30)
        self.assert_one_error_line(r, "not a regular file", "FIFO")

    def test_non_regular_posteriors_do_not_hang(self):
        # A FIFO named like a CSV, a netCDF file or matched by a glob, and a
        # link to /dev/zero: refused before any read (they hung, or read
        # until "LLVM ERROR: out of memory").
        d = self.path("specials")
        os.makedirs(d, exist_ok=True)
        for name in ("fit.csv", "fit.nc", "g-1.csv"):
            p = os.path.join(d, name)
            if not os.path.exists(p):
                os.mkfifo(p)
        zero = os.path.join(d, "zero.csv")
        if not os.path.lexists(zero):
            os.symlink("/dev/zero", zero)
        for arg, kind in ((os.path.join(d, "fit.csv"), "FIFO"),
                          (os.path.join(d, "fit.nc"), "FIFO"),
                          (os.path.join(d, "g-*.csv"), "FIFO"),
                          (zero, "character device")):
            with self.subTest(posterior=arg):
                t0 = time.time()
                r = E.run_cmd("predict", self.linreg, {"X": self.Xp},
                              self.fresh(), posterior=arg, check=False)
                self.assertLess(time.time() - t0, 30)
                self.assert_one_error_line(r, "not a regular file", kind)

    def test_fifo_run_record_does_not_hang_resume(self):
        out = self.fresh()
        os.makedirs(out + ".partial")
        os.mkfifo(os.path.join(out + ".partial", ".aimz-run.json"))
        t0 = time.time()
        r = self.predict(out, extra=["--resume"])
        self.assertLess(time.time() - t0, 30)
        self.assert_one_error_line(r, "run record", "not a regular file")

    def test_truncated_model_library_is_an_error(self):
        # dlopen maps past the end of a cut-short library and the first
        # touch is a SIGBUS (in Python, the interpreter dies).
        data = open(self.linreg, "rb").read()
        for keep in (len(data) // 2, len(data) - 1, 64, 10):
            with self.subTest(keep=keep):
                p = self.path("cut%d.so" % keep)
                with open(p, "wb") as f:
                    f.write(data[:keep])
                r = E.run_cmd("predict", p, {"X": self.Xp}, self.fresh(),
                              posterior=self.pp, check=False)
                self.assertGreater(r.rc, 0, r)
                self.assert_one_error_line(r, "cut%d.so" % keep)
        r = E.aimz_run("info", self.path("cut%d.so" % (len(data) // 2)),
                       check=False)
        self.assert_one_error_line(r, "cut short")

    def test_npy_header_with_trailing_junk_is_refused(self):
        p = self.save("junk.npy", np.zeros((self.N, self.K), np.float32))
        raw = bytearray(open(p, "rb").read())
        hlen = struct.unpack_from("<H", raw, 8)[0]
        end = 10 + hlen
        header = raw[10:end].decode("latin1")
        close = header.rindex("}")
        junk = "JUNK"
        header = header[:close + 1] + junk + header[close + 1 + len(junk):]
        raw[10:end] = header.encode("latin1")
        open(p, "wb").write(raw)
        r = E.run_cmd("predict", self.linreg, {"X": p}, self.fresh(),
                      posterior=self.pp, check=False)
        self.assert_one_error_line(r, "after the closing '}'")

    def test_control_bytes_in_names_are_escaped(self):
        p = self.savez("esc.npz", **self.post, **{"\x1b[2Jboom": np.zeros(3)})
        r = E.run_cmd("predict", self.linreg, {"X": self.Xp}, self.fresh(),
                      posterior=p, check=False)
        self.assertEqual(r.rc, 0, r)
        self.assertNotIn("\x1b", r.stderr)
        self.assertIn("\\x1b[2Jboom", r.stderr)

    def test_f64_posterior_beyond_f32_range_is_refused(self):
        post = {k: v.astype(np.float64) for k, v in self.post.items()}
        post["sigma"][7] = 1e300
        p = self.savez("huge.npz", **post)
        r = E.run_cmd("predict", self.linreg, {"X": self.Xp}, self.fresh(),
                      posterior=p, check=False)
        self.assert_one_error_line(r, "posterior 'sigma'", "1e+300",
                                   "index 7", "float32's range")

    def test_non_finite_posterior_warns_or_is_refused_with_strict(self):
        post = dict(self.post)
        post["beta"] = post["beta"].copy()
        post["beta"][3, 1] = np.nan
        post["beta"][5, 0] = np.inf
        p = self.savez("nan.npz", **post)
        r = E.run_cmd("predict", self.linreg, {"X": self.Xp}, self.fresh(),
                      posterior=p, check=False)
        self.assertEqual(r.rc, 0, r)
        w = [l for l in r.warnings() if "'beta'" in l]
        self.assertEqual(len(w), 1, r)
        self.assertIn("2 NaN or infinite values", w[0])
        self.assertIn("draw 3", w[0])
        r = E.run_cmd("predict", self.linreg, {"X": self.Xp}, self.fresh(),
                      posterior=p, check=False, extra=["--strict"])
        self.assert_one_error_line(r, "'beta'", "--strict")

    def test_same_data_name_twice_is_refused(self):
        r = E.run_cmd("predict", self.linreg,
                      [("X", self.Xp), ("X", self.Xp)], self.fresh(),
                      posterior=self.pp, check=False)
        self.assert_one_error_line(r, "input 'X' is given twice")

    def test_no_sync_writes_the_same_store(self):
        a, b = self.fresh(), self.fresh()
        self.predict(a, check=True, seed=4)
        self.predict(b, check=True, seed=4, extra=["--no-sync"])
        self.assertTrue(E.same_bytes(E.read_arrays(a)["y"],
                                     E.read_arrays(b)["y"]))


if __name__ == "__main__":
    E.main()
