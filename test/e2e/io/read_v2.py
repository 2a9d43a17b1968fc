#!/usr/bin/python3
"""Reads the v2 stores written by aimz-io-e2e-write-stores with zarr-python
and xarray (Debian's python3-zarr / python3-xarray) and checks them against
expected.json.

Usage: /usr/bin/python3 read_v2.py OUTDIR {zarr|xarray}
Exit status 77 means "skipped" (a reader library is not installed).
"""
import json
import os
import sys
import warnings

SKIP = 77


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def load_expected(out):
    with open(os.path.join(out, "expected.json")) as f:
        return json.load(f)


def expected_values(np, spec):
    vals = [np.nan if v is None else v for v in spec["values"]]
    return np.array(vals, dtype=spec["dtype"]).reshape(spec["shape"])


def same(np, got, want):
    if got.shape != want.shape:
        return False
    if want.dtype.kind == "f":
        return bool(np.array_equal(got, want, equal_nan=True))
    return bool(np.array_equal(got, want))


def check_padding(np, zarr, store, arr, spec, name):
    """Decodes raw edge chunks and checks their padding is the fill value."""
    shape, chunks = spec["shape"], spec["chunks"]
    if not shape:
        return
    grid = [-(-s // c) for s, c in zip(shape, chunks)]
    last = ".".join(str(g - 1) for g in grid)
    if name + "/" + last not in store:
        return  # Deliberately unwritten; zarr fills it.
    raw = store[name + "/" + last]
    if arr.compressor is not None:
        raw = arr.compressor.decode(raw)
    block = np.frombuffer(bytes(raw), dtype=spec["dtype"]).reshape(chunks)
    valid = tuple(slice(0, s - (g - 1) * c)
                  for s, c, g in zip(shape, chunks, grid))
    pad = np.ones(chunks, dtype=bool)
    pad[valid] = False
    if not pad.any():
        return
    padding = block[pad]
    if spec["dtype"][1] == "f":
        ok = np.isnan(padding).all()
    else:
        ok = (padding == 0).all()
    if not ok:
        fail("%s: padding of edge chunk %s is %r, not the fill value"
             % (name, last, padding))


def check_zarr(out, exp):
    try:
        import numpy as np
        import zarr
    except ImportError as e:
        print("SKIP: zarr-python is not installed (%s); install python3-zarr"
              % e)
        sys.exit(SKIP)
    n = 0
    for st in exp["stores"]:
        if st["format"] != 2:
            continue
        path = os.path.join(out, st["path"])
        for opener in (zarr.open_group, zarr.open_consolidated):
            g = opener(path, mode="r")
            if dict(g.attrs) != exp["group_attrs"]:
                fail("%s: group attrs %r" % (path, dict(g.attrs)))
            names = sorted(g.array_keys())
            if names != sorted(exp["arrays"]):
                fail("%s: arrays %r" % (path, names))
            for name, spec in exp["arrays"].items():
                a = g[name]
                where = "%s/%s (%s)" % (path, name, st["codec"])
                if a.dtype != np.dtype(spec["dtype"]):
                    fail("%s: dtype %s" % (where, a.dtype))
                if list(a.shape) != spec["shape"]:
                    fail("%s: shape %s" % (where, a.shape))
                if list(a.chunks) != spec["chunks"]:
                    fail("%s: chunks %s" % (where, a.chunks))
                attrs = dict(a.attrs)
                if attrs.pop("_ARRAY_DIMENSIONS", None) != spec["dims"]:
                    fail("%s: _ARRAY_DIMENSIONS" % where)
                if attrs != spec["attrs"]:
                    fail("%s: attrs %r" % (where, attrs))
                got = a[...]
                if not same(np, np.asarray(got), expected_values(np, spec)):
                    fail("%s: values\n%r\nwant\n%r"
                         % (where, got, expected_values(np, spec)))
                check_padding(np, zarr, g.store, a, spec, name)
                n += 1
    # Spot checks independent of expected.json.
    g = zarr.open_group(os.path.join(out, "v2-default.zarr"), mode="r")
    assert g["theta"][4, 6] == 46.25 and g["theta"].dtype == np.float32
    assert g["count"][2] == 19999999999
    assert np.isnan(g["missing"][3])
    assert g["lp"][()] == -12.5
    print("ok: zarr %s read %d arrays" % (zarr.__version__, n))


def check_xarray(out, exp):
    try:
        import numpy as np
        import xarray as xr
        import zarr  # noqa: F401  (xarray's zarr backend)
    except ImportError as e:
        print("SKIP: xarray or zarr is not installed (%s); install "
              "python3-xarray python3-zarr" % e)
        sys.exit(SKIP)
    n = 0
    for st in exp["stores"]:
        if st["format"] != 2:
            continue
        path = os.path.join(out, st["path"])
        with warnings.catch_warnings():
            # A missing .zmetadata would warn; ours must not.
            warnings.simplefilter("error", RuntimeWarning)
            ds = xr.open_zarr(path)
        if ds.attrs != exp["group_attrs"]:
            fail("%s: dataset attrs %r" % (path, ds.attrs))
        for name, spec in exp["arrays"].items():
            v = ds[name]
            where = "%s/%s (%s)" % (path, name, st["codec"])
            if list(v.dims) != spec["dims"]:
                fail("%s: dims %r" % (where, v.dims))
            if dict(v.attrs) != spec["attrs"]:
                fail("%s: attrs %r" % (where, dict(v.attrs)))
            want = expected_values(np, spec)
            got = v.values
            # Integers and bools must stay integers: no masking of zeros.
            if got.dtype != want.dtype:
                fail("%s: xarray decoded %s as %s" % (where, want.dtype,
                                                      got.dtype))
            if not same(np, got, want):
                fail("%s: values\n%r\nwant\n%r" % (where, got, want))
            n += 1
        for dim in ("draw", "school", "chain", "obs", "k", "k3"):
            if dim not in ds.dims:
                fail("%s: dimension %s missing from %r" % (path, dim, ds.dims))
        if (ds.dims["school"], ds.dims["draw"], ds.dims["chain"]) != (7, 5, 4):
            fail("%s: dimension sizes %r" % (path, dict(ds.dims)))
    print("ok: xarray %s read %d variables" % (xr.__version__, n))


def main():
    out, which = sys.argv[1], sys.argv[2]
    exp = load_expected(out)
    if which == "zarr":
        check_zarr(out, exp)
    else:
        check_xarray(out, exp)


if __name__ == "__main__":
    main()
