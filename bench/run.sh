#!/usr/bin/env bash
# aimz-run side by side with NumPy + OpenBLAS, PyTorch, Stan (rstan gqs),
# NumPyro's Predictive, PyMC and aimz itself (PyPI aimz on JAX), on this
# machine, in one go.
#
#   bench/run.sh [--quick|--full] [harness options]
#
#   --quick   50 posterior draws instead of 1000 (under 10 minutes on 2
#             cores once the peers are installed and Stan's programs are
#             compiled and cached)
#   (none)    1000 draws: mlp n = 10k, 100k; linreg n = 100k, 1M; hier
#             n = 100k; prior n = 100k under both plans; memory scaling at
#             100k and 1M
#   --full    also mlp at 1M and the memory scaling at 1M and 10M
#
# Steps: install the peers from Debian's packages (idempotent: apt-get runs
# only for what is missing; a peer that cannot be installed is skipped with
# a message), build aimzc, aimz-run and the MLP kernel benchmark in
# Release, then run bench/harness.py with Debian's /usr/bin/python3 (the
# `python3` first on PATH may not see Debian's packages). The table goes to
# stdout and to $BUILD/bench-results/<mode>/{table.txt,results.csv,
# results.json}; data, stores and Stan's compiled programs live in
# $BUILD/bench-work. Environment: BUILD (default <repo>/build), JOBS
# (ninja -j, default 2), AIMZ_BENCH_NO_INSTALL=1 to skip apt-get.
#
# Then bench/count_models.py: the Poisson, negative-binomial and logistic
# GLMs against NumPy + SciPy (AIMZ_BENCH_COUNTS=0 skips it), and
# bench/compile.sh: aimzc's time per example and phase
# (AIMZ_BENCH_COMPILE=0 skips it), and the Gaussian process against NumPyro
# and PyMC (bench/gp.py) with the Cholesky factor beside LAPACK
# (aimz-bench-cholesky; AIMZ_BENCH_GP=0 skips both).
#
# Extra options go to the harness: --peers numpy,torch,stan,numpyro,aimz-jax,pymc,
# --only
# mlp,linreg,hier,prior,mem, --draws D, --work DIR, --results DIR.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="${BUILD:-$root/build}"
jobs="${JOBS:-2}"
mode=standard
args=()
for a in "$@"; do
  case "$a" in
    --quick) mode=quick ;;
    --full) mode=full ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) args+=("$a") ;;
  esac
done

t_start=$(date +%s)
logdir="$build/bench-results/logs"
mkdir -p "$logdir"
log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

# --- peers from Debian's packages -----------------------------------------
# python3-numpy + libopenblas0-pthread (without it numpy and torch fall back
# to the reference BLAS, ~6 GFLOP/s), python3-zarr, python3-torch,
# r-cran-rstan (+ libboost-dev: Debian's r-cran-bh is a placeholder, so
# stan_model is given boost_lib = "/usr/include"), zstd for the codec
# reference, time for /usr/bin/time -v.
pkgs=(python3-numpy libopenblas0-pthread python3-zarr python3-numcodecs
      python3-torch r-cran-rstan libboost-dev zstd time)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "${AIMZ_BENCH_NO_INSTALL:-0}" = 1 ]; then
    log "not installing ${missing[*]} (AIMZ_BENCH_NO_INSTALL=1); peers that need them are skipped"
  else
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! $sudo apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends \
         "${missing[@]}" >"$logdir/apt.log" 2>&1; then
      # One by one, so one unavailable package does not cost the others.
      $sudo apt-get -o DPkg::Lock::Timeout=600 update >>"$logdir/apt.log" 2>&1 || true
      for p in "${missing[@]}"; do
        $sudo apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "$p" \
          >>"$logdir/apt.log" 2>&1 \
          || log "could not install $p (see $logdir/apt.log): the peer that needs it is skipped"
      done
    fi
  fi
else
  log "peers already installed: ${pkgs[*]}"
fi
# The JAX peers (aimz itself from PyPI, NumPyro's Predictive) and PyMC from the
# pinned virtual environment (idempotent; skipped peers say so).
if [ "${AIMZ_BENCH_NO_INSTALL:-0}" = 1 ]; then
  [ -x "$root/.venv/bin/python" ] || log "no .venv (AIMZ_BENCH_NO_INSTALL=1): the aimz-jax, numpyro and pymc peers are skipped"
else
  "$root/tools/setup_venv.sh" >"$logdir/venv.log" 2>&1 || true
  log "$(tail -1 "$logdir/venv.log")"
fi
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is required" >&2; exit 1; }
[ -x /usr/bin/python3 ] || { echo "bench: /usr/bin/python3 is required" >&2; exit 1; }
t_install=$(date +%s)

# --- build in Release ---------------------------------------------------------
log "building aimzc aimz-run aimzc_python aimz-bench-mlp-kernel aimz-bench-io-codecs aimz-bench-samplers aimz-bench-cholesky (Release) in $build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$logdir/cmake.log" 2>&1 \
  || { cat "$logdir/cmake.log"; exit 1; }
ninja -C "$build" -j "$jobs" aimzc aimz-run aimzc_python aimz-bench-mlp-kernel aimz-bench-io-codecs aimz-bench-samplers aimz-bench-cholesky >"$logdir/build.log" 2>&1 \
  || { tail -40 "$logdir/build.log"; exit 1; }
t_build=$(date +%s)
log "install $((t_install - t_start)) s, build $((t_build - t_install)) s"

# --- run -----------------------------------------------------------------------
/usr/bin/python3 "$here/harness.py" --mode "$mode" --build "$build" "${args[@]+"${args[@]}"}"
# The count and logistic GLMs against NumPy + SciPy (bench/count_models.py,
# in the virtual environment, which has SciPy and zarr 3); its table goes
# to $build/bench-results/<mode>/count_models.txt. AIMZ_BENCH_COUNTS=0 skips it.
if [ "${AIMZ_BENCH_COUNTS:-1}" != 0 ] && [ -x "$root/.venv/bin/python" ]; then
  case "$mode" in quick) count_draws=50 ;; *) count_draws=200 ;; esac
  mkdir -p "$build/bench-results/$mode"
  "$root/.venv/bin/python" "$here/count_models.py" --build "$build" --draws "$count_draws" \
    | tee "$build/bench-results/$mode/count_models.txt" \
    || log "count_models.py failed (see above)"
fi
# aimzc's compile time per example and phase (bench/compile.sh);
# AIMZ_BENCH_COMPILE=0 skips it.
if [ "${AIMZ_BENCH_COMPILE:-1}" != 0 ]; then
  mkdir -p "$build/bench-results/$mode"
  BUILD="$build" "$here/compile.sh" --runs 3 | tee "$build/bench-results/$mode/compile.txt" \
    || log "compile.sh failed (see above)"
fi
# The Gaussian process (one joint MultivariateNormal: a Cholesky factor per
# draw) against NumPyro and PyMC, and the factor alone against LAPACK, into
# $build/bench-results/<mode>/{gp,cholesky}.txt. AIMZ_BENCH_GP=0 skips them.
if [ "${AIMZ_BENCH_GP:-1}" != 0 ] && [ -x "$root/.venv/bin/python" ]; then
  case "$mode" in
    quick) gp_args=(--n 1000 --draws 100) ;;
    *) gp_args=(--n 1000 2000 --draws 1000) ;;
  esac
  mkdir -p "$build/bench-results/$mode"
  "$build/bin/aimz-bench-cholesky" | tee "$build/bench-results/$mode/cholesky.txt" \
    || log "aimz-bench-cholesky failed (see above)"
  "$root/.venv/bin/python" "$here/gp.py" --build "$build" "${gp_args[@]}" \
    | tee "$build/bench-results/$mode/gp.txt" \
    || log "gp.py failed (see above)"
fi
t_end=$(date +%s)
log "done: benchmark $((t_end - t_build)) s, total $((t_end - t_start)) s (install $((t_install - t_start)) s, build $((t_build - t_install)) s)"
