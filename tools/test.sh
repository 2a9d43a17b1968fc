#!/usr/bin/env bash
# Sets up a fresh machine, builds everything and runs every test (lit,
# GoogleTest, end-to-end) through ctest. Usage: tools/test.sh [build-dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
"$root/tools/bootstrap.sh"
# ccache keys on relative paths under the checkout, so a fresh clone (CI)
# reuses the objects of an earlier build on this machine.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
