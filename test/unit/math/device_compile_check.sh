#!/bin/sh
# Compile device_compile_check.cu for NVPTX to check that the maths headers
# are usable in device code: with nvcc (warnings are errors) and with clang's
# CUDA front end, whichever are available.  Exit 0 when every available
# compiler succeeds, 77 (ctest "skipped") when none is available.
#
#   test/unit/math/device_compile_check.sh [include-dir]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
inc=${1:-$here/../../../runtime/include}
src=$here/device_compile_check.cu
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ran=0

cuda_root=
for d in "${CUDA_HOME:-}" /usr/local/cuda /usr/local/cuda-13.0 /usr/local/cuda-12; do
  if [ -n "$d" ] && [ -f "$d/include/cuda_runtime.h" ]; then cuda_root=$d; break; fi
done
if [ -z "$cuda_root" ]; then
  for d in /usr/local/cuda-*; do
    if [ -f "$d/include/cuda_runtime.h" ]; then cuda_root=$d; break; fi
  done
fi

nvcc=
if command -v nvcc >/dev/null 2>&1; then nvcc=$(command -v nvcc)
elif [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc; fi
if [ -n "$nvcc" ]; then
  echo "== nvcc ($nvcc)"
  "$nvcc" -arch=sm_80 -std=c++17 -O2 -Werror all-warnings \
    '-DAIMZ_MATH_FN=__host__ __device__ inline' -I"$inc" -c "$src" -o "$out/nvcc.o"
  ran=1
fi

clang=
for c in clang++-19 clang++; do
  if command -v "$c" >/dev/null 2>&1; then clang=$(command -v "$c"); break; fi
done
if [ -n "$clang" ] && [ -n "$cuda_root" ]; then
  echo "== clang CUDA ($clang, $cuda_root)"
  # CUDA 13 dropped headers that clang 19's CUDA wrapper still includes.
  mkdir -p "$out/stub"
  for h in texture_fetch_functions.h texture_indirect_functions.h surface_indirect_functions.h; do
    [ -f "$cuda_root/include/$h" ] || : > "$out/stub/$h"
  done
  # The first-attempt samplers combine conditions with a bitwise & on
  # purpose (no short circuit: straight-line code that vectorizes).
  "$clang" -x cuda --cuda-path="$cuda_root" --cuda-gpu-arch=sm_80 --cuda-device-only \
    -std=c++17 -O2 -Wall -Wextra -Werror -Wno-unknown-cuda-version \
    -Wno-bitwise-instead-of-logical \
    '-DAIMZ_MATH_FN=__host__ __device__ inline' -isystem "$out/stub" -I"$inc" \
    -S "$src" -o "$out/clang.ptx"
  ran=1
fi

if [ "$ran" = 0 ]; then
  echo "no CUDA compiler found; skipped"
  exit 77
fi
echo "device compile check passed"
