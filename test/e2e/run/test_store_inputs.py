"""--data NAME=STORE.zarr[:ARRAY]: an input read from an array of a Zarr
store, so one run's output feeds the next without a conversion step.

- stores zarr-python 2 writes (Blosc lz4, zstd, no compressor; '.' and '/'
  chunk keys; edge chunks; a missing chunk read as the fill value) and the
  v2 and v3 stores aimz-run writes: each run's bytes equal the same run
  from an .npy of the same array;
- hostile stores: a missing array, a compressor it does not read, a
  corrupt chunk, a chunk that is a FIFO, a shape far beyond the disk, a
  chunk far beyond memory: one error line each;
- an input past the memory bound is decoded into a spill file, with the
  same bytes.
"""

import os
import sys

import numpy as np
import zarr
from numcodecs import Blosc, Zstd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

# A model whose draws depend on every element of its input.
MODEL = """model m(z: f32[n, k]) -> (w: f32[n]) {
  beta ~ Normal(0, 1)[k];
  plate obs(n) {
    w ~ Normal(z @ beta, 1);
  }
}
"""


class StoreInputs(E.E2ETestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.so = cls.compile_source("store_input", MODEL)
        rng = np.random.default_rng(4)
        cls.z = rng.normal(size=(103, 7)).astype(np.float32)

    def run_from(self, value):
        out = self.fresh()
        E.run_cmd("prior-predictive", self.so, [value], out, num_samples=4,
                  seed=8)
        return E.read_arrays(out)

    def assert_same_as_npy(self, value, array):
        want = self.run_from("z=" + self.save("z%d.npy" % id(array), array))
        got = self.run_from(value)
        for k in want:
            self.assertTrue(E.same_bytes(got[k], want[k]), (value, k))

    def test_zarr_python_v2_stores(self):
        for i, (compressor, sep) in enumerate(
                ((Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE), "."),
                 (Zstd(level=3), "/"), (None, "."))):
            path = self.path("zp%d.zarr" % i)
            g = zarr.open_group(path, mode="w")
            g.create_dataset("z", data=self.z, chunks=(25, 4),
                             compressor=compressor, dimension_separator=sep)
            self.assert_same_as_npy("z=%s:z" % path, self.z)
            self.assert_same_as_npy("z=%s" % path, self.z)  # the input's name

    def test_a_missing_chunk_is_the_fill_value(self):
        path = self.path("holes.zarr")
        g = zarr.open_group(path, mode="w")
        g.create_dataset("z", data=self.z, chunks=(25, 4), fill_value=-2.5)
        os.remove(os.path.join(path, "z", "1.1"))
        want = self.z.copy()
        want[25:50, 4:] = -2.5
        self.assert_same_as_npy("z=%s:z" % path, want)

    def test_a_runs_own_store_feeds_the_next(self):
        # w of a prior-predictive run is (draws, n): as z, 4 observations
        # of k = 103. The v3 store holds the same draws as the v2 one
        # (zarr-python 2 reads the v2 store for the reference).
        stores = {}
        for fmt in (2, 3):
            stores[fmt] = self.fresh()
            E.run_cmd("prior-predictive", self.so,
                      ["z=" + self.save("z.npy", self.z)], stores[fmt],
                      num_samples=4, seed=1, fmt=fmt)
        w = E.read_arrays(stores[2])["w"]
        self.assertEqual(w.shape, (4, 103))
        for fmt, store in stores.items():
            self.assert_same_as_npy("z=%s:w" % store, w)

    def test_hostile_stores(self):
        path = self.path("hostile.zarr")
        g = zarr.open_group(path, mode="w")
        g.create_dataset("z", data=self.z, chunks=(25, 4))
        r = E.run_cmd("prior-predictive", self.so, ["z=%s:nothere" % path],
                      self.fresh(), num_samples=1, check=False)
        self.assert_one_error_line(r, "has no array 'nothere'")
        # A compressor it does not read.
        from numcodecs import Zlib
        g.create_dataset("zl", data=self.z, chunks=(25, 4), compressor=Zlib())
        r = E.run_cmd("prior-predictive", self.so, ["z=%s:zl" % path],
                      self.fresh(), num_samples=1, check=False)
        self.assert_one_error_line(r, "not one aimz-run reads")
        # A corrupt chunk, then a chunk that is a FIFO.
        chunk = os.path.join(path, "z", "0.0")
        with open(chunk, "wb") as f:
            f.write(b"\x00" * 40)
        r = E.run_cmd("prior-predictive", self.so, ["z=%s:z" % path],
                      self.fresh(), num_samples=1, check=False)
        self.assert_one_error_line(r, "0.0")
        os.remove(chunk)
        os.mkfifo(chunk)
        r = E.run_cmd("prior-predictive", self.so, ["z=%s:z" % path],
                      self.fresh(), num_samples=1, check=False)
        self.assert_one_error_line(r, "not a regular file")
        # A shape far beyond memory, in a few bytes of metadata.
        big = self.path("big.zarr")
        zarr.open_group(big, mode="w").create_dataset(
            "z", shape=(1 << 40, 7), chunks=(1 << 20, 7), dtype="f4")
        r = E.run_cmd("prior-predictive", self.so, ["z=%s:z" % big],
                      self.fresh(), num_samples=1, check=False)
        self.assert_one_error_line(r, "does not fit in memory", "bytes free",
                                   "set TMPDIR")
        # A chunk far beyond memory: one chunk is decoded in memory.
        zarr.open_group(big, mode="w").create_dataset(
            "z", shape=(1 << 40, 7), chunks=(1 << 38, 7), dtype="f4")
        r = E.run_cmd("prior-predictive", self.so, ["z=%s:z" % big],
                      self.fresh(), num_samples=1, check=False)
        self.assert_one_error_line(r, "half of", "rechunk")

    def test_inputs_past_the_memory_bound_are_spilled(self):
        """An input larger than the memory bound is decoded chunk by chunk
        into a spill file in $TMPDIR (AIMZ_INPUT_MEMORY_BYTES=0 makes every
        input one), with the same bytes as from memory."""
        path = self.path("spill.zarr")
        g = zarr.open_group(path, mode="w")
        g.create_dataset("z", data=self.z, chunks=(10, 3))
        want = self.run_from("z=%s:z" % path)
        spill = self.path("spill-dir")
        os.makedirs(spill, exist_ok=True)
        saved = {k: os.environ.get(k) for k in ("AIMZ_INPUT_MEMORY_BYTES", "TMPDIR")}
        os.environ.update(AIMZ_INPUT_MEMORY_BYTES="0", TMPDIR=spill)
        try:
            got = self.run_from("z=%s:z" % path)
            os.environ["TMPDIR"] = self.path("no-such-dir")
            nowhere = E.run_cmd("prior-predictive", self.so, ["z=%s:z" % path],
                                self.fresh(), num_samples=1, check=False)
            os.environ["AIMZ_INPUT_MEMORY_BYTES"] = "lots"
            r = E.run_cmd("prior-predictive", self.so, ["z=%s:z" % path],
                          self.fresh(), num_samples=1, check=False)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        for k in want:
            self.assertTrue(E.same_bytes(got[k], want[k]), k)
        self.assertEqual(os.listdir(spill), [])  # an unnamed file, gone
        self.assert_one_error_line(nowhere, "cannot be spilled", "set TMPDIR")
        self.assert_one_error_line(r, "AIMZ_INPUT_MEMORY_BYTES='lots'")


if __name__ == "__main__":
    E.main()
