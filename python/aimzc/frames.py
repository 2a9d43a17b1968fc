"""Data where users keep it: data frames and their columns as a model's
inputs.

`data=` may be a dict of arrays or columns, a pandas DataFrame, a polars
DataFrame, a pyarrow Table, an xarray Dataset, or a Parquet file's path
(read through pyarrow). A frame's column feeds the input of the same name
(other columns are left alone); a dict's value may be a column (pandas or
polars Series, a pyarrow (Chunked)Array, an xarray DataArray) or several
(`df[["a", "b"]]` feeds an `X: f32[n, 2]`, one column per last axis).

A categorical column (pandas Categorical, polars Enum, an Arrow dictionary
array) gives its integer codes, positions in its list of categories, so it
can feed a group index (a polars Categorical, which has no fixed list,
gives positions among its values sorted, as pandas orders categories; use
an Enum to fix the list); `arrays()` also returns the categories, which
label the dim the column's codes index in the results, and a frame's
index (when it is not 0..n-1), which labels the observations. A missing
value (a null, a category NaN) is an error naming the rows, and a text
column an error naming the column: a model reads numbers. Numeric columns
are NumPy views where the frame allows (pandas and pyarrow columns of a
plain dtype without nulls; a polars column is converted by polars); the
model's dtype is then applied by the runtime, which refuses a conversion
that would lose information.
"""

import os

import numpy as np


def _kind(obj):
    """The frame library an object comes from, by its module."""
    return type(obj).__module__.split(".")[0]


def _missing(name, rows):
    rows = np.flatnonzero(rows)
    shown = ", ".join(str(r) for r in rows[:5]) + (", ..." if len(rows) > 5 else "")
    raise ValueError("column '%s' has %d missing value(s) (rows %s); a model "
                     "reads numbers: drop or fill them first" % (name, len(rows), shown))


def _text(name, dtype):
    raise ValueError("column '%s' holds text (%s), which a model cannot read; "
                     "make it categorical (its codes feed an index) or "
                     "numeric first" % (name, dtype))


def _pandas_column(s, name, labels):
    import pandas as pd
    if isinstance(s.dtype, pd.CategoricalDtype):
        codes = np.asarray(s.cat.codes)
        if (codes < 0).any():
            _missing(name, codes < 0)
        labels[name] = [str(c) for c in s.cat.categories]
        return codes.astype(np.int32)
    # NA of a nullable column is missing; NaN of a NumPy float column is a
    # number (the runtime reports what it does with it).
    if not isinstance(s.dtype, np.dtype) or s.dtype.kind not in "fc":
        if s.isna().to_numpy().any():
            _missing(name, s.isna().to_numpy())
    if s.dtype.kind in "OSU" or isinstance(s.dtype, pd.StringDtype):
        _text(name, s.dtype)
    if s.dtype.kind in "biuf":  # a plain NumPy dtype: a view
        return np.asarray(s)
    return s.to_numpy(dtype=np.result_type(s.dtype.numpy_dtype))


def _polars_column(s, name, labels):
    import polars as pl
    if s.null_count():
        _missing(name, s.is_null().to_numpy())
    if isinstance(s.dtype, pl.Enum):  # a fixed list: its positions
        labels[name] = [str(c) for c in s.dtype.categories.to_list()]
        return s.to_physical().to_numpy().astype(np.int32)
    if isinstance(s.dtype, pl.Categorical):
        # No fixed list (polars' codes follow a global pool): the values
        # present, sorted, as pandas orders a Categorical's categories.
        values = s.cast(pl.String).to_numpy()
        cats, codes = np.unique(values, return_inverse=True)
        labels[name] = [str(c) for c in cats]
        return codes.astype(np.int32)
    if s.dtype == pl.String:
        _text(name, s.dtype)
    return s.to_numpy()


def _arrow_column(a, name, labels):
    import pyarrow as pa
    import pyarrow.compute as pc
    if isinstance(a, pa.ChunkedArray):
        a = a.combine_chunks()
    if a.null_count:
        _missing(name, np.asarray(pc.is_null(a)))
    if pa.types.is_dictionary(a.type):
        labels[name] = [str(c) for c in a.dictionary.to_pylist()]
        return np.asarray(a.indices).astype(np.int32)
    if pa.types.is_string(a.type) or pa.types.is_large_string(a.type):
        _text(name, a.type)
    return a.to_numpy(zero_copy_only=False)


def column(value, name, labels):
    """One input's array from a column, several columns (stacked along a
    last axis) or anything NumPy reads."""
    kind = _kind(value)
    if kind == "pandas":
        if hasattr(value, "columns"):  # a frame: one column per last axis
            cols = [_pandas_column(value[c], "%s[%s]" % (name, c), labels)
                    for c in value.columns]
            return np.stack(cols, axis=-1) if cols else np.zeros((len(value), 0))
        return _pandas_column(value, name, labels)
    if kind == "polars":
        if hasattr(value, "columns"):
            return np.stack([_polars_column(value[c], "%s[%s]" % (name, c), labels)
                             for c in value.columns], axis=-1)
        return _polars_column(value, name, labels)
    if kind == "pyarrow":
        if hasattr(value, "column_names"):
            return np.stack([_arrow_column(value.column(c), "%s[%s]" % (name, c), labels)
                             for c in value.column_names], axis=-1)
        return _arrow_column(value, name, labels)
    if kind == "xarray":
        return np.asarray(value.values)
    return np.asarray(value)


def _open_store(path):
    """A Zarr store or netCDF file as an xarray Dataset (lazily: only the
    inputs are read), or the path itself when it is neither."""
    p = os.fspath(path).rstrip("/")
    if p.endswith(".zarr"):
        import xarray as xr
        return xr.open_zarr(p, chunks=None)
    if p.endswith((".nc", ".netcdf")):
        import xarray as xr
        try:
            return xr.open_dataset(p)
        except ValueError as e:  # no engine for netCDF-4 in this Python
            raise ValueError("%s: xarray cannot open it here (%s); install "
                             "h5netcdf or netCDF4, or give the inputs with "
                             "aimz-run --data NAME=%s:VARIABLE" % (p, e, p)) from e
    return path


def labels_array(values):
    """Labels as the native side takes them: numbers (integers, floats) as
    they are, anything else (text, categories, dates) as text."""
    a = np.asarray(values)
    if a.ndim != 1:
        raise ValueError("labels must be 1-D, one per element of their dim; "
                         "got shape %s" % (a.shape,))
    if a.dtype.kind in "iuf":
        return np.ascontiguousarray(a)
    return np.array([str(v) for v in a.tolist()], dtype=str)


def _index_labels(data, columns):
    """The observations' labels a frame carries: a pandas index other than
    0..n-1, or the coordinate of an xarray Dataset's first dim; else None."""
    kind = _kind(data)
    if kind == "pandas" and hasattr(data, "index"):
        import pandas as pd
        idx = data.index
        if isinstance(idx, pd.RangeIndex) and idx.start == 0 and idx.step == 1:
            return None
        if isinstance(idx, pd.MultiIndex):
            idx = idx.to_flat_index()
        return labels_array(idx)
    if kind == "xarray" and columns:
        dim = next(iter(columns.values())).dims[:1]
        if dim and dim[0] in data.indexes:
            return labels_array(data.indexes[dim[0]])
    return None


def frame_columns(data, inputs):
    """({name: column} of a frame (only the model's inputs), the labels of
    its rows or None), or (None, None) when `data` is no frame."""
    if isinstance(data, (str, os.PathLike)) and \
            os.fspath(data).endswith((".parquet", ".pq")):
        import pyarrow.parquet as pq
        names = [n for n in pq.read_schema(data).names if n in inputs]
        data = pq.read_table(data, columns=names, memory_map=True)
    if isinstance(data, (str, os.PathLike)):
        data = _open_store(data)
    kind = _kind(data)
    cols = None
    if kind == "xarray" and hasattr(data, "data_vars"):
        cols = {str(n): data[n] for n in data.data_vars if str(n) in inputs}
    elif kind == "pyarrow" and hasattr(data, "column_names"):
        cols = {n: data.column(n) for n in data.column_names if n in inputs}
    elif kind == "polars" and hasattr(data, "columns"):
        cols = {n: data[n] for n in data.columns if n in inputs}
    elif kind == "pandas" and hasattr(data, "columns"):
        cols = {str(n): data[n] for n in data.columns if str(n) in inputs}
    return cols, None if cols is None else _index_labels(data, cols)


def arrays(data, inputs):
    """`data` as the runtime takes it: {name: C-contiguous array}, the
    labels of categorical columns {name: [category, ...]} and the labels
    of a frame's rows (its index) or None; a path other than Parquet is
    passed on (an .npz the runtime maps)."""
    labels = {}
    frame, rows = frame_columns(data, inputs)
    if frame is None:
        if data is None:
            return {}, labels, None
        if isinstance(data, (str, os.PathLike)):
            return os.fspath(data), labels, None
        if not hasattr(data, "items"):
            raise TypeError("data must be a dict of arrays or columns, a data "
                            "frame (pandas, polars, pyarrow, xarray) or a path "
                            "(.npz, .parquet, .zarr, .nc); got %s"
                            % type(data).__name__)
        frame = dict(data.items())
    out = {}
    for name, value in frame.items():
        a = column(value, str(name), labels)
        out[str(name)] = a if a.flags.c_contiguous else np.ascontiguousarray(a)
    return out, labels, rows
