"""aimzc: compiled probabilistic models run from Python.

    import aimzc
    model = aimzc.load("linreg.so")          # compiled by `aimzc linreg.aimz -o linreg.so`
    pred = model.predict({"X": X}, mcmc.get_samples(), seed=0)   # xarray.Dataset
    ll = model.log_likelihood({"X": X, "y": y}, "fit-*.csv")     # Stan's CSVs

`data` and `posterior` are dicts of NumPy arrays (a NumPyro
`mcmc.get_samples()` dict as it is) or paths (`.npz`; CmdStan CSV files for
the posterior). C-contiguous arrays of the model's dtype are used in place,
without a copy. The work runs in the same native runtime as `aimz-run`,
with the GIL released; Ctrl-C stops it cleanly. Results are the CLI's Zarr
store: opened lazily when `out=` names a directory, else read into memory
and the temporary store removed. Errors raise `aimzc.Error` with the CLI's
one-line message.
"""

import json
import os
import shutil
import tempfile

import numpy as np

from . import _native

Error = _native.Error
__version__ = _native.version

__all__ = ["Error", "Model", "load"]


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


def _data(data):
    """Inputs: a dict of arrays, or an .npz path (memory-mapped by the
    runtime, as the CLI's --data reads it)."""
    return {} if data is None else _arrays(data, "data")


class Model:
    """A compiled model (`aimzc model.aimz -o model.so`)."""

    def __init__(self, path):
        self._native = _native.Model(os.fspath(path))
        self.info = json.loads(self._native.manifest_json)
        """The manifest: inputs, output, sites (kind, class, dtype, shape),
        the sharding plan and why."""

    @property
    def path(self):
        return self._native.path

    def __repr__(self):
        return "<aimzc.Model %s: plan %s, sites %s>" % (
            self.info.get("model"), self.info.get("plan"),
            ", ".join(s["name"] for s in self.info.get("sites", [])))

    def _run(self, command, data, posterior, out, options):
        options = {k: v for k, v in options.items() if v is not None}
        if "return_sites" in options and isinstance(options["return_sites"],
                                                    str):
            options["return_sites"] = [options["return_sites"]]
        if "shard_axis" in options and options["shard_axis"] not in (
                "auto", "obs", "draw"):
            raise ValueError("shard_axis must be 'auto', 'obs' or 'draw'")
        import xarray as xr
        post = _arrays(posterior, "posterior")
        for key in ("intervention", "baseline_intervention"):
            if key in options:
                options[key] = _interventions(options[key], key)
        if "baseline_data" in options:
            options["baseline_data"] = _arrays(options["baseline_data"],
                                               "baseline_data")
        bar = _progress(options, command)
        # Without `out`, a temporary store read into memory and removed.
        tmp = None if out is not None else tempfile.mkdtemp(prefix="aimzc-")
        store = os.fspath(out) if out is not None else os.path.join(
            tmp, "out.zarr")
        try:
            try:
                report, warnings = self._native.run(command, _data(data),
                                                    post, store, options)
            finally:
                if bar is not None:
                    bar.close()
            _warn(warnings)
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
                progress=False, codec=None, dims=None, strict=False,
                intervention=None):
        """Posterior predictive draws of the output (and deterministic
        sites), one per posterior draw and observation. `intervention`:
        {site: number or array of the site's shape}, do(site = value) as
        NumPyro's `do` (aimz-run's --intervene)."""
        return self._run("predict", data, posterior, out, dict(
            seed=seed, shard_axis=shard_axis, batch_size=batch_size,
            devices=devices, return_sites=return_sites, progress=progress,
            codec=codec, dims=dims, strict=strict, intervention=intervention))

    def effect(self, data, posterior, *, intervention=None,
               baseline_intervention=None, baseline_data=None, seed=0,
               shard_axis="auto", batch_size=None, devices=None,
               return_sites=None, out=None, progress=False, codec=None,
               dims=None, strict=False, keep_scenarios=False):
        """Scenario minus baseline predictive draws with common random
        numbers (aimz-run effect): the scenario is `data` with
        `intervention`, the baseline `data` updated by `baseline_data`
        with `baseline_intervention`; both use the same draws and seed, so
        noise the intervention does not touch cancels exactly.
        `keep_scenarios=True` also returns <site>_scenario and
        <site>_baseline."""
        return self._run("effect", data, posterior, out, dict(
            seed=seed, shard_axis=shard_axis, batch_size=batch_size,
            devices=devices, return_sites=return_sites, progress=progress,
            codec=codec, dims=dims, strict=strict, intervention=intervention,
            baseline_intervention=baseline_intervention,
            baseline_data=baseline_data, keep_scenarios=keep_scenarios))

    def log_likelihood(self, data, posterior, *, shard_axis="auto",
                       batch_size=None, devices=None, out=None,
                       progress=False, codec=None, dims=None, strict=False):
        """Pointwise log-likelihood of the observed output (in `data`, under
        the output's name) per posterior draw, plus factor terms."""
        return self._run("log_likelihood", data, posterior, out, dict(
            shard_axis=shard_axis, batch_size=batch_size, devices=devices,
            progress=progress, codec=codec, dims=dims, strict=strict))

    def prior_predictive(self, data, num_samples=1000, *, seed=0,
                         shard_axis="auto", batch_size=None, devices=None,
                         return_sites=None, out=None, progress=False,
                         codec=None, dims=None, num_observations=None):
        """Draws from the prior predictive: every latent from its prior."""
        return self._run("prior_predictive", data, None, out, dict(
            num_samples=num_samples, seed=seed, shard_axis=shard_axis,
            batch_size=batch_size, devices=devices,
            return_sites=return_sites, progress=progress, codec=codec,
            dims=dims, num_observations=num_observations))


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


def load(path):
    """Loads a compiled model (`aimzc model.aimz -o model.so`)."""
    return Model(path)
