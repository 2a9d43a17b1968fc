"""Reads a Zarr v3 store written by aimz-run with zarr-python 3 (the pinned
venv's) and prints, as JSON, what read_store_v3.mjs prints with zarrita.js:
the group attributes and, for each named array, its metadata as the reader
sees it and its values (base64 of the little-endian element bytes), for
test_zarr_v3.py to compare.

Usage: .venv/bin/python read_store_v3.py STORE ARRAY..."""

import base64
import json
import sys

import numpy as np
import zarr


def main():
    store, names = sys.argv[1], sys.argv[2:]
    group = zarr.open_group(store, mode="r", zarr_format=3)
    result = {"attrs": dict(group.attrs), "arrays": {}}
    for name in names:
        arr = group[name]
        values = np.asarray(arr[...])
        little = values.astype(values.dtype.newbyteorder("<"), copy=False)
        result["arrays"][name] = {
            "dtype": np.dtype(arr.dtype).str,
            "shape": list(arr.shape),
            "chunks": list(arr.chunks),
            "dimension_names": list(arr.metadata.dimension_names),
            "result_shape": list(values.shape),
            "data": base64.b64encode(little.tobytes()).decode("ascii"),
        }
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
