"""Byte identity of aimz-run's and the Python module's outputs across every
path a run can take.

    byte_identity.py --aimzc BIN --aimz-run BIN --python-dir DIR --work DIR
                     [--digests FILE] [--check]

Runs a recorded set of runs (predict, log-likelihood and prior predictive
under both plans and 1 or 3 devices, an effect run, .npz output, MPI -n 2,
resume after SIGKILL, the InferenceData layout from a two-chain posterior,
and the Python module) and digests every file each leaves (SHA-256; the
'created' timestamp dropped from the metadata).

--digests FILE writes `<run> <file> <digest>` lines: compared between two
builds on one machine (a refactor against the previous main) they must be
equal. They are not committed as golden values: floating point may round
differently on another CPU.

--check (the ctest) asserts what must agree byte for byte on any machine:
1 vs 3 devices under both plans, MPI vs one process, resume vs a fresh
run, the Python module vs the CLI, and one run twice.
"""

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_stan_csv import write_stan_csv  # noqa: E402

METADATA = {".zattrs", ".zarray", ".zgroup", ".zmetadata", "zarr.json",
            ".aimz-run.json"}


def without_created(j):
    """The metadata without its timestamps (the only bytes a repeated run
    may change)."""
    if isinstance(j, dict):
        return {k: without_created(v) for k, v in j.items()
                if k not in ("created", "created_at")}
    if isinstance(j, list):
        return [without_created(v) for v in j]
    return j


def digest_file(path):
    with open(path, "rb") as f:
        data = f.read()
    if os.path.basename(path) in METADATA:
        data = json.dumps(without_created(json.loads(data)),
                          sort_keys=True).encode()
    return hashlib.sha256(data).hexdigest()


def digest_output(path):
    """relative file -> digest of a store (a directory) or an .npz."""
    if not os.path.isdir(path):
        return {os.path.basename(path): digest_file(path)}
    out = {}
    for dp, _, fns in os.walk(path):
        for f in fns:
            p = os.path.join(dp, f)
            out[os.path.relpath(p, path)] = digest_file(p)
    return out


class Runs:
    def __init__(self, args):
        self.a = args
        self.work = os.path.abspath(args.work)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.digests = {}
        self.model = self.path("linreg.so")
        subprocess.run([args.aimzc, os.path.join(args.examples, "linreg.aimz"),
                        "-o", self.model], check=True)
        self.make_inputs()

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    def make_inputs(self):
        rng = np.random.default_rng(37)
        n, k, draws = 3000, 3, 24
        self.X = rng.normal(size=(n, k)).astype(np.float32)
        self.post = dict(alpha=rng.normal(size=draws).astype(np.float32),
                         beta=rng.normal(size=(draws, k)).astype(np.float32),
                         sigma=rng.uniform(0.5, 1.5, draws).astype(np.float32))
        self.y = (self.X @ self.post["beta"][0] +
                  self.post["alpha"][0]).astype(np.float32)
        np.save(self.path("X.npy"), self.X)
        np.save(self.path("y.npy"), self.y)
        np.savez(self.path("post.npz"), **self.post)
        # Two chains of 12 draws, as CmdStan writes them.
        for c in range(2):
            write_stan_csv(self.path("fit-%d.csv" % (c + 1)), self.post,
                           range(12 * c, 12 * (c + 1)))
        # The resumed run: long enough to be killed part way.
        rng = np.random.default_rng(38)
        self.bigX = rng.normal(size=(200_000, k)).astype(np.float32)
        np.save(self.path("bigX.npy"), self.bigX)
        self.bigpost = dict(alpha=rng.normal(size=200).astype(np.float32),
                            beta=rng.normal(size=(200, k)).astype(np.float32),
                            sigma=rng.uniform(0.5, 1.5, 200).astype(np.float32))
        np.savez(self.path("bigpost.npz"), **self.bigpost)

    def cli(self, name, command, *extra, prefix=(), out=None):
        out = out or self.path(name + ".zarr")
        cmd = list(prefix) + [self.a.aimz_run, command, self.model,
                              "--out", out, "--seed", "5", "--no-progress",
                              "--quiet", "--device", "cpu"] + list(extra)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            sys.exit("%s failed (rc %d):\n%s" % (" ".join(cmd), p.returncode,
                                                  p.stderr))
        self.digests[name] = digest_output(out)
        return out

    def data(self, *names):
        args = []
        for n in names:
            args += ["--data", "%s=%s" % (n, self.path(n + ".npy"))]
        return args

    def run_all(self):
        post = ["--posterior", self.path("post.npz")]
        for plan in ("obs", "draw"):
            for devs in ("1", "3"):
                common = ["--shard-axis", plan, "--devices", devs,
                          "--batch-size", "700" if plan == "obs" else "5"]
                tag = "%s_%s" % (plan, devs)
                self.cli("predict_" + tag, "predict", *self.data("X"), *post,
                         *common, "--return-sites", "y,eta")
                self.cli("loglik_" + tag, "log-likelihood",
                         *self.data("X", "y"), *post, *common)
                self.cli("prior_" + tag, "prior-predictive", *self.data("X"),
                         "--num-samples", "30", *common)
                self.cli("effect_" + tag, "effect", *self.data("X"), *post,
                         "--intervene", "beta=0", "--keep-scenarios",
                         *common)
        self.cli("predict_npz", "predict", *self.data("X"), *post,
                 "--batch-size", "700", "--devices", "2",
                 out=self.path("predict_npz.npz"))
        self.cli("predict_v3", "predict", *self.data("X"), *post,
                 "--batch-size", "700", "--devices", "2", "--zarr-format",
                 "3", "--codec", "zstd:3")
        for name in ("idata_loglik", "idata_loglik_again"):
            self.cli(name, "log-likelihood", *self.data("X", "y"),
                     "--posterior", self.path("fit-*.csv"), "--layout",
                     "inference-data", "--with-posterior", "--batch-size",
                     "700", "--devices", "2")
        self.cli("idata_predict", "predict", *self.data("X", "y"),
                 "--posterior", self.path("fit-*.csv"), "--layout",
                 "inference-data", "--shard-axis", "draw", "--batch-size",
                 "5", "--devices", "2")
        self.mpi()
        self.resume()
        self.python()

    def mpi(self):
        mpirun = shutil.which("mpirun")
        v = subprocess.run([self.a.aimz_run, "--version"],
                           capture_output=True, text=True).stdout
        if not mpirun or "MPI" not in v:
            print("no mpirun or aimz-run without MPI: MPI runs skipped")
            return
        prefix = [mpirun, "--oversubscribe", "--allow-run-as-root", "-n", "2"]
        for plan, batch in (("obs", "700"), ("draw", "5")):
            self.cli("mpi_predict_" + plan, "predict", *self.data("X"),
                     "--posterior", self.path("post.npz"), "--shard-axis",
                     plan, "--batch-size", batch, "--devices", "1",
                     "--return-sites", "y,eta", prefix=prefix)

    def resume(self):
        """A run SIGKILLed once a few chunks are in, then resumed; and the
        same run fresh."""
        args = ["--data", "X=" + self.path("bigX.npy"), "--posterior",
                self.path("bigpost.npz"), "--batch-size", "2000",
                "--devices", "1", "--codec", "zstd:1"]
        self.cli("resume_fresh", "predict", *args)
        out = self.path("resume_resumed.zarr")
        cmd = [self.a.aimz_run, "predict", self.model, "--out", out,
               "--seed", "5", "--no-progress", "--quiet", "--device",
               "cpu"] + args
        partial = out + ".partial"
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        t0 = time.time()
        while time.time() - t0 < 60 and p.poll() is None and (
                not os.path.isdir(partial) or chunks(partial) < 3):
            time.sleep(0.002)
        killed = p.poll() is None
        if killed:
            p.send_signal(signal.SIGKILL)
        p.wait()
        if killed:
            self.cli("resume_resumed", "predict", *args, "--resume")
        else:
            print("the run finished before it could be killed: resume "
                  "not exercised")
            self.digests["resume_resumed"] = digest_output(out)

    def python(self):
        """The module's predict, log-likelihood (InferenceData from the
        CmdStan CSV chains) and effect, in a child process that
        imports the module of --python-dir."""
        if not self.a.python_dir:
            print("no --python-dir: Python module runs skipped")
            return
        script = r"""
import sys, warnings, numpy as np, aimzc
warnings.simplefilter("ignore")
work, model = sys.argv[1], sys.argv[2]
m = aimzc.load(model)
X = np.load(work + "/X.npy"); y = np.load(work + "/y.npy")
post = dict(np.load(work + "/post.npz"))
m.predict({"X": X}, post, seed=5, batch_size=700, devices=3,
          shard_axis="obs", return_sites=["y", "eta"], progress=False,
          out=work + "/py_predict_obs.zarr")
m.effect({"X": X}, post, intervention={"beta": 0.0}, seed=5,
         batch_size=5, devices=1, shard_axis="draw", keep_scenarios=True,
         progress=False, out=work + "/py_effect_draw.zarr")
m.log_likelihood({"X": X, "y": y}, work + "/fit-*.csv", batch_size=700, devices=2,
                 layout="inference-data", include_posterior=True,
                 progress=False, out=work + "/py_idata_loglik.zarr")
"""
        env = dict(os.environ, PYTHONPATH=self.a.python_dir)
        subprocess.run([sys.executable, "-c", script, self.work, self.model],
                       check=True, env=env)
        for name in ("py_predict_obs", "py_effect_draw", "py_idata_loglik"):
            self.digests[name] = digest_output(self.path(name + ".zarr"))


def chunks(root):
    n = 0
    for _, _, files in os.walk(root):
        n += sum(1 for f in files if f[0].isdigit() and not f.endswith(".tmp"))
    return n


# Outputs whose chunk files must be identical on any machine (their
# metadata may differ: it names the command, the plan and the sources),
# and a folder of chunks left out of the comparison.
SAME = [
    ("predict_obs_1", "predict_obs_3"), ("predict_draw_1", "predict_draw_3"),
    ("loglik_obs_1", "loglik_obs_3"), ("loglik_draw_1", "loglik_draw_3"),
    ("prior_obs_1", "prior_obs_3"), ("prior_draw_1", "prior_draw_3"),
    ("effect_obs_1", "effect_obs_3"), ("effect_draw_1", "effect_draw_3"),
    ("predict_obs_1", "mpi_predict_obs"), ("predict_draw_1",
                                           "mpi_predict_draw"),
    ("resume_fresh", "resume_resumed"),
    ("predict_obs_1", "py_predict_obs"), ("effect_draw_1", "py_effect_draw"),
    ("idata_loglik", "py_idata_loglik"),
    # The same run twice: small incompressible chunks (the posterior
    # group's) once came out raw or compressed by the scratch buffer's
    # history.
    ("idata_loglik", "idata_loglik_again"),
]


def data_files(d):
    """The chunk files (the array bytes) of a store's digests."""
    return {k: v for k, v in d.items() if os.path.basename(k) not in METADATA}


def check(digests):
    failures = []
    for a, b in SAME:
        if a not in digests or b not in digests:
            print("skipped: %s vs %s" % (a, b))
            continue
        da, db = (data_files(digests[r]) for r in (a, b))
        if not da:
            failures.append("%s has no chunks" % a)
        elif da != db:
            diff = sorted(k for k in set(da) | set(db)
                          if da.get(k) != db.get(k))
            failures.append("%s != %s: %s" % (a, b, ", ".join(diff[:8])))
        else:
            print("same bytes: %s = %s (%d chunk files)" % (a, b, len(da)))
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--aimzc", required=True)
    ap.add_argument("--aimz-run", required=True)
    ap.add_argument("--examples",
                    default=os.path.join(HERE, "..", "..", "..",
                                         "dsl-examples"))
    ap.add_argument("--python-dir")
    ap.add_argument("--work", required=True)
    ap.add_argument("--digests")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    runs = Runs(args)
    runs.run_all()
    if args.digests:
        with open(args.digests, "w") as f:
            for run in sorted(runs.digests):
                for file, d in sorted(runs.digests[run].items()):
                    f.write("%s %s %s\n" % (run, file, d))
    if args.check:
        failures = check(runs.digests)
        for f in failures:
            print("FAIL: " + f)
        return 1 if failures else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
