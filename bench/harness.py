#!/usr/bin/python3
"""aimz-run side by side with the tools users would pick instead.

Called by bench/run.sh (which installs the peers and builds the project);
runs under Debian's /usr/bin/python3, the interpreter that sees
python3-numpy, python3-torch and python3-zarr.

For every workload it runs aimz-run, then each peer on the same data and
posterior draws, in the same process tree measurement:

  wall time, CPU time (user + sys), draw-observation pairs per second,
  peak anonymous RSS (sampled from /proc every 20 ms over the process
  tree), maximum RSS (/usr/bin/time -v; includes file-backed pages such as
  the memory-mapped inputs), output bytes, and the ratio of the peer's
  time to ours.

aimz-run's own output is first compared byte for byte (decoded arrays)
with the same command on one device: devices never change a result.

A peer's timing only counts after its output agreed with ours (the
"check" column; a MISMATCH row gets no ratio):
  * log-likelihood: every element equal, |a - b| <= 1e-5 + 1e-5 |b|
    (Stan: the first 4096 observations of every draw);
  * posterior predictive: both tools sample the same posterior draws, so
    per observation the paired t statistic of mean_j(a_j - b_j) must look
    like sampling noise: mean t near 0, mean t^2 near (D-1)/(D-3), almost
    no |t| > 5, and the same average predictive variance within 3%;
  * prior predictive: the tools draw their own latents, so per-draw
    statistics (mean of y, y^2 and y * x0 over observations) are compared
    with two-sample z tests (|z| < 4.5).
A variant of a peer that differs only in its environment (malloc
tunables, threads, OPENBLAS_CORETYPE) is first compared value for value
with the verified run of that peer, and fully checked when it differs.
Peers whose run at a smaller size predicts more than the mode's limit
(quick 60 s, standard 300 s, full 600 s; Stan at most 180 s) are skipped
and the table says so.

Timing: after the verified first round, --rounds R (default 3) reruns
aimz-run and every verified peer variant interleaved (A B C A B C ...);
each row reports the median wall time and half the range as a percentage
of it ("0.85 ±4%"), and the ratios use the medians.
Cold starts: every peer run is a fresh process, so its time includes its
imports and JIT; aimzc's compile of each model (best of 3, with PTX) is
timed at the start, and the summary's cold column is aimzc + aimz-run,
with each peer's ratio to it ("cold 2.8x").
The JAX peers (numpyro: NumPyro's Predictive, jitted and vectorized over
draws; aimz-jax: aimz 0.15 from PyPI, ImpactModel.predict writing its own
Zarr store) and PyMC (pm.sample_posterior_predictive and
pm.compute_log_likelihood, its C compile in every run) run in the virtual
environment tools/setup_venv.sh makes.
Writes results.csv, results.json and table.txt to --results.
"""

import argparse
import csv
import hashlib
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"
# The JAX peers (aimz from PyPI, NumPyro) live in the virtual environment
# tools/setup_venv.sh makes from tools/requirements.txt.
VENV_PY = os.path.join(ROOT, ".venv", "bin", "python")
JAX_PEERS = ("numpyro", "aimz-jax")
# Peers run by the virtual environment's Python: the script of each.
PEER_SCRIPTS = {"numpyro": "jax_peer.py", "aimz-jax": "jax_peer.py",
                "pymc": "pymc_peer.py"}
VENV_PEERS = tuple(PEER_SCRIPTS)
TUNABLES = ("glibc.malloc.mmap_threshold=33554432:"
            "glibc.malloc.trim_threshold=4294967296")
STAN_LIMIT_S = 180.0   # skip Stan sizes predicted to take longer
K_LINREG = 10
MLP_IN = 100
G_HIER = 8             # dsl-examples/hierarchical.aimz: const G = 8
VERIFY_M_STAN = 4096   # observations of Stan's output checked

MODES = {
    # draws, and the n of each workload. quick uses 50 draws (not 1000)
    # so that the whole run stays under 10 minutes on 2 cores.
    "quick": dict(draws=50, mlp=[10_000, 100_000],
                  linreg=[100_000, 1_000_000], hier=[100_000],
                  prior=[100_000], mem=[100_000, 1_000_000]),
    "standard": dict(draws=1000, mlp=[10_000, 100_000],
                     linreg=[100_000, 1_000_000], hier=[100_000],
                     prior=[100_000], mem=[100_000, 1_000_000]),
    "full": dict(draws=1000, mlp=[10_000, 100_000, 1_000_000],
                 linreg=[100_000, 1_000_000], hier=[100_000],
                 prior=[100_000], mem=[1_000_000, 10_000_000]),
}


def log(msg):
    print(msg, flush=True)


# ------------------------------------------------------------ measuring

def _children(pid):
    out = []
    try:
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, t)) as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


def _rss_anon_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_anon_kb(pid):
    total, stack, seen = 0, [pid], set()
    while stack:
        p = stack.pop()
        if p in seen:
            continue
        seen.add(p)
        total += _rss_anon_kb(p)
        stack += _children(p)
    return total


def measure(cmd, env, logpath, timeout=None):
    """Runs cmd under /usr/bin/time -v; samples the tree's RssAnon."""
    tfile = logpath + ".time"
    full = ["/usr/bin/time", "-v", "-o", tfile] + [str(c) for c in cmd]
    with open(logpath, "w") as lf:
        lf.write("$ %s\n" % " ".join(str(c) for c in cmd))
        lf.flush()
        t0 = time.perf_counter()
        p = subprocess.Popen(full, env=env, stdout=lf, stderr=lf,
                             start_new_session=True)
        peak = 0
        while True:
            try:
                rc = p.wait(timeout=0.02)
                break
            except subprocess.TimeoutExpired:
                peak = max(peak, tree_rss_anon_kb(p.pid))
                if timeout and time.perf_counter() - t0 > timeout:
                    os.killpg(p.pid, 9)
                    p.wait()
                    rc = -9
                    break
        wall = time.perf_counter() - t0
    user = sys_ = maxrss = 0.0
    try:
        txt = open(tfile).read()
        user = float(re.search(r"User time \(seconds\): ([\d.]+)", txt)[1])
        sys_ = float(re.search(r"System time \(seconds\): ([\d.]+)", txt)[1])
        maxrss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                               txt)[1])
    except (OSError, TypeError):
        pass
    return dict(rc=rc, wall_s=wall, cpu_s=user + sys_, peak_anon_mib=peak /
                1024.0, max_rss_mib=maxrss / 1024.0, log=logpath)


def dir_bytes(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for dp, _, fs in os.walk(path):
        for f in fs:
            total += os.path.getsize(os.path.join(dp, f))
    return total


DIGEST_COLUMNS = 16384


def store_digest(path, site="y"):
    """md5 of the decoded array, read in blocks of DIGEST_COLUMNS
    observations x every draw, each block in C order: independent of the
    store's chunking (which follows the batch size, and so may differ
    between device counts) and of Blosc's encoded bytes (which vary run to
    run for the same input). Reading a draw at a time instead decoded every
    chunk once per draw it holds: hours for a 1000-draw store."""
    arr = open_array(path, site)
    h = hashlib.md5()
    h.update(repr((arr.shape, str(arr.dtype))).encode())
    n = arr.shape[1]
    for o in range(0, n, DIGEST_COLUMNS):
        block = arr[:, o:min(n, o + DIGEST_COLUMNS)]
        h.update(np.ascontiguousarray(block).tobytes())
    return h.hexdigest()


def rm(path):
    if os.path.isdir(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.exists(path):
        os.remove(path)


# ---------------------------------------------------------- verification

def open_array(path, site):
    import zarr
    return zarr.open_group(path, mode="r")[site]


def iter_chunks(arr):
    """(draw slice, obs slice) of each chunk, in storage order."""
    D, n = arr.shape
    cd, cn = arr.chunks
    for d in range(0, D, cd):
        for o in range(0, n, cn):
            yield slice(d, min(D, d + cd)), slice(o, min(n, o + cn))


def _paired(a, b):
    """Per-observation sums over draws of a - b, (a - b)^2, a^2, b^2, a, b."""
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    d = a - b
    return np.stack([d.sum(0), (d * d).sum(0), a.sum(0), (a * a).sum(0),
                     b.sum(0), (b * b).sum(0)])


def paired_sums(ours_path, peer_path, site):
    """_paired over two stores of the same layout, streaming chunks."""
    a = open_array(ours_path, site)
    b = open_array(peer_path, site)
    if a.shape != b.shape:
        raise ValueError("shape %s vs %s" % (a.shape, b.shape))
    S = np.zeros((6, a.shape[1]))
    for ds, os_ in iter_chunks(a):
        S[:, os_] += _paired(a[ds, os_], b[ds, os_])
    return S, a.shape[0]


def stat_test(S, D):
    """Predictive means within sampling error. Both tools draw from the same
    posterior draws, so the test is paired by draw: for each observation,
    t = mean_j(a_j - b_j) / sqrt(var_j(a_j - b_j) / D) has mean 0 and
    E[t^2] = (D-1)/(D-3) (Student t) when both sample the same
    distribution for every draw. Checks: mean t^2 near that, almost no
    |t| > 5, and the same average predictive variance (within 5%)."""
    sd, sdd, sa, saa, sb, sbb = S
    mean_d = sd / D
    var_d = np.maximum(sdd / D - mean_d ** 2, 0) * D / (D - 1)
    se = np.sqrt(var_d / D)
    live = se > 0
    t = mean_d[live] / se[live]
    dead_mismatch = int(np.sum(~live & (mean_d != 0)))
    nt = max(len(t), 1)
    mt = float(np.mean(t)) if len(t) else 0.0
    mt2 = float(np.mean(t * t)) if len(t) else 0.0
    frac5 = float(np.mean(np.abs(t) > 5)) if len(t) else 0.0
    va = np.mean(saa / D - (sa / D) ** 2)
    vb = np.mean(sbb / D - (sb / D) ** 2)
    vr = float(vb / va) if va > 0 else 1.0
    # Student t with nu = D - 1: E t^2 = nu/(nu-2), E t^4 = 3nu^2/((nu-2)(nu-4))
    nu = D - 1
    centre = nu / (nu - 2) if nu > 2 else 1.0
    sd_t2 = (math.sqrt(3 * nu * nu / ((nu - 2) * (nu - 4)) - centre ** 2)
             if nu > 4 else 3.0)
    tol2 = 0.03 + 5 * sd_t2 / math.sqrt(nt)
    tol1 = 0.005 + 5 * math.sqrt(centre / nt)
    # Below ~30 draws the Student t moments do not hold for discrete
    # outcomes (a Bernoulli difference takes three values), so the t^2
    # check only applies from 30 draws.
    t2_ok = abs(mt2 - centre) < tol2 if D >= 30 else True
    ok = (abs(mt) < tol1 and t2_ok and frac5 < 1e-3
          and abs(vr - 1) < 0.03 and dead_mismatch <= 1e-4 * len(sd))
    detail = ("paired means over %d obs x %d draws: mean t %+.4f (|.| < "
              "%.4f), mean t^2 %.3f (%.3f +- %.3f), |t|>5 %.1e, variance "
              "ratio %.4f" % (len(sd), D, mt, tol1, mt2, centre, tol2, frac5,
                              vr))
    return ok, detail


def draw_stats(path, site, x0):
    """Per draw: mean over observations of y, y^2 and y * x0 (streaming)."""
    arr = open_array(path, site)
    D, n = arr.shape
    S = np.zeros((3, D))
    for ds, os_ in iter_chunks(arr):
        b = arr[ds, os_].astype(np.float64)
        S[0, ds] += b.sum(1)
        S[1, ds] += (b * b).sum(1)
        S[2, ds] += (b * x0[os_]).sum(1)
    return S / n


def unpaired_test(Sa, Sb):
    """Prior predictive draws share nothing between tools (each samples its
    own latents), so compare per-draw statistics (mean of y, of y^2, of
    y * x0; D independent values per tool) with two-sample z tests."""
    ma, mb = Sa.mean(1), Sb.mean(1)
    va, vb = Sa.var(1, ddof=1), Sb.var(1, ddof=1)
    z = (ma - mb) / np.sqrt(va / Sa.shape[1] + vb / Sb.shape[1])
    ok = bool(np.all(np.abs(z) < 4.5))
    return ok, ("independent prior draws, per-draw mean of y, y^2, y*x0: "
                "z = %s (|z| < 4.5), %d draws each"
                % (", ".join("%+.2f" % v for v in z), Sa.shape[1]))


def exact_compare(ours_path, peer_path, site):
    a = open_array(ours_path, site)
    b = open_array(peer_path, site)
    if a.shape != b.shape:
        return False, "shape %s vs %s" % (a.shape, b.shape)
    worst = 0.0
    bad = 0
    for ds, os_ in iter_chunks(a):
        x = a[ds, os_].astype(np.float64)
        y = b[ds, os_].astype(np.float64)
        err = np.abs(x - y) - (1e-5 + 1e-5 * np.abs(y))
        bad += int(np.sum(~(err <= 0)))
        worst = max(worst, float(np.max(np.abs(x - y) / (1e-5 + np.abs(y)))))
    return bad == 0, ("log-lik: %d of %d elements off, max |a-b|/(1e-5+|b|)"
                      " %.2e" % (bad, a.shape[0] * a.shape[1], worst))


def exact_compare_mem(ours_path, site, sub):
    a = open_array(ours_path, site)
    x = a[:, :sub.shape[1]].astype(np.float64)
    err = np.abs(x - sub) - (1e-5 + 1e-5 * np.abs(sub))
    bad = int(np.sum(~(err <= 0)))
    worst = float(np.max(np.abs(x - sub) / (1e-5 + np.abs(sub))))
    return bad == 0, ("log-lik (first %d obs): %d elements off, max rel "
                      "%.2e" % (sub.shape[1], bad, worst))


# ------------------------------------------------------------------- data

def gen_data(work, mode_cfg, log_fn):
    """Inputs and posteriors (cached in work/data by name)."""
    dd = os.path.join(work, "data")
    os.makedirs(dd, exist_ok=True)
    D = mode_cfg["draws"]
    rng_true = np.random.default_rng(20240601)
    beta_true = rng_true.normal(0, 1, K_LINREG).astype(np.float32)

    def save(name, make):
        path = os.path.join(dd, name)
        if not os.path.exists(path):
            tmp = path + ".tmp.npy"
            np.save(tmp, make())
            os.replace(tmp, path)
        return path

    def normal_f32(seed, shape, chunk=1 << 22):
        # Written in pieces so 10M x 10 never needs more than 16 MiB.
        rng = np.random.default_rng(seed)
        out = np.empty(shape, np.float32)
        flat = out.reshape(-1)
        for s in range(0, flat.size, chunk):
            e = min(flat.size, s + chunk)
            flat[s:e] = rng.standard_normal(e - s, dtype=np.float32)
        return out

    lin_ns = sorted(set(mode_cfg["linreg"] + mode_cfg["prior"] +
                        mode_cfg["mem"]))
    for n in lin_ns:
        Xp = save("linreg_X_%d.npy" % n,
                  lambda: normal_f32(1000 + n % 997, (n, K_LINREG)))
        if n in mode_cfg["linreg"]:
            def mk_y(Xp=Xp, n=n):
                X = np.load(Xp, mmap_mode="r")
                y = np.empty(n, np.float32)
                rng = np.random.default_rng(7)
                for s in range(0, n, 1 << 20):
                    e = min(n, s + (1 << 20))
                    y[s:e] = (0.5 + X[s:e] @ beta_true +
                              rng.standard_normal(e - s))
                return y
            save("linreg_y_%d.npy" % n, mk_y)
    for n in mode_cfg["mlp"]:
        save("mlp_X_%d.npy" % n, lambda n=n: normal_f32(2000 + n % 991,
                                                         (n, MLP_IN)))
    for n in mode_cfg["hier"]:
        save("hier_x_%d.npy" % n, lambda n=n: normal_f32(3000 + n % 983, (n,)))
        save("hier_g_%d.npy" % n, lambda n=n: np.random.default_rng(4)
             .integers(0, G_HIER, n).astype(np.int32))

    # Posteriors: draws around a "true" value, as MCMC would give.
    def post(name, make):
        path = os.path.join(dd, "post_%s_%d.npz" % (name, D))
        if not os.path.exists(path):
            seed = {"linreg": 11, "hier": 12, "mlp": 13}[name]
            rng = np.random.default_rng(seed * 100003 + D)
            arrays = {k: v.astype(np.float32) for k, v in make(rng).items()}
            np.savez(path[:-4] + ".tmp.npz", **arrays)
            os.replace(path[:-4] + ".tmp.npz", path)
        return path

    post("linreg", lambda r: dict(
        alpha=r.normal(0.5, 0.05, D),
        beta=beta_true[None, :] + r.normal(0, 0.02, (D, K_LINREG)),
        sigma=np.abs(r.normal(1.0, 0.03, D))))
    post("hier", lambda r: dict(
        mu_a=r.normal(0.3, 0.1, D), sigma_a=np.abs(r.normal(1, 0.1, D)),
        a=r.normal(0, 1, (1, G_HIER)) + r.normal(0, 0.05, (D, G_HIER)),
        b=r.normal(0.7, 0.05, D), sigma=np.abs(r.normal(0.8, 0.03, D))))
    H = 128
    post("mlp", lambda r: dict(
        w1=r.normal(0, 0.15, (D, MLP_IN, H)), b1=r.normal(0, 0.1, (D, H)),
        w2=r.normal(0, 0.15, (D, H, H)), b2=r.normal(0, 0.1, (D, H)),
        w3=r.normal(0, 0.15, (D, H, H)), b3=r.normal(0, 0.1, (D, H)),
        w4=r.normal(0, 0.3, (D, H)), b4=r.normal(0, 0.1, D)))
    return dd


# ---------------------------------------------------------- the harness

class Bench:
    def __init__(self, args):
        self.a = args
        self.cfg = dict(MODES[args.mode])
        if args.draws:
            self.cfg["draws"] = args.draws
        if args.max_n:
            for key in ("mlp", "linreg", "hier", "prior", "mem"):
                self.cfg[key] = [n for n in self.cfg[key] if n <= args.max_n]
        self.D = self.cfg["draws"]
        self.bin = os.path.join(args.build, "bin")
        self.work = args.work
        self.res = args.results
        self.logs = os.path.join(self.res, "logs")
        os.makedirs(self.logs, exist_ok=True)
        os.makedirs(self.work, exist_ok=True)
        self.rows = []
        self.peer_rate = {}
        self.limit_s = {"quick": 60.0, "standard": 300.0,
                        "full": 600.0}[args.mode]
        self.refs = {}
        self.bound_refs = {}  # numbers behind each row's physical bound
        self.notes = []
        self.stan_compile = {}
        self.env = dict(os.environ)
        self.peers = [p for p in args.peers.split(",") if p]
        self.t0 = time.perf_counter()

    # -- environments ----------------------------------------------------
    def variants(self, peer, workload, n=None):
        """The environments a peer runs under. Every variant runs at the
        smallest size of a workload; larger sizes run the peer as it comes
        and fully tuned."""
        out = self._variants(peer, workload)
        sizes = self.sizes_of(workload)
        if n is not None and sizes and n > min(sizes) and len(out) > 2:
            out = [out[0], out[-1]]
        return out

    def sizes_of(self, wl):
        return {"mlp-pred": self.cfg["mlp"], "linreg-pred": self.cfg["linreg"],
                "linreg-ll": self.cfg["linreg"], "hier-pred": self.cfg["hier"],
                "prior": self.cfg["prior"]}.get(wl, [])

    def _variants(self, peer, workload):
        base = dict(self.env)
        tuned = dict(base, GLIBC_TUNABLES=TUNABLES)
        tname = "tuned malloc"
        if peer == "torch":
            # Debian's torch starts one OpenMP thread here (omp_get_max_threads
            # is 1 on this 2-CPU machine); tuned also gives it every CPU.
            tuned["OMP_NUM_THREADS"] = str(os.cpu_count())
            tname = "tuned malloc, %d threads" % os.cpu_count()
        if peer in VENV_PEERS:
            # XLA and PyTensor bring their own matrix products and
            # threads: as installed.
            return [("as-is", base)]
        out = [("as-is", base), (tname, tuned)]
        if ("OPENBLAS_CORETYPE" in base and workload == "mlp-pred"
                and peer in ("numpy", "torch")):
            un = {k: v for k, v in base.items() if k != "OPENBLAS_CORETYPE"}
            tun = {k: v for k, v in tuned.items()
                   if k != "OPENBLAS_CORETYPE"}
            if peer == "torch" and self.a.mode == "quick":
                # torch's MLP is slow here; quick runs only both ends.
                out = [out[0], (tname + ", CORETYPE unset", tun)]
            else:
                out += [("CORETYPE unset", un),
                        (tname + ", CORETYPE unset", tun)]
        return out

    # -- machine ----------------------------------------------------------
    def machine(self):
        def sh(c):
            try:
                return subprocess.run(c, shell=True, capture_output=True,
                                      text=True, timeout=60).stdout.strip()
            except Exception as e:  # noqa: BLE001
                return "(%s)" % e
        lscpu = sh("lscpu")
        info = {}
        for key in ["Model name", "CPU(s)", "Thread(s) per core",
                    "Core(s) per socket", "L2 cache", "L3 cache",
                    "Flags"]:
            m = re.search(r"^%s:\s*(.*)$" % re.escape(key), lscpu, re.M)
            if m:
                info[key] = m.group(1)
        flags = info.pop("Flags", "")
        info["SIMD"] = " ".join(f for f in flags.split()
                                if f in ("avx2", "fma", "avx512f",
                                         "avx512bw", "avx512_bf16"))
        mem = sh("grep -E 'MemTotal|MemAvailable' /proc/meminfo")
        info["memory"] = " ".join(mem.split())
        info["disk"] = sh("df -h --output=source,fstype,size,avail %s | tail -1"
                          % self.work)
        info["kernel"] = platform.release()
        info["loadavg_start"] = open("/proc/loadavg").read().split()[:3]
        info["OPENBLAS_CORETYPE"] = self.env.get("OPENBLAS_CORETYPE",
                                                 "(unset)")
        info["lscpu"] = lscpu
        pk = sh("dpkg-query -W -f='${Package} ${Version}\\n' python3-numpy "
                "libopenblas0-pthread python3-zarr python3-numcodecs "
                "python3-torch r-cran-rstan r-cran-stanheaders r-base-core "
                "libblosc1 zstd 2>/dev/null")
        info["packages"] = " | ".join(l.strip() for l in pk.splitlines()
                                      if l.strip())
        self.machine_info = info

    # -- building blocks -----------------------------------------------------
    def aimz_cmd(self, wl, n, out, plan=None):
        so = self.models[wl.split("-")[0] if wl != "prior" else "linreg"]
        dd = self.data
        D = self.D
        run = os.path.join(self.bin, "aimz-run")
        if wl == "linreg-pred":
            return [run, "predict", so, "--data",
                    "X=%s/linreg_X_%d.npy" % (dd, n), "--posterior",
                    "%s/post_linreg_%d.npz" % (dd, D), "--out", out,
                    "--return-sites", "y", "--seed", "1", "--quiet"]
        if wl == "linreg-ll":
            return [run, "log-likelihood", so, "--data",
                    "X=%s/linreg_X_%d.npy" % (dd, n), "--data",
                    "y=%s/linreg_y_%d.npy" % (dd, n), "--posterior",
                    "%s/post_linreg_%d.npz" % (dd, D), "--out", out,
                    "--quiet"]
        if wl == "hier-pred":
            return [run, "predict", so, "--data",
                    "x=%s/hier_x_%d.npy" % (dd, n), "--data",
                    "g=%s/hier_g_%d.npy" % (dd, n), "--posterior",
                    "%s/post_hier_%d.npz" % (dd, D), "--out", out,
                    "--seed", "1", "--quiet"]
        if wl == "mlp-pred":
            return [run, "predict", so, "--data",
                    "X=%s/mlp_X_%d.npy" % (dd, n), "--posterior",
                    "%s/post_mlp_%d.npz" % (dd, D), "--out", out,
                    "--seed", "1", "--quiet"]
        if wl == "prior":
            return [run, "prior-predictive", so, "--data",
                    "X=%s/linreg_X_%d.npy" % (dd, n), "--num-samples", D,
                    "--shard-axis", plan, "--out", out, "--return-sites",
                    "y", "--seed", "1", "--quiet"]
        raise ValueError(wl)

    def spec_of(self, store):
        import zarr
        g = zarr.open_group(store, mode="r")
        site = "y"
        arr = g[site]
        meta = json.load(open(os.path.join(store, site, ".zarray")))
        return dict(site=site, shape=list(arr.shape), chunks=list(arr.chunks),
                    dtype=meta["dtype"], compressor=meta["compressor"],
                    fill_value=meta["fill_value"],
                    dimension_separator=meta.get("dimension_separator", "."),
                    # y lies in the workloads' `plate obs(n)`.
                    dims=arr.attrs.get("_ARRAY_DIMENSIONS", ["draw", "obs"]),
                    plan=g.attrs.get("plan", "obs"),
                    computed=g.attrs.get("computed", ""))

    def row(self, **kw):
        r = dict(workload=kw["workload"], n=kw["n"], draws=self.D,
                 tool=kw["tool"], variant=kw.get("variant", ""),
                 wall_s=kw.get("wall_s"), nowrite_s=kw.get("nowrite_s"),
                 startup_s=kw.get("startup_s"),
                 cpu_s=kw.get("cpu_s"), peak_anon_mib=kw.get("peak_anon_mib"),
                 max_rss_mib=kw.get("max_rss_mib"),
                 out_mib=kw.get("out_mib"), pairs_per_s=None, ratio=None,
                 cpu_ratio=None,
                 check=kw.get("check", ""), detail=kw.get("detail", ""),
                 loadavg=open("/proc/loadavg").read().split()[0])
        r["walls"] = [r["wall_s"]] if r["wall_s"] else []
        r["spread"] = None
        if r["wall_s"]:
            r["pairs_per_s"] = self.D * kw["n"] / r["wall_s"]
        self.rows.append(r)
        return r

    def fmt_row_short(self, r):
        def f(v, spec):
            return (spec % v) if isinstance(v, (int, float)) else "-"
        return ("  %-12s %-22s %8s s  %10s pairs/s  anon %8s MiB  %s" %
                (r["tool"], r["variant"], f(r["wall_s"], "%.2f"),
                 f(r["pairs_per_s"], "%.3g"), f(r["peak_anon_mib"], "%.0f"),
                 r["check"]))

    # -- one workload ------------------------------------------------------
    def run_workload(self, wl, n, plan=None, peers=True, label=None):
        label = label or {"linreg-pred": "linreg predict",
                          "linreg-ll": "linreg log-lik",
                          "hier-pred": "hier predict",
                          "mlp-pred": "mlp predict",
                          "prior": "prior (%s)" % plan}[wl]
        log("== %s, n = %d, %d draws" % (label, n, self.D))
        stores = os.path.join(self.work, "stores")
        os.makedirs(stores, exist_ok=True)
        ours = os.path.join(stores, "aimz.zarr")
        rm(ours)
        tag = "%s_%s_%d" % (wl, plan or "", n)
        m = measure(self.aimz_cmd(wl, n, ours, plan), self.env,
                    os.path.join(self.logs, tag + "_aimz.log"))
        if m["rc"] != 0:
            r = self.row(workload=label, n=n, tool="aimz-run", check="FAILED",
                         detail="rc %d, see %s" % (m["rc"], m["log"]))
            log(self.fmt_row_short(r))
            return
        out_mib = dir_bytes(ours) / 2**20
        us = self.row(workload=label, n=n, tool="aimz-run",
                      variant="%d devices" % os.cpu_count(),
                      wall_s=m["wall_s"], cpu_s=m["cpu_s"],
                      peak_anon_mib=m["peak_anon_mib"],
                      max_rss_mib=m["max_rss_mib"], out_mib=out_mib,
                      check="reference")
        us["bound_s"] = self.bound_of(wl, n)
        log(self.fmt_row_short(us))
        if not peers:
            rm(ours)
            return us
        # What later timing rounds rerun: ours, then each verified peer.
        timed = [(us, lambda out, res: (self.aimz_cmd(wl, n, out, plan),
                                        self.env))]
        # The same command on one device must give the same bytes: devices
        # never change a result (compared on the decoded arrays, since
        # Blosc's encoded bytes vary from run to run).
        one = os.path.join(stores, "aimz_one_device.zarr")
        rm(one)
        m1 = measure(self.aimz_cmd(wl, n, one, plan) + ["--devices", "1"],
                     self.env, os.path.join(self.logs, tag + "_aimz_1dev.log"))
        site = "y"
        same = m1["rc"] == 0 and store_digest(one, site) == store_digest(
            ours, site)
        us["check"] = ("reference; same bytes on 1 device" if same else
                       "FAILED: differs from the 1-device run")
        if not same:
            log("    aimz-run's output differs from its own one-device run "
                "(rc %d, see %s)" % (m1["rc"], m1["log"]))
        rm(one)
        # The same command without syncing the store to the disk, as the
        # peers write theirs: the computation and the codec apart from the
        # disk's speed (and its weather, on a shared virtual disk).
        ns = os.path.join(stores, "aimz_nosync.zarr")
        rm(ns)
        mns = measure(self.aimz_cmd(wl, n, ns, plan) + ["--no-sync"],
                      self.env, os.path.join(self.logs,
                                             tag + "_aimz_nosync.log"))
        if mns["rc"] == 0:
            same = store_digest(ns, site) == store_digest(ours, site)
            nsr = self.row(workload=label, n=n, tool="aimz-run",
                           variant="%d devices, --no-sync" % os.cpu_count(),
                           wall_s=mns["wall_s"], cpu_s=mns["cpu_s"],
                           peak_anon_mib=mns["peak_anon_mib"],
                           max_rss_mib=mns["max_rss_mib"],
                           out_mib=dir_bytes(ns) / 2**20,
                           check="same array as the synced run" if same
                           else "FAILED: differs from the synced run")
            nsr["bound_s"] = us["bound_s"]
            log(self.fmt_row_short(nsr))
            if same:
                timed.append((nsr, lambda out, res: (
                    self.aimz_cmd(wl, n, out, plan) + ["--no-sync"],
                    self.env)))
        rm(ns)
        spec = self.spec_of(ours)
        spec_path = os.path.join(self.work, "spec.json")
        json.dump(spec, open(spec_path, "w"))
        exact = wl == "linreg-ll"
        our_stats = None
        x0 = None
        if wl == "prior":
            x0 = np.array(np.load(os.path.join(
                self.data, "linreg_X_%d.npy" % n), mmap_mode="r")[:, 0],
                dtype=np.float64)
        for peer in self.peers:
            if peer == "stan" or peer not in self.available:
                continue
            ref = None  # (store, digest) of this peer's first verified run
            for i, (vname, env) in enumerate(self.variants(peer, wl, n)):
                rate = self.peer_rate.get((peer, wl, plan, vname))
                if rate:
                    pred = rate[0] + self.D * n / rate[1]
                    if pred > self.limit_s:
                        reason = ("predicted %.0f s from its rate at a "
                                  "smaller size (limit %.0f s in this mode)"
                                  % (pred, self.limit_s))
                        self.row(workload=label, n=n, tool=peer,
                                 variant=vname, check="skipped",
                                 detail=reason)
                        log("  %-12s %-22s skipped: %s" % (peer, vname,
                                                           reason))
                        continue
                store = os.path.join(stores, "%s_%d.zarr" % (peer, i))
                rm(store)
                res = os.path.join(self.work, "peer_result.json")
                rm(res)
                script = PEER_SCRIPTS.get(peer, "array_peer.py")

                def peer_cmd(store, res, peer=peer, env=env, script=script):
                    return ([VENV_PY if peer in VENV_PEERS else PY,
                             os.path.join(HERE, "peers", script),
                             "--backend", peer, "--workload", wl,
                             "--data-dir", self.data, "--draws", self.D,
                             "--n", n, "--spec", spec_path, "--out", store,
                             "--result", res], env)
                cmd = peer_cmd(store, res)[0]
                vtag = re.sub(r"[^a-z0-9]+", "_", vname.lower())
                m = measure(cmd, env, os.path.join(
                    self.logs, "%s_%s_%s.log" % (tag, peer, vtag)))
                if m["rc"] != 0 or not os.path.exists(res):
                    r = self.row(workload=label, n=n, tool=peer,
                                 variant=vname, check="FAILED",
                                 detail="rc %d, see %s" % (m["rc"], m["log"]))
                    log(self.fmt_row_short(r))
                    rm(store)
                    continue
                pr = json.load(open(res))
                # The JAX peers copy aimz's Zarr v3 output to a v2 store
                # the checks below can read: not part of their time.
                m["wall_s"] -= pr.get("check_copy_s", 0.0)
                # Agreement first: only then does the timing count. A
                # variant that only changes the environment usually writes
                # the same bytes as the verified run; otherwise check it.
                ok, detail = None, ""
                digest = store_digest(store)
                if ref and digest == ref[1]:
                    ok, detail = True, ("same array as the verified "
                                        "%s run" % peer)
                if ok is None:
                    if exact:
                        ok, detail = exact_compare(ours, store, "y")
                    elif wl == "prior":
                        if our_stats is None:
                            our_stats = draw_stats(ours, "y", x0)
                        ok, detail = unpaired_test(
                            our_stats, draw_stats(store, "y", x0))
                    else:
                        ok, detail = stat_test(*paired_sums(ours, store, "y"))
                r = self.row(workload=label, n=n, tool=peer, variant=vname,
                             wall_s=m["wall_s"],
                             nowrite_s=m["wall_s"] - pr["write_s"],
                             startup_s=pr["setup_s"], cpu_s=m["cpu_s"],
                             peak_anon_mib=m["peak_anon_mib"],
                             max_rss_mib=m["max_rss_mib"],
                             out_mib=dir_bytes(store) / 2**20,
                             check="ok" if ok else "MISMATCH",
                             detail=detail + "; blas %s; threads %s; "
                             "compute %.2f s, write %.2f s, setup %.2f s"
                             % (",".join(os.path.basename(b)
                                         for b in pr.get("blas", [])) or "-",
                                pr.get("threads"), pr["compute_s"],
                                pr["write_s"], pr["setup_s"]))
                if ok:
                    timed.append((r, peer_cmd))
                    base = us
                    r["ratio"] = r["wall_s"] / base["wall_s"]
                    r["cpu_ratio"] = r["cpu_s"] / max(base["cpu_s"], 1e-3)
                    work = max(r["wall_s"] - pr["setup_s"], 1e-3)
                    self.peer_rate[(peer, wl, plan, vname)] = (
                        pr["setup_s"], self.D * n / work)
                log(self.fmt_row_short(r))
                if not ok:
                    log("    " + detail)
                if ok and ref is None:
                    ref = (store, digest)
                else:
                    rm(store)
            if ref:
                rm(ref[0])
        if self.a.rounds > 1:
            self.timing_rounds(tag, us, timed)
        if "stan" in self.peers and wl != "prior":
            self.run_stan(wl, n, label, ours, us, exact)
        rm(ours)
        return us

    MLP_FLOPS_PER_PAIR = 2 * (MLP_IN * 128 + 128 * 128 * 2 + 128)

    def bound_of(self, wl, n):
        """The row's physical bound in seconds: its output's raw bytes at
        the default codec's end-to-end store speed on all cores, and for
        the MLP its FLOPs at the best sgemm this CPU showed on one core,
        times the cores; None when a reference is missing."""
        b = self.bound_refs
        kind = "i32" if wl == "mlp-pred" else "f32"
        mbs = b.get("write_%s_MBps" % kind)
        if not mbs:
            return None
        bound = self.D * n * 4 / 1e6 / mbs
        if wl == "mlp-pred" and b.get("sgemm_gflops"):
            flops = self.D * n * self.MLP_FLOPS_PER_PAIR
            bound = max(bound, flops / 1e9 / (b["sgemm_gflops"]
                                              * os.cpu_count()))
        return bound

    def timing_rounds(self, tag, us, timed):
        """Rounds 2..R of the timing: aimz-run and every verified peer
        again, interleaved (A B C A B C ...) so that a change in the
        machine's state hits every tool alike. A row then keeps the median
        wall time and its spread, (max - min) / median."""
        stores = os.path.join(self.work, "stores")
        tmp = os.path.join(stores, "round.zarr")
        res = os.path.join(self.work, "round_result.json")
        for rnd in range(2, self.a.rounds + 1):
            for row, make in timed:
                rm(tmp)
                rm(res)
                cmd, env = make(tmp, res)
                name = re.sub(r"[^a-z0-9]+", "_",
                              (row["tool"] + " " + row["variant"]).lower())
                m = measure(cmd, env, os.path.join(
                    self.logs, "%s_round%d_%s.log" % (tag, rnd, name)))
                if m["rc"] != 0:
                    log("  round %d: %s failed (rc %d, see %s)"
                        % (rnd, row["tool"], m["rc"], m["log"]))
                    continue
                wall = m["wall_s"]
                if os.path.exists(res):
                    wall -= json.load(open(res)).get("check_copy_s", 0.0)
                row["walls"].append(wall)
        rm(tmp)
        rm(res)
        for row, _ in timed:
            w = sorted(row["walls"])
            med = statistics.median(w)
            row["wall_s"] = med
            row["spread"] = (w[-1] - w[0]) / med if med > 0 else None
            row["pairs_per_s"] = self.D * row["n"] / med
        for row, _ in timed[1:]:
            row["ratio"] = row["wall_s"] / us["wall_s"]
        log("  median of %d rounds: %s" % (self.a.rounds, ", ".join(
            "%s %s %.2f s (spread %.0f%%)" % (
                r["tool"], r["variant"], r["wall_s"], 100 * (r["spread"] or 0))
            for r, _ in timed)))

    # -- Stan ---------------------------------------------------------------
    def stan_env(self, env):
        e = dict(env)
        e["R_MAKEVARS_USER"] = os.path.join(self.stan_cache, "Makevars")
        return e

    def compile_stan(self):
        self.stan_cache = os.path.join(self.work, "stan-cache")
        os.makedirs(self.stan_cache, exist_ok=True)
        with open(os.path.join(self.stan_cache, "Makevars"), "w") as f:
            f.write("CXX14FLAGS = -O3\nCXXFLAGS = -O3\n")
        models = []
        if self.cfg["linreg"]:
            models.append("linreg")
        if self.cfg["hier"]:
            models.append("hier")
        if self.cfg["mlp"]:
            models.append("mlp")
        for model in models:
            res = os.path.join(self.work, "stan_compile_%s.json" % model)
            rm(res)
            log("  Stan model %s: stan_model (cached after the first run)"
                % model)
            m = measure(["Rscript", os.path.join(HERE, "peers",
                                                 "stan_peer.R"),
                         "compile", model, self.stan_cache, res],
                        self.stan_env(self.env),
                        os.path.join(self.logs, "stan_compile_%s.log"
                                     % model))
            if m["rc"] == 0 and os.path.exists(res):
                self.stan_compile[model] = json.load(open(res))
                c = self.stan_compile[model]
                log("    %s: compile %.1f s%s" % (
                    model, c["compile_s"],
                    " (cached: the time measured when it was compiled)"
                    if c["cached"] else ""))
            else:
                self.stan_compile[model] = None
                log("    %s: compile FAILED (see %s)" % (model, m["log"]))

    def run_stan(self, wl, n, label, ours, us, exact):
        model = {"linreg-pred": "linreg", "linreg-ll": "linreg",
                 "hier-pred": "hier", "mlp-pred": "mlp"}[wl]
        mode = "ll" if wl == "linreg-ll" else "pred"
        if not self.stan_compile.get(model):
            self.row(workload=label, n=n, tool="stan", check="skipped",
                     detail="model did not compile")
            return
        # Skip sizes predicted to take more than STAN_LIMIT_S (from the
        # per-pair rate measured at a smaller size) or more memory than is
        # available (gqs keeps every value as a double, and rstan copies).
        key = (model, mode)
        rate = self.stan_rate.get(key)
        pairs = self.D * n
        need = pairs * 8 * 4
        avail = int(re.search(r"MemAvailable:\s+(\d+)",
                              open("/proc/meminfo").read())[1]) * 1024
        reason = None
        limit = min(STAN_LIMIT_S, self.limit_s)
        if rate and rate[0] + pairs / rate[1] > limit:
            reason = ("predicted %.0f s from the rate at a smaller size "
                      "(limit %.0f s in this mode)"
                      % (rate[0] + pairs / rate[1], limit))
        elif need > 0.6 * avail:
            reason = ("needs ~%.1f GiB of R memory for %d x %d doubles "
                      "(%.1f GiB available)" % (need / 2**30, self.D, n,
                                                avail / 2**30))
        if reason:
            r = self.row(workload=label, n=n, tool="stan", check="skipped",
                         detail=reason)
            log("  stan         skipped: %s" % reason)
            return
        for vname, env in self.variants("stan", wl, n):
            res = os.path.join(self.work, "stan_result.json")
            sub = os.path.join(self.work, "stan_subset.bin")
            rm(res)
            rm(sub)
            cmd = ["Rscript", os.path.join(HERE, "peers", "stan_peer.R"),
                   "run", model, self.stan_cache, res, self.data, n, self.D,
                   mode, sub, VERIFY_M_STAN]
            m = measure(cmd, self.stan_env(env), os.path.join(
                self.logs, "%s_%d_stan_%s.log" % (wl, n,
                                                  vname.replace(" ", "_"))),
                timeout=4 * STAN_LIMIT_S)
            if m["rc"] != 0 or not os.path.exists(res):
                r = self.row(workload=label, n=n, tool="stan", variant=vname,
                             check="FAILED",
                             detail="rc %d, see %s" % (m["rc"], m["log"]))
                log(self.fmt_row_short(r))
                continue
            pr = json.load(open(res))
            msub = min(VERIFY_M_STAN, n)
            subarr = np.fromfile(sub, dtype="<f8").reshape(self.D, msub)
            if exact:
                ok, detail = exact_compare_mem(ours, "y", subarr)
            else:
                a = open_array(ours, "y")[:, :msub]
                ok, detail = stat_test(_paired(a, subarr), self.D)
                detail = "first %d obs: %s" % (msub, detail)
            r = self.row(workload=label, n=n, tool="stan", variant=vname,
                         wall_s=m["wall_s"], cpu_s=m["cpu_s"],
                         startup_s=m["wall_s"] - pr["gqs_s"] - pr["extract_s"]
                         - pr["setup_s"],
                         peak_anon_mib=m["peak_anon_mib"],
                         max_rss_mib=m["max_rss_mib"], out_mib=None,
                         check="ok" if ok else "MISMATCH",
                         detail=detail + "; gqs %.2f s, extract %.2f s, "
                         "setup %.2f s; output stays in R memory (no store)"
                         % (pr["gqs_s"], pr["extract_s"], pr["setup_s"]))
            r["nowrite_s"] = None
            if ok:
                r["ratio"] = r["wall_s"] / us["wall_s"]
                r["cpu_ratio"] = r["cpu_s"] / max(us["cpu_s"], 1e-3)
                if key not in self.stan_rate:
                    # Everything after R and rstan have loaded (data,
                    # draws matrix, gqs, extraction) scales with the size.
                    scaled = pr["setup_s"] + pr["gqs_s"] + pr["extract_s"]
                    self.stan_rate[key] = (m["wall_s"] - scaled,
                                           pairs / max(scaled, 1e-3))
            log(self.fmt_row_short(r))
            if not ok:
                log("    " + detail)

    # -- physical references -------------------------------------------------
    def references(self):
        log("== physical references")
        kern = os.path.join(self.bin, "aimz-bench-mlp-kernel")
        for name, env in [("as-is", self.env),
                          ("CORETYPE unset",
                           {k: v for k, v in self.env.items()
                            if k != "OPENBLAS_CORETYPE"})]:
            if not os.path.exists(kern):
                break
            p = subprocess.run([kern, self.models["mlp"], "20", "20000"],
                               env=env, capture_output=True, text=True)
            g = re.findall(r"(aimz kernel|OpenBLAS alone)\s+([\d.]+) s\s+"
                           r"([\d.e+]+) pairs/s\s+([\d.]+) GFLOP/s", p.stdout)
            for who, secs, pps, gf in g:
                self.bound_refs["sgemm_gflops"] = max(
                    self.bound_refs.get("sgemm_gflops", 0.0), float(gf))
                key = "sgemm MLP shapes, 1 core (%s): %s" % (name, who)
                self.refs[key] = "%s GFLOP/s (%s pairs/s)" % (gf, pps)
                log("  %-58s %s" % (key, self.refs[key]))
        # zstd on float32 draws (normal) and int32 Bernoulli draws.
        zd = os.path.join(self.work, "zstd")
        os.makedirs(zd, exist_ok=True)
        rng = np.random.default_rng(5)
        f32 = os.path.join(zd, "normal_f32.bin")
        i32 = os.path.join(zd, "bernoulli_i32.bin")
        if not os.path.exists(f32):
            (0.5 + rng.standard_normal(1 << 24, dtype=np.float32)).tofile(f32)
            (rng.random(1 << 24) < 0.3).astype(np.int32).tofile(i32)
        for path, what in [(f32, "float32 normal draws"),
                           (i32, "int32 Bernoulli draws")]:
            if not shutil.which("zstd"):
                self.notes.append("zstd not installed: no zstd reference")
                break
            p = subprocess.run(["zstd", "-q", "-b1", "-e3", "-i1", path],
                               capture_output=True, text=True)
            for lvl, _, ratio, c, d in re.findall(
                    r"-(\d+)\s+(\d+)\s+\(([\d.]+)\)\s+([\d.]+) MB/s\s+"
                    r"([\d.]+) MB/s", p.stdout + p.stderr):
                key = "zstd -b%s, 1 core, %s" % (lvl, what)
                self.refs[key] = ("ratio %s, compress %s MB/s, decompress "
                                  "%s MB/s" % (ratio, c, d))
                log("  %-58s %s" % (key, self.refs[key]))
        # Our default codec end to end (ChunkPipeline into a v2 store, as
        # aimz-run writes): the bytes side of each row's bound.
        codecs = os.path.join(self.bin, "aimz-bench-io-codecs")
        if os.path.exists(codecs):
            p = subprocess.run([codecs, "32"], capture_output=True, text=True)
            for th, what, mbs in re.findall(
                    r"pipeline, (\d+) threads, default codec, (.*): (\d+) "
                    r"MB/s", p.stdout):
                key = "default codec + store, %s threads, %s" % (th, what)
                self.refs[key] = "%s MB/s" % mbs
                log("  %-58s %s" % (key, self.refs[key]))
                if int(th) == min(2, os.cpu_count()):
                    kind = "f32" if what.startswith("f32") else "i32"
                    self.bound_refs["write_%s_MBps" % kind] = float(mbs)
        # Sequential write bandwidth of the disk holding the stores.
        ddf = os.path.join(self.work, "dd.test")
        p = subprocess.run(["dd", "if=/dev/zero", "of=" + ddf, "bs=1M",
                            "count=1024", "conv=fdatasync"],
                           capture_output=True, text=True)
        rm(ddf)
        m = re.search(r"copied, ([\d.]+) s, ([\d.]+ [GMk]B/s)", p.stderr)
        if m:
            key = "dd 1 GiB sequential write, conv=fdatasync"
            self.refs[key] = m.group(2)
            log("  %-58s %s" % (key, self.refs[key]))

    # -- main -----------------------------------------------------------------
    def main(self):
        self.machine()
        self.available = set()
        self.stan_rate = {}
        for p in self.peers:
            if p == "numpy":
                ok = subprocess.run([PY, "-c", "import numpy, zarr"],
                                    capture_output=True).returncode == 0
            elif p == "torch":
                ok = subprocess.run([PY, "-c", "import torch, zarr"],
                                    capture_output=True).returncode == 0
            elif p in VENV_PEERS:
                mods = {"pymc": "pymc, zarr, numcodecs",
                        "aimz-jax": "jax, numpyro, zarr, numcodecs, aimz"
                        }.get(p, "jax, numpyro, zarr, numcodecs")
                ok = os.path.exists(VENV_PY) and subprocess.run(
                    [VENV_PY, "-c", "import " + mods],
                    capture_output=True).returncode == 0
            elif p == "stan":
                ok = (shutil.which("Rscript") is not None and
                      subprocess.run(["Rscript", "-e", "library(rstan)"],
                                     capture_output=True).returncode == 0)
            else:
                ok = False
            if ok:
                self.available.add(p)
            else:
                msg = "peer %s unavailable here: skipped" % p
                self.notes.append(msg)
                log(msg)
        log("aimz-run benchmark, mode %s: %d posterior draws per workload%s"
            % (self.a.mode, self.D,
               " (reduced from 1000 to stay under 10 minutes on 2 cores)"
               if self.D < 1000 else ""))
        log("machine: %s, %s CPUs, %s; load average %s at start" % (
            self.machine_info.get("Model name"),
            self.machine_info.get("CPU(s)"),
            self.machine_info["memory"],
            " ".join(self.machine_info["loadavg_start"])))
        log("SIMD: %s; disk: %s; OPENBLAS_CORETYPE=%s" % (
            self.machine_info["SIMD"], self.machine_info["disk"],
            self.machine_info["OPENBLAS_CORETYPE"]))
        log("packages: %s" % self.machine_info["packages"])
        # Models and data.
        md = os.path.join(self.work, "models")
        os.makedirs(md, exist_ok=True)
        self.models = {}
        # aimzc's time per model (best of 3, with PTX as users get it): the
        # summary's cold column adds it to aimz-run's, as every peer's time
        # includes its imports and JIT (each peer run is a fresh process).
        self.compile_s = {}
        for name, src in [("linreg", "linreg"), ("hier", "hierarchical"),
                          ("mlp", "mlp")]:
            out = os.path.join(md, name + ".so")
            walls = []
            for _ in range(3):
                t = time.perf_counter()
                subprocess.run([os.path.join(self.bin, "aimzc"),
                                os.path.join(ROOT, "dsl-examples",
                                             src + ".aimz"),
                                "-o", out], check=True)
                walls.append(time.perf_counter() - t)
            self.models[name] = out
            self.compile_s[name] = min(walls)
            log("aimzc %s: %.2f s (best of 3)" % (src, min(walls)))
        t = time.perf_counter()
        self.data = gen_data(self.work, self.cfg, log)
        log("data ready in %.1f s (%s)" % (time.perf_counter() - t,
                                           self.data))
        if "stan" in self.available:
            self.compile_stan()
        self.references()
        sel = set(self.a.only.split(",")) if self.a.only else None

        def want(w):
            return sel is None or w in sel
        if want("mlp"):
            for n in self.cfg["mlp"]:
                self.run_workload("mlp-pred", n)
        if want("linreg"):
            for n in self.cfg["linreg"]:
                self.run_workload("linreg-pred", n)
                self.run_workload("linreg-ll", n)
        if want("hier"):
            for n in self.cfg["hier"]:
                self.run_workload("hier-pred", n)
        if want("prior"):
            for n in self.cfg["prior"]:
                for plan in ("obs", "draw"):
                    self.run_workload("prior", n, plan=plan)
        if want("mem"):
            self.memory_scaling()
        self.report()

    def memory_scaling(self):
        log("== memory scaling: linreg predict, aimz-run")
        got = {}
        for r in self.rows:
            if r["workload"] == "linreg predict" and r["tool"] == "aimz-run" \
                    and r["wall_s"]:
                got[r["n"]] = r
        for n in self.cfg["mem"]:
            if n not in got:
                r = self.run_workload("linreg-pred", n, peers=False,
                                      label="linreg predict")
                if r:
                    got[n] = r
        ns = [n for n in self.cfg["mem"] if n in got]
        self.mem = [(n, got[n]["peak_anon_mib"], got[n]["max_rss_mib"],
                     got[n]["wall_s"]) for n in ns]
        for n, anon, mx, w in self.mem:
            log("  n = %-9d peak anon RSS %7.1f MiB   max RSS %7.1f MiB   "
                "%.2f s" % (n, anon, mx, w))
        if len(self.mem) >= 2:
            a0, a1 = self.mem[0][1], self.mem[-1][1]
            log("  %dx the observations: peak anon RSS x%.2f"
                % (self.mem[-1][0] // self.mem[0][0], a1 / max(a0, 1e-9)))

    # -- output --------------------------------------------------------------
    def table(self):
        head = ("| workload | n | tool | variant | wall s (median ± half range) "
                "| w/o write s | "
                "startup s | CPU s | pairs/s | peak anon RSS MiB | "
                "max RSS MiB | output MiB | time vs aimz | CPU vs aimz | "
                "bound s (aimz vs bound) | check |")
        lines = [head, "|" + "---|" * 16]

        def f(v, spec):
            return (spec % v) if isinstance(v, (int, float)) else "-"
        for r in self.rows:
            bound = r.get("bound_s")
            btxt = ("%.2f (%.2fx)" % (bound, r["wall_s"] / bound)
                    if bound and r["wall_s"] else "-")
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                         "| %s | %s | %s | %s | %s | %s |" % (
                             r["workload"], "{:,}".format(r["n"]), r["tool"],
                             r["variant"], f(r["wall_s"], "%.2f") + (
                                 " ±%.0f%%" % (50 * r["spread"])
                                 if r.get("spread") is not None else ""),
                             f(r["nowrite_s"], "%.2f"),
                             f(r["startup_s"], "%.1f"), f(r["cpu_s"], "%.1f"),
                             f(r["pairs_per_s"], "%.3g"),
                             f(r["peak_anon_mib"], "%.0f"),
                             f(r["max_rss_mib"], "%.0f"),
                             f(r["out_mib"], "%.1f"),
                             f(r["ratio"], "%.2fx"), f(r["cpu_ratio"], "%.2fx"),
                             btxt, r["check"]))
        return "\n".join(lines)

    def summary(self):
        """The README's table: per workload, aimz-run's median (synced, and
        with --no-sync) and each peer's as a multiple of the synced one."""
        peers = [("numpy", "as-is", "NumPy as-is"),
                 ("numpyro", "as-is", "NumPyro `Predictive`"),
                 ("aimz-jax", "as-is", "aimz (JAX)"),
                 ("pymc", "as-is", "PyMC"),
                 ("stan", "as-is", "Stan `gqs`")]
        head = ("| workload (%d draws) | n | aimz-run | aimz-run --no-sync | "
                "aimzc + aimz-run (cold) | " % self.D +
                " | ".join(p[2] for p in peers) + " |")
        lines = [head, "|" + "---|" * (5 + len(peers))]
        keys = []
        for r in self.rows:
            if (r["workload"], r["n"]) not in keys:
                keys.append((r["workload"], r["n"]))

        def cell(r, base, cold=None):
            if not r or not r.get("wall_s") or r["check"] in (
                    "FAILED", "MISMATCH", "skipped"):
                return "-"
            t = "%.2f s" % r["wall_s"]
            if r.get("spread") is not None:
                t += " ±%.0f%%" % (50 * r["spread"])
            if base and r is not base and base.get("wall_s"):
                t += ", %.1fx" % (r["wall_s"] / base["wall_s"])
            if cold:
                t += " (cold %.1fx)" % (r["wall_s"] / cold)
            return t
        model_of = {"linreg": "linreg", "hier": "hier", "mlp": "mlp",
                    "prior": "linreg"}
        for wl, n in keys:
            rows = [r for r in self.rows if r["workload"] == wl and
                    r["n"] == n]

            def find(tool, variant):
                return next((r for r in rows if r["tool"] == tool and
                             r["variant"].endswith(variant)), None)
            us = find("aimz-run", "devices")
            if not us:
                continue
            comp = getattr(self, "compile_s", {}).get(
                model_of.get(wl.split()[0]))
            cold = us["wall_s"] + comp if comp and us.get("wall_s") else None
            cells = [cell(us, None), cell(find("aimz-run", "--no-sync"), None),
                     "%.2f s (aimzc %.2f s)" % (cold, comp) if cold else "-"]
            cells += [cell(find(t, v), us, cold) for t, v, _ in peers]
            lines.append("| %s | %s | %s |" % (wl, "{:,}".format(n),
                                                " | ".join(cells)))
        return "\n".join(lines)

    def report(self):
        elapsed = time.perf_counter() - self.t0
        tab = self.table()
        lines = ["", "# aimz-run vs peers (mode %s, %d draws)" %
                 (self.a.mode, self.D), "",
                 tab, "",
                 "time vs aimz = peer wall time / aimz-run wall time "
                 "(> 1: aimz-run is faster), medians of the timing rounds. "
                 "w/o write = wall time minus the peer's own time in zarr "
                 "writes (aimz-jax computes and writes in one pipelined "
                 "call: none separated). bound = the output's bytes at our "
                 "codec's store speed on all cores (and the MLP's FLOPs at "
                 "the best one-core sgemm x cores). startup = interpreter, "
                 "imports and posterior loading (R + rstan + data for Stan), "
                 "included in wall. Stan keeps its output in R memory (no "
                 "store). CPU = user + sys of the process tree.", "",
                 "Summary (the README's table; ratios = peer / aimz-run "
                 "synced; cold = peer / (aimzc's compile + aimz-run synced): "
                 "each peer's time includes its imports and JIT):", "",
                 self.summary(), ""]
        if self.stan_compile:
            lines.append("Stan compile (stan_model, -O3, once per program):")
            for m, c in self.stan_compile.items():
                lines.append("  %s: %s" % (m, "failed" if not c else
                                           "%.1f s%s" % (c["compile_s"],
                                                         " (cached)" if
                                                         c["cached"] else "")))
            lines.append("")
        if getattr(self, "mem", None):
            lines.append("Memory scaling (aimz-run linreg predict):")
            for n, anon, mx, w in self.mem:
                lines.append("  n = %-9d peak anon RSS %7.1f MiB, max RSS "
                             "%7.1f MiB, %.2f s" % (n, anon, mx, w))
            lines.append("")
        lines.append("Physical references:")
        for k, v in self.refs.items():
            lines.append("  %-58s %s" % (k, v))
        lines.append("")
        skipped = [r for r in self.rows if r["check"] in ("skipped",
                                                          "FAILED",
                                                          "MISMATCH")]
        for r in skipped:
            lines.append("%s: %s n=%d %s: %s" % (r["check"], r["tool"],
                                                 r["n"], r["workload"],
                                                 r["detail"]))
        for n in self.notes:
            lines.append(n)
        lines.append("load average at the end: %s; benchmark time %.0f s" %
                     (" ".join(open("/proc/loadavg").read().split()[:3]),
                      elapsed))
        text = "\n".join(lines)
        print(text, flush=True)
        with open(os.path.join(self.res, "table.txt"), "w") as f:
            f.write(text + "\n")
        with open(os.path.join(self.res, "results.csv"), "w",
                  newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(self.rows[0].keys())
                               if self.rows else ["workload"])
            w.writeheader()
            for r in self.rows:
                w.writerow(r)
        mi = dict(self.machine_info)
        with open(os.path.join(self.res, "results.json"), "w") as f:
            json.dump(dict(mode=self.a.mode, draws=self.D, machine=mi,
                           rows=self.rows, references=self.refs,
                           stan_compile=self.stan_compile,
                           aimzc_compile_s=getattr(self, "compile_s", {}),
                           memory_scaling=getattr(self, "mem", None),
                           notes=self.notes, elapsed_s=elapsed),
                      f, indent=1)
        log("wrote %s/{table.txt,results.csv,results.json}" % self.res)
        # The picture, by the venv's matplotlib (Debian's python3, which
        # runs this harness, has none).
        venv = os.path.join(ROOT, ".venv", "bin", "python")
        p = subprocess.run([venv if os.path.exists(venv) else sys.executable,
                            os.path.join(ROOT, "bench", "chart.py"),
                            os.path.join(self.res, "results.json"),
                            os.path.join(self.res, "chart.png")],
                           capture_output=True, text=True)
        log(p.stdout.strip() if p.returncode == 0 else
            "no chart.png: %s" % (p.stderr.strip().splitlines() or ["?"])[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=list(MODES), default="standard")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--work", default=None)
    p.add_argument("--results", default=None)
    p.add_argument("--peers",
                   default="numpy,torch,stan,numpyro,aimz-jax,pymc")
    p.add_argument("--rounds", type=int, default=3,
                   help="timing rounds per workload, interleaved across "
                   "tools; rows report the median (default 3)")
    p.add_argument("--only", default="",
                   help="comma list of mlp,linreg,hier,prior,mem")
    p.add_argument("--draws", type=int, default=0,
                   help="override the mode's number of draws")
    p.add_argument("--max-n", type=int, default=0,
                   help="drop sizes above this n (for trying the harness)")
    a = p.parse_args()
    a.work = a.work or os.path.join(a.build, "bench-work")
    a.results = a.results or os.path.join(a.build, "bench-results", a.mode)
    Bench(a).main()


if __name__ == "__main__":
    main()
