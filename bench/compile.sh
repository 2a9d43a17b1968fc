#!/usr/bin/env bash
# aimzc's compile time per model: every dsl-examples/ model compiled to a
# shared library (with PTX, as users get it), best of N runs (default 3),
# then one --time-report run per model whose phases are summed into a table
# (parse, analysis, MLIR, LLVM optimization, CPU code, PTX per
# architecture, link). Wall-clock seconds; name the CPU with the figures.
#
#   bench/compile.sh [--runs N] [--no-ptx] [MODEL.aimz ...]
#   bench/compile.sh --scaling ["KIND:SITES ..."] [--no-ptx]
#
# --scaling compiles generated models (bench/scaling_model.py: latent,
# vector, chain and det sites) of growing size once each and prints seconds
# and seconds per site, so that growth faster than the model shows (default
# "latent:100 latent:300 latent:1000 latent:3000 vector:1000 chain:1000
# det:30 det:100 det:300").
#
# Environment: BUILD (default <repo>/build; aimzc must be built there).
# bench/run.sh runs it after the runtime benchmarks; the goal and the
# figures are in docs/benchmarks.md ("Compile time").
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="${BUILD:-$root/build}"
aimzc="$build/bin/aimzc"
runs=3
extra=()
models=()
scaling=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --scaling)
      scaling="latent:100 latent:300 latent:1000 latent:3000 vector:1000 chain:1000 det:30 det:100 det:300"
      if [ $# -gt 1 ] && [[ "$2" == *:* ]]; then scaling="$2"; shift; fi
      shift ;;
    --no-ptx) extra+=(--no-ptx); shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) models+=("$1"); shift ;;
  esac
done
[ -x "$aimzc" ] || { echo "compile.sh: build aimzc first ($aimzc)" >&2; exit 1; }
if [ ${#models[@]} -eq 0 ]; then
  for m in "$root"/dsl-examples/*.aimz; do
    # The example that must not compile (a scan-like site).
    [ "$(basename "$m")" = scan_rejected.aimz ] || models+=("$m")
  done
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
if [ -n "$scaling" ]; then
  echo "aimzc compile time by model size, ${extra[*]:-with PTX}; $cpu, $(nproc) cores"
  printf '%-8s %7s %9s %12s\n' kind sites seconds "ms per site"
  for case in $scaling; do
    kind="${case%%:*}"
    sites="${case##*:}"
    python3 "$here/scaling_model.py" "$kind" "$sites" > "$work/$kind$sites.aimz"
    t0=$(date +%s.%N)
    "$aimzc" "$work/$kind$sites.aimz" -o "$work/$kind$sites.so" "${extra[@]+"${extra[@]}"}" >/dev/null
    t1=$(date +%s.%N)
    awk -v k="$kind" -v n="$sites" -v a="$t0" -v b="$t1" \
      'BEGIN { printf "%-8s %7d %9.2f %12.2f\n", k, n, b - a, 1000 * (b - a) / n }'
  done
  exit 0
fi
echo "aimzc compile time, best of $runs, ${extra[*]:-with PTX}; $cpu, $(nproc) cores"
printf '%-24s %8s   %s\n' model seconds "phases of one --time-report run (wall s)"
total=0
for m in "${models[@]}"; do
  name="$(basename "$m" .aimz)"
  best=""
  for _ in $(seq "$runs"); do
    t0=$(date +%s.%N)
    "$aimzc" "$m" -o "$work/$name.so" "${extra[@]+"${extra[@]}"}" >/dev/null
    t1=$(date +%s.%N)
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    best=$(awk -v t="$t" -v b="$best" 'BEGIN { print (b == "" || t < b) ? t : b }')
  done
  total=$(awk -v a="$total" -v b="$best" 'BEGIN { print a + b }')
  # LLVM's timer table: "   1.2 ( 40.0%)   ...   Wall ( pct)  Name".
  phases=$("$aimzc" "$m" -o "$work/$name.so" --time-report "${extra[@]+"${extra[@]}"}" 2>&1 >/dev/null |
    awk '/^ *[0-9.]+ +\(/ && !/Total/ { n = split($0, f, "  +"); name = f[n];
           for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) w = $i;
           printf "%s %.2f, ", name, w }' | sed 's/, $//' || true)
  printf '%-24s %8.2f   %s\n' "$name" "$best" "$phases"
done
printf '%-24s %8.2f\n' "all ${#models[@]} models" "$total"
