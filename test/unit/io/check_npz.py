#!/usr/bin/python3
"""Checks, with NumPy and zipfile, an .npz written by aimz_io_tests.

Usage: /usr/bin/python3 check_npz.py FILE.npz [--zip64]

Expects the members of make_fixtures.members() minus "scalar"/"empty" plus
whatever else, each following make_fixtures.rule(). Exits non-zero with a
message on the first mismatch.
"""
import struct
import sys
import zipfile

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from make_fixtures import members  # noqa: E402


def main(path, want_zip64):
    with zipfile.ZipFile(path) as z:
        bad = z.testzip()
        if bad is not None:
            sys.exit("CRC mismatch in member %s" % bad)
        for info in z.infolist():
            if info.compress_type != zipfile.ZIP_STORED:
                sys.exit("%s is not stored" % info.filename)
    with open(path, "rb") as f:
        data = f.read()
    has_eocd64 = struct.pack("<I", 0x06064B50) in data
    if want_zip64 and not has_eocd64:
        sys.exit("no ZIP64 end of central directory record")
    expect = members()
    with np.load(path) as npz:
        for name in npz.files:
            got = npz[name]
            want = expect[name]
            if got.dtype != want.dtype or got.shape != want.shape:
                sys.exit("%s: got %s %s, want %s %s" % (
                    name, got.dtype, got.shape, want.dtype, want.shape))
            if not np.array_equal(got, want):
                sys.exit("%s: values differ" % name)
        print("ok:", ", ".join(npz.files))


if __name__ == "__main__":
    main(sys.argv[1], "--zip64" in sys.argv[2:])
