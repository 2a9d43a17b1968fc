#!/usr/bin/env bash
# `pip install <checkout>` into a throwaway venv, then what a pip user does,
# from a directory outside the checkout: `import aimzc`, compile linreg with
# the module and with the installed `aimzc` command, run the installed
# `aimz-run predict` on both libraries and check that the two stores (and
# the module's own in-process predict) hold the same draws, bit for bit.
#
# Usage: pip_install.sh ROOT WORK. WORK keeps the venv and the CMake build
# directory between runs (a rerun rebuilds only what changed; ccache serves
# a fresh one). Exits 77 (skipped) only when no venv with pip can be made.
#
# The venv is Debian's python3 with --system-site-packages: numpy, xarray
# and zarr (the package's dependencies) come from Debian, so pip downloads
# nothing but the pinned build requirements (pyproject.toml), installed
# once into the venv; --no-build-isolation then builds with them instead of
# downloading them again into an isolated environment on every install.
set -euo pipefail
root="$1"
work="$2"
py="${AIMZ_PIP_PYTHON:-/usr/bin/python3}"
venv="$work/venv"
mkdir -p "$work"
rm -rf "$venv"
if ! "$py" -m venv --system-site-packages "$venv" ||
   ! "$venv/bin/python" -m pip --version; then
  echo "pip_install: cannot create a venv with pip from $py" \
       "(apt-get install python3-venv): skipped"
  exit 77
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check)
mapfile -t requires < <("$venv/bin/python" -c '
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    print("\n".join(tomllib.load(f)["build-system"]["requires"]))
' "$root/pyproject.toml")
echo "pip_install: build requirements: ${requires[*]}"
"${pip[@]}" install -q "${requires[@]}"

# The project's ccache base (tools/test.sh) keeps working here: the build
# directory is under the checkout, so its paths are relative to it. The
# sloppiness lets ccache cache the compiles that use MLIR's precompiled
# header, the slowest ones, which it otherwise refuses.
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:+$CCACHE_SLOPPINESS,}pch_defines,time_macros"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
start=$(date +%s)
"${pip[@]}" install --no-build-isolation \
  --config-settings=build-dir="$work/build" "$root"
echo "pip_install: pip install took $(( $(date +%s) - start )) s"

# Outside the checkout, with nothing of the build tree on the paths.
run="$(mktemp -d "${TMPDIR:-/tmp}/aimz-pip-XXXXXX")"
trap 'rm -rf "$run"' EXIT
cd "$run"
env -u PYTHONPATH PATH="$venv/bin:$PATH" VENV="$venv" \
    LINREG="$root/dsl-examples/linreg.aimz" \
    "$venv/bin/python" - <<'PY'
import os
import shutil
import subprocess

import numpy as np
import xarray as xr

import aimzc

venv = os.path.realpath(os.environ["VENV"])
for what, path in (("aimzc", aimzc.__file__),
                   ("aimzc._native", aimzc._native.__file__),
                   ("the aimzc command", shutil.which("aimzc")),
                   ("the aimz-run command", shutil.which("aimz-run"))):
    assert path and os.path.realpath(path).startswith(venv + os.sep), \
        "%s is %s, not from the venv %s" % (what, path, venv)
version = subprocess.run(["aimzc", "--version"], check=True,
                         capture_output=True, text=True).stdout.split()[-1]
assert version == aimzc.__version__, (version, aimzc.__version__)

rng = np.random.default_rng(0)
n, k, draws = 2000, 3, 40
X = rng.normal(size=(n, k)).astype(np.float32)
post = {"alpha": rng.normal(size=draws).astype(np.float32),
        "beta": rng.normal(size=(draws, k)).astype(np.float32),
        "sigma": (0.1 + np.abs(rng.normal(size=draws))).astype(np.float32)}
np.save("X.npy", X)
np.savez("post.npz", **post)

model = aimzc.compile(os.environ["LINREG"], "module.so")
subprocess.run(["aimzc", os.environ["LINREG"], "-o", "cli.so"], check=True)
stores = {}
for lib in ("module.so", "cli.so"):
    stores[lib] = lib + ".zarr"
    subprocess.run(["aimz-run", "predict", lib, "--data", "X=X.npy",
                    "--posterior", "post.npz", "--out", stores[lib],
                    "--seed", "7", "--no-progress"], check=True)
inproc = model.predict({"X": X}, post, seed=7, progress=False)

a, b = (xr.open_zarr(s).load() for s in stores.values())
assert set(a.data_vars) == set(b.data_vars) == set(inproc.data_vars), \
    (list(a.data_vars), list(b.data_vars), list(inproc.data_vars))
assert {"y", "eta"} <= set(a.data_vars), list(a.data_vars)
for name in a.data_vars:
    assert a[name].shape == (draws, n), (name, a[name].shape)
    assert np.array_equal(a[name].values, b[name].values), name
    assert np.array_equal(a[name].values, inproc[name].values), name
    assert np.all(np.isfinite(a[name].values)), name
# y ~ Normal(alpha + X @ beta, sigma): the draws' mean is near mu.
mu = post["alpha"][:, None] + post["beta"] @ X.T
z = (a["y"].values - mu) / post["sigma"][:, None]
assert abs(z.mean()) < 0.05 and abs(z.std() - 1) < 0.05, (z.mean(), z.std())
same = open("module.so", "rb").read() == open("cli.so", "rb").read()
print("pip_install: the module's and the command's model.so are %s"
      % ("the same bytes" if same else "different bytes"))
print("pip_install: ok: aimzc %s from %s; y and eta (%d draws x %d) are "
      "identical from the module's and the command's library, and from "
      "the module's predict" % (aimzc.__version__, venv, draws, n))
PY
