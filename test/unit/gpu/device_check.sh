#!/bin/bash
# The GPU checks of issue 6 in one go, for the lent H200 (the `device` tool's
# `run`: a copy of this repository, no network, about 10 minutes).
#
#   test/unit/gpu/device_check.sh             # on the GPU machine
#   test/unit/gpu/device_check.sh --prepare   # here, before: see below
#
# What it runs there (each step under its own time limit; output also under
# $OUT, /tmp/aimz-device-check when unset: device_check.log, gpu_tests.log,
# gpu_tests.xml, bench.log):
#   1. nvidia-smi, the driver, the CPU count;
#   2. aimz_gpu_tests (the fake-driver tests and, on the GPU, predict,
#      log-likelihood and prior-predictive of linreg, mlp, logistic,
#      hierarchical and local_latent compared with the host entry points:
#      integers byte-identical, floats within 1e-5 relative) ~1-3 min, most
#      of it the driver's JIT of the models' PTX (cached for later steps);
#   3. aimz_gpu_bench: MLP predict, 1000 draws x 1M observations through
#      GpuDevice (no compression/store), time-boxed, extrapolated if cut;
#   4. NumPyro's Predictive on the same model and sizes (JAX on the GPU);
#   5. compute-sanitizer (memcheck) on one small GPU test, if present.
# (Issue 38 added: every compiled model through aimz-run, GPU against CPU
# (examples_check.py); the MLP end to end into the store
# (mlp_e2e_bench.py); memcheck on aimz-run itself. MLP_DRAWS and MLP_OBS
# shrink the MLP for a dry run here on the stand-in driver.)
#
# Where the binaries come from. The GPU machine has no network and maybe not
# this machine's toolchain (LLVM 19 + MLIR, nlohmann-json, Boost, GTest), so:
#   a. a bundle prepared here and carried: run `device_check.sh --prepare`
#      here; it builds self-contained binaries (no libLLVM.so, static
#      libstdc++), the compiled models and the shared libraries the models
#      load (OpenBLAS, gfortran) into .gpu-bundle/ (ignored through
#      .git/info/exclude, about 20 MB); then call the device tool with
#        command: test/unit/gpu/device_check.sh   carry: [".gpu-bundle"]
#   b. otherwise it builds with CMake there (cmake -S . -B build-gpu -G Ninja;
#      ninja aimz_gpu_tests_portable aimz_gpu_bench), which needs LLVM 19
#      and MLIR under /usr/lib/llvm-19 there; if they are missing it says so
#      and stops.
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
BUNDLE=$ROOT/.gpu-bundle

prepare() {
  local build=${1:-$ROOT/build}
  set -e
  cmake -S "$ROOT" -B "$build" -G Ninja >/dev/null
  ninja -C "$build" aimz_gpu_tests_portable aimz_gpu_bench aimz_gpu_test_models aimz_fake_cuda
  local gpu=$build/test/unit/gpu
  rm -rf "$BUNDLE"
  mkdir -p "$BUNDLE/bin" "$BUNDLE/models" "$BUNDLE/lib"
  cp "$gpu/aimz_gpu_tests_portable" "$gpu/aimz_gpu_bench" "$gpu/libaimz_fake_cuda.so" "$BUNDLE/bin/"
  cp "$gpu"/models/*.so "$BUNDLE/models/"
  # aimz-run and every compiled model of the e2e suite (the examples among
  # them), for examples_check.py and mlp_e2e_bench.py.
  ninja -C "$build" aimz-run
  (cd "$ROOT" && /usr/bin/python3 test/e2e/run/build_models.py \
     --aimzc "$build/bin/aimzc" --aimz-run "$build/bin/aimz-run" \
     --examples dsl-examples --models "$build/test/e2e/run/models" \
     --tmp "$build/test/e2e/run/tmp" >/dev/null)
  cp "$build/bin/aimz-run" "$BUNDLE/bin/"
  mkdir -p "$BUNDLE/run-models"
  cp "$build"/test/e2e/run/models/*.so "$BUNDLE/run-models/"
  tar czf "$BUNDLE/run-models.tar.gz" -C "$BUNDLE" run-models
  rm -rf "$BUNDLE/run-models"
  # The models' and aimz-run's own dependencies beyond the C and C++
  # runtimes (OpenBLAS for the host entry points; zstd, blosc and Open MPI
  # for aimz-run; and what they need).
  ldd "$gpu"/models/*.so "$build/bin/aimz-run" | awk '/=> \// {print $3}' | sort -u | while read -r lib; do
    case $(basename "$lib") in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libgcc_s.so*|libstdc++.so*) ;;
      *) cp -L "$lib" "$BUNDLE/lib/" ;;
    esac
  done
  # OpenBLAS is large: carried compressed, unpacked to /tmp there.
  tar czf "$BUNDLE/lib.tar.gz" -C "$BUNDLE" lib
  rm -rf "$BUNDLE/lib"
  grep -qx '/.gpu-bundle/' "$ROOT/.git/info/exclude" 2>/dev/null ||
    echo '/.gpu-bundle/' >> "$ROOT/.git/info/exclude"
  du -sh "$BUNDLE"
  ls -la "$BUNDLE"/*
  echo "prepared; on the device: command test/unit/gpu/device_check.sh, carry [\".gpu-bundle\"]"
}

if [ "${1:-}" = "--prepare" ]; then
  prepare "${2:-}"
  exit $?
fi

OUT=${OUT:-/tmp/aimz-device-check}
ORIG_LD_LIBRARY_PATH=${LD_LIBRARY_PATH-}
mkdir -p "$OUT"
exec > >(tee "$OUT/device_check.log") 2>&1
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 ))s] $*"; }

stamp "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 | head -5
echo "cpus: $(nproc)"
# One JIT cache for every step (the driver's default may be small).
export CUDA_CACHE_PATH=/tmp/aimz-cuda-cache CUDA_CACHE_MAXSIZE=4294967296
mkdir -p "$CUDA_CACHE_PATH"

if [ -x "$BUNDLE/bin/aimz_gpu_tests_portable" ]; then
  stamp "using the carried bundle $BUNDLE"
  BIN=$BUNDLE/bin
  export AIMZ_GPU_TEST_MODEL_DIR=$BUNDLE/models
  export AIMZ_FAKE_CUDA_PATH=$BUNDLE/bin/libaimz_fake_cuda.so
  chmod +x "$BIN"/aimz_gpu_* 2>/dev/null
  mkdir -p /tmp/aimz-gpu-bundle && tar xzf "$BUNDLE/lib.tar.gz" -C /tmp/aimz-gpu-bundle || exit 2
  tar xzf "$BUNDLE/run-models.tar.gz" -C /tmp/aimz-gpu-bundle || exit 2
  AIMZ_RUN=$BIN/aimz-run
  RUN_MODELS=/tmp/aimz-gpu-bundle/run-models
  export LD_LIBRARY_PATH=/tmp/aimz-gpu-bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
elif [ -d /usr/lib/llvm-19/lib/cmake/mlir ] && command -v cmake >/dev/null && command -v ninja >/dev/null; then
  stamp "building with CMake here (no bundle carried)"
  cmake -S "$ROOT" -B "$ROOT/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 2
  timeout 420 ninja -C "$ROOT/build-gpu" aimz_gpu_tests_portable aimz_gpu_bench aimz_gpu_test_models || {
    echo "the build failed or ran out of time"; exit 2; }
  BIN=$ROOT/build-gpu/test/unit/gpu
  timeout 300 ninja -C "$ROOT/build-gpu" aimz-run aimzc || exit 2
  (cd "$ROOT" && python3 test/e2e/run/build_models.py \
     --aimzc build-gpu/bin/aimzc --aimz-run build-gpu/bin/aimz-run \
     --examples dsl-examples --models build-gpu/run-models \
     --tmp build-gpu/run-tmp >/dev/null)
  AIMZ_RUN=$ROOT/build-gpu/bin/aimz-run
  RUN_MODELS=$ROOT/build-gpu/run-models
  export AIMZ_GPU_TEST_MODEL_DIR=$BIN/models
  export AIMZ_FAKE_CUDA_PATH=$BIN/libaimz_fake_cuda.so
else
  echo "no bundle (.gpu-bundle/, from 'device_check.sh --prepare' on the build"
  echo "machine, named in the device tool's carry) and no LLVM 19 + MLIR here to"
  echo "build with: nothing to run"
  exit 2
fi

stamp "aimz_gpu_tests (the GPU backend; the stand-in's run everywhere)"
timeout 90 "$BIN/aimz_gpu_tests_portable" --gtest_filter='*/Gpu:CudaDriver.*' \
  --gtest_output="xml:$OUT/gpu_tests.xml" 2>&1 | tee "$OUT/gpu_tests.log"
TESTS_RC=${PIPESTATUS[0]}
echo "aimz_gpu_tests exit status: $TESTS_RC"

stamp "every compiled model through aimz-run: GPU against CPU, both plans"
PY=${AIMZ_CHECK_PYTHON:-python3}
# The examples first, then the e2e suite's other models, while time lasts.
NAMES=$(for f in "$ROOT"/dsl-examples/*.aimz; do n=$(basename "$f" .aimz)
          [ -f "$RUN_MODELS/$n.so" ] && echo "$n"; done
        for f in "$RUN_MODELS"/*.so; do n=$(basename "$f" .so)
          [ -f "$ROOT/dsl-examples/$n.aimz" ] || echo "$n"; done)
# shellcheck disable=SC2086
timeout 100 "$PY" "$ROOT/test/unit/gpu/examples_check.py" --aimz-run "$AIMZ_RUN" \
  --models "$RUN_MODELS" --obs 1031 --draws 24 --max-seconds 75 $NAMES 2>&1 |
  tee "$OUT/examples.log"
EXAMPLES_RC=${PIPESTATUS[0]}
echo "examples_check exit status: $EXAMPLES_RC"

stamp "MLP predict, 1000 draws x 1M observations, aimz-run into the store"
timeout 120 "$PY" "$ROOT/test/unit/gpu/mlp_e2e_bench.py" --aimz-run "$AIMZ_RUN" \
  --model "$RUN_MODELS/mlp.so" --per-run-seconds 30 \
  --draws "${MLP_DRAWS:-1000}" --obs "${MLP_OBS:-1000000}" 2>&1 | tee "$OUT/bench.log"
echo "mlp_e2e_bench exit status: ${PIPESTATUS[0]}"

stamp "aimz_gpu_bench (the GPU part alone: no compression or store)"
timeout 40 "$BIN/aimz_gpu_bench" --draws 1000 --obs 1000000 --batch-obs 65536 \
  --probe-obs 32768 --obs-blocks 64,16 --max-seconds 15 2>&1 | tee -a "$OUT/bench.log"
echo "aimz_gpu_bench exit status: ${PIPESTATUS[0]}"

if command -v compute-sanitizer >/dev/null; then
  stamp "compute-sanitizer memcheck: one small aimz-run on the GPU"
  (cd /tmp && "$PY" -c "
import numpy as np
r = np.random.default_rng(0)
np.save('san_X.npy', r.normal(size=(3001, 8)).astype(np.float32))
np.savez('san_post.npz', alpha=r.normal(size=40).astype(np.float32),
         beta=r.normal(size=(40, 8)).astype(np.float32),
         sigma=np.abs(r.normal(size=40)).astype(np.float32))")
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$AIMZ_RUN" predict "$RUN_MODELS/linreg.so" --data X=/tmp/san_X.npy \
    --posterior /tmp/san_post.npz --out /tmp/san.zarr --device gpu 2>&1 | tail -15
  echo "compute-sanitizer exit status: ${PIPESTATUS[0]}"
fi

stamp "NumPyro Predictive, same model and sizes"
LD_LIBRARY_PATH=$ORIG_LD_LIBRARY_PATH PYTHONUNBUFFERED=1 timeout 60 python3 \
  "$ROOT/test/unit/gpu/numpyro_mlp_bench.py" --draws 1000 --obs 1000000 \
  --batch-obs 65536 --max-seconds 20 2>&1 | tee -a "$OUT/bench.log"
echo "numpyro_mlp_bench exit status: ${PIPESTATUS[0]}"

stamp "summary"
grep -E '^\[  (PASSED|FAILED) +\]|^\[  SKIPPED \] [0-9]+ test' "$OUT/gpu_tests.log"
grep -E '^\[  FAILED  \] [A-Z]' "$OUT/gpu_tests.log" | sort -u
grep -E '^RESULT ' "$OUT/examples.log" "$OUT/bench.log"
grep -E 'FAILED|DIFFERS' "$OUT/examples.log"
exit $(( TESTS_RC || EXAMPLES_RC ))
