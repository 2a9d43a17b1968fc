"""The Zarr v2 array the virtual environment's peers (jax_peer.py,
pymc_peer.py) write their draws into: laid out like aimz-run's store, so
that bench/harness.py, under Debian's zarr 2, can check it against ours."""


def v2_array(path, spec):
    """A Zarr v2 array at path with the site, shape, chunks, dtype, codec,
    fill value and dimension names of spec (bench/harness.py's spec_of)."""
    import numcodecs
    import zarr
    comp = spec["compressor"]
    compressors = [numcodecs.get_codec(dict(comp))] if comp else None
    root = zarr.open_group(path, mode="w", zarr_format=2)
    arr = root.create_array(spec["site"], shape=tuple(spec["shape"]),
                            chunks=tuple(spec["chunks"]), dtype=spec["dtype"],
                            compressors=compressors,
                            fill_value=spec["fill_value"], overwrite=True)
    arr.attrs["_ARRAY_DIMENSIONS"] = spec["dims"]
    return arr


def write_blocks(path, spec, n, step, draws_of_block, t_setup):
    """draws_of_block(o) for each block of step observations from o, each
    written into a fresh v2_array at path as (draws, block) of the store's
    type; the seconds computing and writing (the peer's result JSON)."""
    import time

    import numpy as np
    arr = v2_array(path, spec)
    dtype = np.dtype(spec["dtype"])
    D = spec["shape"][0]
    t_compute = t_write = 0.0
    blocks = 0
    for o in range(0, n, step):
        t0 = time.perf_counter()
        out = np.asarray(draws_of_block(o)).reshape(D, -1).astype(
            dtype, copy=False)
        t1 = time.perf_counter()
        arr[:, o:o + out.shape[1]] = out
        t_compute += t1 - t0
        t_write += time.perf_counter() - t1
        blocks += 1
    return dict(setup_s=t_setup, compute_s=t_compute, write_s=t_write,
                check_copy_s=0.0, batches=blocks)
