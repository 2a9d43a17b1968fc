#!/usr/bin/env bash
# Sets up a fresh machine, builds everything and runs every test (lit,
# GoogleTest, end-to-end) through ctest. Usage: tools/test.sh [build-dir]
#
# AIMZ_SANITIZE=address (ASan + UBSan) or AIMZ_SANITIZE=thread (TSan) builds
# the same suite with sanitizers in build-asan/ or build-tsan/ (unless a
# build dir is given) and runs it; see docs/testing.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sanitize="${AIMZ_SANITIZE:-}"
case "$sanitize" in
  "") build="${1:-$root/build}"; type=Release ;;
  address) build="${1:-$root/build-asan}"; type=RelWithDebInfo ;;
  thread) build="${1:-$root/build-tsan}"; type=RelWithDebInfo ;;
  *) echo "tools/test.sh: AIMZ_SANITIZE must be address or thread" >&2; exit 2 ;;
esac
"$root/tools/bootstrap.sh"
# NumPyro, JAX and aimz from PyPI: the references of test/e2e/numpyro.
"$root/tools/setup_venv.sh"
# ccache keys on relative paths under the checkout, so a fresh clone (CI)
# reuses the objects of an earlier build on this machine.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="$type" \
  -DAIMZ_SANITIZE="$sanitize"
cmake --build "$build"
if [ "$sanitize" = thread ]; then
  # Report every race, with both stacks; fail the test that caused one.
  export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
elif [ "$sanitize" = address ]; then
  # allow_user_poisoning=0: LLVM's inline allocators poison memory that
  # the uninstrumented static MLIR then uses (a false report; docs/testing.md).
  export ASAN_OPTIONS="detect_leaks=0 allow_user_poisoning=0 ${ASAN_OPTIONS:-}"
  export UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1 ${UBSAN_OPTIONS:-}"
fi
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
