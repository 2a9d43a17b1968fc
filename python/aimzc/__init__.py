"""aimzc: compiled probabilistic models run from Python.

    import aimzc
    model = aimzc.compile("linreg.aimz")     # or aimzc.load("linreg.so")
    pred = model.predict({"X": X}, mcmc.get_samples(), seed=0)   # xarray.Dataset
    ll = model.log_likelihood({"X": X, "y": y}, "fit-*.csv")     # Stan's CSVs

`data` is a dict of arrays or columns, a data frame (pandas, polars, a
pyarrow Table, an xarray Dataset) or a path (`.npz`, `.parquet`): a
column feeds the input of its name, a categorical column its codes
(`aimzc.frames`). `posterior` is a dict of NumPy arrays (a NumPyro
`mcmc.get_samples()` dict as it is; `get_samples(group_by_chain=True)`
keeps its chains), an ArviZ InferenceData or an xarray Dataset with
(chain, draw, ...) dims, or paths (`.npz`, an ArviZ netCDF or CmdStan CSV
files). C-contiguous arrays of the model's dtype are used in place,
without a copy. The work runs in the same native runtime as `aimz-run`,
with the GIL released; Ctrl-C stops it cleanly. Results are the CLI's Zarr
store: opened lazily when `out=` names a directory, else read into memory
and the temporary store removed. With `layout="inference-data"` the result
is an `arviz.InferenceData` (groups posterior_predictive or predictions,
log_likelihood, prior and prior_predictive, observed_data; dims (chain,
draw, ...)), or a dict of group -> xarray.Dataset where ArviZ is missing. Errors raise `aimzc.Error` with the CLI's
one-line message.
"""

import atexit
import html
import json
import os
import shutil
import tempfile

import numpy as np

try:
    from . import _native
except ImportError as e:  # the package without its compiled part
    raise ImportError(
        "aimzc's native module (aimzc/_native*.so) is not built or does not "
        "load (%s); build it with `cmake --build build --target "
        "aimzc_python` (tools/test.sh and tools/demo.sh do), then put "
        "build/python on PYTHONPATH" % e) from e

from . import frames  # noqa: E402  (after the native part's check)

Error = _native.Error
__version__ = _native.version

__all__ = ["Error", "Model", "compile", "load"]


def _arrays(arg, what):
    """A dict of C-contiguous arrays (copies only where the layout needs
    one), or a path string."""
    if arg is None or isinstance(arg, (str, os.PathLike)):
        return None if arg is None else os.fspath(arg)
    if not hasattr(arg, "items"):
        raise TypeError("%s must be a dict of arrays or a path; got %s"
                        % (what, type(arg).__name__))
    out = {}
    for name, value in arg.items():
        a = np.asarray(value)
        if not a.flags.c_contiguous:
            a = np.ascontiguousarray(a)
        out[str(name)] = a
    return out


def _dim_coords(ds):
    """A Dataset's dim coordinates (chain, draw, a named dim; numbers or
    text): the result keeps them, as it keeps a netCDF posterior's."""
    out = {}
    for name, c in ds.coords.items():
        if c.ndim == 1 and c.dims[0] == name:
            out[str(name)] = frames.labels_array(c.values)
    return out


def _posterior(arg, sites):
    """The posterior as the native side takes it, its chain count (0:
    unknown) and the labels of a Dataset's dims (coords, site_dims). An
    InferenceData (its posterior group) or a Dataset with
    (chain, draw) dims, and a dict whose every array has two leading axes
    more than its site (NumPyro's get_samples(group_by_chain=True)), are
    flattened chain-major: a view, no copy, where the layout allows."""
    if hasattr(arg, "posterior") and hasattr(arg, "groups"):
        arg = arg.posterior  # arviz.InferenceData
    if hasattr(arg, "data_vars"):  # xarray.Dataset
        if "chain" not in arg.dims or "draw" not in arg.dims:
            raise ValueError("a posterior Dataset needs 'chain' and 'draw' "
                             "dimensions (ArviZ's posterior group)")
        chains = int(arg.sizes["chain"])
        out, site_dims = {}, {}
        for name, v in arg.data_vars.items():
            v = v.transpose("chain", "draw", ...)
            a = np.asarray(v.values)
            out[str(name)] = a.reshape((-1,) + a.shape[2:])
            site_dims[str(name)] = [str(d) for d in v.dims[2:]]
        return out, chains, {"posterior_coords": _dim_coords(arg),
                             "site_dims": site_dims}
    if arg is None or isinstance(arg, (str, os.PathLike)) or \
            not hasattr(arg, "items"):
        return arg, 0, {}
    ranks = {s["name"]: len(s.get("shape", [])) for s in sites}
    arrays = {str(k): np.asarray(v) for k, v in arg.items()}
    known = [k for k in arrays if k in ranks]
    grouped = bool(known) and all(arrays[k].ndim == ranks[k] + 2
                                  for k in known)
    if not grouped:
        return arg, 0, {}
    leads = {arrays[k].shape[:2] for k in known}
    if len(leads) != 1:
        raise ValueError("posterior arrays grouped by chain disagree on "
                         "(chains, draws): %s" % sorted(leads))
    chains = next(iter(leads))[0]
    return {k: a.reshape((-1,) + a.shape[2:]) if k in ranks else a
            for k, a in arrays.items()}, chains, {}


def _interventions(arg, what):
    """{site: value}: numbers as floats, arrays C-contiguous (in place)."""
    if arg is None:
        return None
    if not hasattr(arg, "items"):
        raise TypeError("%s must be a dict of site -> number or array; got %s"
                        % (what, type(arg).__name__))
    out = {}
    for site, value in arg.items():
        a = np.asarray(value)
        out[str(site)] = float(a) if a.ndim == 0 else np.ascontiguousarray(a)
    return out


def _data(data, inputs):
    """Inputs: a dict of arrays or columns, a data frame (frames.py), or an
    .npz path (memory-mapped by the runtime, as the CLI's --data reads it)
    or a Parquet path."""
    return frames.arrays(data, inputs)[0]


def _labels(options, categories, rows):
    """coords= (by dim name), a frame's categories (by the input whose
    codes they give) and index (the observations'), as the native side
    takes them; a Zarr store writes them as coordinate variables."""
    coords = options.get("coords")
    if coords is not None:
        if not hasattr(coords, "items"):
            raise TypeError("coords must be a dict of dim -> labels, as "
                            "PyMC's; got %s" % type(coords).__name__)
        options["coords"] = {str(k): frames.labels_array(v)
                             for k, v in coords.items()}
    if categories:
        options["index_labels"] = {k: frames.labels_array(v)
                                   for k, v in categories.items()}
    if rows is not None:
        options["obs_labels"] = rows


class Model:
    """A compiled model (`aimzc model.aimz -o model.so`)."""

    def __init__(self, path):
        self._native = _native.Model(os.fspath(path))
        self.info = json.loads(self._native.manifest_json)
        """The manifest: inputs, outputs (the observed arrays, in order),
        sites (kind, class, dtype, shape), the sharding plan and why."""

    @property
    def path(self):
        return self._native.path

    def __repr__(self):
        return "<aimzc.Model %s: plan %s, sites %s>" % (
            self.info.get("model"), self.info.get("plan"),
            ", ".join(s["name"] for s in self.info.get("sites", [])))

    def _repr_html_(self):
        """The site table as aimz-run info prints it, as HTML (Jupyter)."""
        esc = html.escape
        m = self.info

        def shape(dims):
            return "[%s]" % ", ".join(esc(str(d)) for d in dims)

        def arrays(key):
            return ", ".join("%s: %s%s" % (esc(a["name"]), esc(a["dtype"]),
                                           shape(a.get("shape", [])))
                             for a in m.get(key, []))
        rows = "".join(
            "<tr>%s</tr>" % "".join("<td>%s</td>" % c for c in (
                esc(s["name"]), esc(s["kind"]), esc(s.get("class", "")),
                esc(s.get("dist") or "-"), esc(s["dtype"]),
                shape(s.get("shape", []))))
            for s in m.get("sites", []))
        head = "".join("<th>%s</th>" % h for h in (
            "site", "kind", "class", "distribution", "dtype", "shape"))
        return ("<div><b>aimzc.Model %s</b>: plan %s, %s, observation axis "
                "%s<br>inputs: %s<br>outputs: %s<table><thead><tr>%s</tr>"
                "</thead><tbody>%s</tbody></table></div>" % (
                    esc(str(m.get("model"))), esc(str(m.get("plan"))),
                    esc(str(m.get("precision"))), esc(str(m.get("obs_dim"))),
                    arrays("inputs"), arrays("outputs"), head, rows))

    def _run(self, command, data, posterior, out, options):
        options = {k: v for k, v in options.items() if v is not None}
        if "return_sites" in options and isinstance(options["return_sites"],
                                                    str):
            options["return_sites"] = [options["return_sites"]]
        if "shard_axis" in options and options["shard_axis"] not in (
                "auto", "obs", "draw"):
            raise ValueError("shard_axis must be 'auto', 'obs' or 'draw'")
        import xarray as xr
        posterior, chains, labels = _posterior(posterior,
                                               self.info.get("sites", []))
        if chains:
            options["chains"] = chains
        options.update(labels)
        post = _arrays(posterior, "posterior")
        for key in ("intervention", "baseline_intervention"):
            if key in options:
                options[key] = _interventions(options[key], key)
        inputs = {a["name"] for a in self.info.get("inputs", [])} | {
            a["name"] for a in self.info.get("outputs", [])}
        if "baseline_data" in options:
            options["baseline_data"] = _data(options["baseline_data"], inputs)
        if options.get("resume") and out is None:
            raise ValueError("resume=True continues the store at `out` that "
                             "an interrupted run left; give out=")
        arrays, categories, rows = frames.arrays(data, inputs)
        _labels(options, categories, rows)
        bar = _progress(options, command)
        # Without `out`, a temporary store read into memory and removed.
        tmp = None if out is not None else tempfile.mkdtemp(prefix="aimzc-")
        store = os.fspath(out) if out is not None else os.path.join(
            tmp, "out.zarr")
        try:
            try:
                report, warnings = self._native.run(
                    command, arrays, post, store, options)
            finally:
                if bar is not None:
                    bar.close()
            _warn(warnings)
            if options.get("layout") == "inference-data":
                return _open_inference_data(store, tmp is not None, report)
            ds = xr.open_zarr(store)
            if tmp is not None:
                with ds:
                    ds = ds.load()
            ds.attrs["aimzc_report"] = json.dumps(report)
            return ds
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)

    def predict(self, data, posterior, *, seed=0, shard_axis="auto",
                batch_size=None, devices=None, return_sites=None, out=None,
                progress=True, codec=None, dims=None, strict=False,
                intervention=None, layout="flat", out_of_sample=False,
                include_posterior=False, coords=None, resume=False):
        """Posterior predictive draws of each output (and deterministic
        sites), one per posterior draw and observation. `intervention`:
        {site: number or array of the site's shape}, do(site = value) as
        NumPyro's `do` (aimz-run's --intervene). `layout="inference-data"`
        returns ArviZ's groups (`out_of_sample=True`: 'predictions', as
        aimz's in_sample=False; `include_posterior=True`: the posterior's
        latents too, as the 'posterior' group)."""
        return self._run("predict", data, posterior, out, dict(
            seed=seed, shard_axis=shard_axis, batch_size=batch_size,
            devices=devices, return_sites=return_sites, progress=progress,
            codec=codec, dims=dims, strict=strict, intervention=intervention,
            layout=_layout(layout), out_of_sample=out_of_sample,
            include_posterior=include_posterior, coords=coords,
            resume=resume))

    def effect(self, data, posterior, *, intervention=None,
               baseline_intervention=None, baseline_data=None, seed=0,
               shard_axis="auto", batch_size=None, devices=None,
               return_sites=None, out=None, progress=True, codec=None,
               dims=None, strict=False, keep_scenarios=False, coords=None,
               resume=False):
        """Scenario minus baseline predictive draws with common random
        numbers (aimz-run effect): the scenario is `data` with
        `intervention`, the baseline `data` updated by `baseline_data`
        with `baseline_intervention`; both use the same draws and seed, so
        noise the intervention does not touch cancels exactly.
        `keep_scenarios=True` also returns <site>_scenario and
        <site>_baseline."""
        return self._run("effect", data, posterior, out, dict(
            coords=coords,
            seed=seed, shard_axis=shard_axis, batch_size=batch_size,
            devices=devices, return_sites=return_sites, progress=progress,
            codec=codec, dims=dims, strict=strict, intervention=intervention,
            baseline_intervention=baseline_intervention,
            baseline_data=baseline_data, keep_scenarios=keep_scenarios,
            resume=resume))

    def log_likelihood(self, data, posterior, *, shard_axis="auto",
                       batch_size=None, devices=None, out=None,
                       progress=True, codec=None, dims=None, strict=False,
                       layout="flat", include_posterior=False,
                       coords=None, resume=False):
        """Pointwise log-likelihood of each observed output (in `data`,
        under the output's name; a model with several outputs needs them
        all) per posterior draw, one array per output, plus factor terms.
        `layout="inference-data"`: ArviZ's log_likelihood group, ready for
        az.loo / az.waic once joined to the fit (`idata.extend(...,
        join="right")`), or on its own with `include_posterior=True`, which
        adds the posterior's latents as the 'posterior' group."""
        return self._run("log_likelihood", data, posterior, out, dict(
            coords=coords,
            shard_axis=shard_axis, batch_size=batch_size, devices=devices,
            progress=progress, codec=codec, dims=dims, strict=strict,
            layout=_layout(layout), include_posterior=include_posterior,
            resume=resume))

    def prior_predictive(self, data, num_samples=1000, *, seed=0,
                         shard_axis="auto", batch_size=None, devices=None,
                         return_sites=None, out=None, progress=True,
                         codec=None, dims=None, num_observations=None,
                         layout="flat", coords=None, resume=False):
        """Draws from the prior predictive: every latent from its prior.
        `layout="inference-data"`: groups prior_predictive (the outputs) and
        prior (latents and deterministics)."""
        return self._run("prior_predictive", data, None, out, dict(
            coords=coords,
            num_samples=num_samples, seed=seed, shard_axis=shard_axis,
            batch_size=batch_size, devices=devices,
            return_sites=return_sites, progress=progress, codec=codec,
            dims=dims, num_observations=num_observations,
            layout=_layout(layout), resume=resume))


def _layout(layout):
    if layout not in ("flat", "inference-data"):
        raise ValueError("layout must be 'flat' or 'inference-data', not %r"
                         % (layout,))
    return layout


def _open_inference_data(store, in_memory, report):
    """The InferenceData groups of a store: an arviz.InferenceData, or a
    dict of group -> xarray.Dataset where ArviZ is not installed."""
    import xarray as xr
    import zarr
    groups = {}
    for name, _ in zarr.open_group(store, mode="r").groups():
        ds = xr.open_zarr(store, group=name)
        if in_memory:
            with ds:
                ds = ds.load()
        groups[name] = ds
    try:
        import arviz as az
    except ImportError:
        return groups
    for ds in groups.values():
        ds.attrs["aimzc_report"] = json.dumps(report)
    return az.InferenceData(**groups)


_TITLES = {"predict": "Posterior predictive sampling",
           "effect": "Effect (scenario - baseline)",
           "log_likelihood": "Computing log-likelihood",
           "prior_predictive": "Prior predictive sampling"}


def _progress(options, command):
    """progress=True: a tqdm bar over batches when tqdm is installed (else
    the CLI's bar on stderr); a callable: called with (done, total)."""
    p = options.get("progress")
    if callable(p):
        options["progress"] = False
        options["on_progress"] = p
        return None
    options["progress"] = bool(p)
    if not p:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None  # the native bar
    bar = tqdm(desc=_TITLES[command], unit="batch")

    def update(done, total):
        bar.total = total
        bar.n = done
        bar.refresh()
    options["on_progress"] = update
    return bar


def _warn(messages):
    import warnings
    for m in messages:
        warnings.warn(m, stacklevel=3)


def compile(model, output=None, *, target_cpu=None, precision="auto",
            gpu=True):
    """Compiles a model in this process (the same compiler as `aimzc`) and
    loads it. `model` is a path to a `.aimz` file or the model's source
    text. The library goes to `output` (a path ending in .so), else into
    a temporary directory removed when Python exits. `target_cpu` as
    aimzc's --target-cpu (default: this host's), `precision` 'auto', 'f32'
    or 'f64', `gpu=False` leaves the GPU code out. A model that does not
    compile raises aimzc.Error carrying aimzc's diagnostics (with source
    lines)."""
    if isinstance(model, os.PathLike) or (
            isinstance(model, str) and "\n" not in model and
            model.rstrip().endswith(".aimz")):
        path = os.fspath(model)
        with open(path, encoding="utf-8") as f:
            source, name = f.read(), path
    elif isinstance(model, str):
        source, name = model, "<source>"
    else:
        raise TypeError("model must be a path to a .aimz file or its source "
                        "text; got %s" % type(model).__name__)
    if output is None:
        tmp = tempfile.mkdtemp(prefix="aimzc-model-")
        _TEMPORARY_DIRS.append(tmp)
        output = os.path.join(tmp, "model.so")
    warnings = _native.compile(source, name, os.fspath(output),
                               target_cpu or "", precision, bool(gpu))
    if warnings:
        _warn([w for w in warnings.splitlines() if w])
    return Model(output)


_TEMPORARY_DIRS = []


@atexit.register
def _remove_temporary_dirs():
    for d in _TEMPORARY_DIRS:
        shutil.rmtree(d, ignore_errors=True)


def load(path):
    """Loads a compiled model (`aimzc model.aimz -o model.so`)."""
    return Model(path)
