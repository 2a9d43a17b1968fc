#!/usr/bin/env bash
# Sets up a fresh machine, builds the tools, compiles dsl-examples/linreg.aimz,
# makes small synthetic data and a posterior, and runs posterior predictive
# sampling into a Zarr store. Usage: tools/demo.sh [work-dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"
work="${1:-$root/out/demo}"
"$root/tools/bootstrap.sh"
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
# aimzc_python: `import aimzc` with PYTHONPATH=build/python.
cmake --build "$build" --target aimzc aimz-run aimzc_python
mkdir -p "$work"
cd "$work"

echo "== compile the model"
"$build/bin/aimzc" "$root/dsl-examples/linreg.aimz" --emit=sites
"$build/bin/aimzc" "$root/dsl-examples/linreg.aimz" -o linreg.so

echo "== synthetic data (100,000 observations) and a posterior (500 draws)"
/usr/bin/python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(0)
n, k, draws = 100_000, 10, 500
np.save("X.npy", rng.normal(size=(n, k)).astype(np.float32))
np.savez("post.npz",
         alpha=rng.normal(0.5, 0.1, draws).astype(np.float32),
         beta=rng.normal(0.0, 0.3, (draws, k)).astype(np.float32),
         sigma=np.abs(rng.normal(1.0, 0.1, draws)).astype(np.float32))
PY

echo "== posterior predictive"
"$build/bin/aimz-run" predict linreg.so --data X=X.npy --posterior post.npz \
  --out pred.zarr --seed 1
echo "== the store, opened with xarray"
/usr/bin/python3 -c "import xarray as xr; print(xr.open_zarr('$work/pred.zarr'))"
echo "store: $work/pred.zarr"
