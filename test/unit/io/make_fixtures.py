#!/usr/bin/python3
"""Writes .npy/.npz fixtures with NumPy itself, for aimz_io_tests.

Usage: /usr/bin/python3 make_fixtures.py OUTDIR

Values follow fixed rules that the C++ tests recompute:
  f4 / f8:  arange(n) * 0.5 - 3
  i4 / i8:  arange(n) * 7 - 100
  b1:       arange(n) % 3 == 0
  u1:       arange(n) % 251
The directory is created under a temporary name and renamed into place, so
concurrent test processes never see a half-written set.
"""
import os
import sys
import tempfile
import zipfile

import numpy as np


def rule(dtype, shape):
    n = int(np.prod(shape))
    a = np.arange(n)
    kind = np.dtype(dtype)
    if kind == np.bool_:
        v = a % 3 == 0
    elif kind == np.uint8:
        v = a % 251
    elif kind.kind == "f":
        v = a * 0.5 - 3
    else:
        v = a * 7 - 100
    return v.astype(dtype).reshape(shape)


def members():
    return {
        "theta": rule("<f4", (3, 5)),
        "beta": rule("<f8", (2, 3, 4)),
        "counts": rule("<i4", (7,)),
        "ids": rule("<i8", (4, 2)),
        "mask": rule("|b1", (10,)),
        "bytes": rule("|u1", (300,)),
        "scalar": np.float64(3.5),
        "empty": np.zeros((0, 3), "<f4"),
    }


def write_npy(path, arr, version):
    with open(path, "wb") as f:
        np.lib.format.write_array(f, arr, version=version)


def main(out):
    parent = os.path.dirname(os.path.abspath(out)) or "."
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".fixtures-", dir=parent)
    arr = rule("<f4", (3, 5))
    for major in (1, 2, 3):
        write_npy(os.path.join(tmp, "v%d.npy" % major), arr, (major, 0))
    np.save(os.path.join(tmp, "fortran.npy"),
            np.asfortranarray(rule("<f8", (3, 4))))
    np.save(os.path.join(tmp, "bigendian.npy"), rule(">f4", (4,)))
    np.save(os.path.join(tmp, "complex.npy"), np.zeros(3, "<c8"))
    np.save(os.path.join(tmp, "structured.npy"),
            np.zeros(2, dtype=[("a", "<f4"), ("b", "<i4")]))
    np.savez(os.path.join(tmp, "stored.npz"), **members())
    np.savez_compressed(os.path.join(tmp, "deflated.npz"), **members())
    # Lowering zipfile's limits makes it emit genuine ZIP64 central records
    # and end records for small members (numpy already forces ZIP64 local
    # headers), without writing gigabytes.
    saved = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
    zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 64, 1
    try:
        np.savez(os.path.join(tmp, "zip64.npz"), **members())
        np.savez_compressed(os.path.join(tmp, "zip64-deflated.npz"),
                            **members())
    finally:
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = saved
    with open(os.path.join(tmp, "STAMP"), "w") as f:
        f.write("numpy %s\n" % np.__version__)
    try:
        os.rename(tmp, out)
    except OSError:
        # Another process won the race; its fixtures are identical.
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
        if not os.path.exists(os.path.join(out, "STAMP")):
            raise


if __name__ == "__main__":
    main(sys.argv[1])
