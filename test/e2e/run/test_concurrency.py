"""Concurrent devices never change a result: the stress test for matrix
products run on several CPU worker threads at once.

Each case runs one command with several devices (more worker threads than
cores, small batches, so that threads are preempted and overlap inside every
matrix product) a few times, and compares every run's bytes with a
one-device run. Models: the MLP example (100-128-128-128-1, f32; its
log-likelihood and its predictive draws) and a two-hidden-layer f64 tanh
network. On a runtime whose matrix products share state between threads
(Debian's serial OpenBLAS, issue 13) these runs differ from run to run.

The values themselves are checked against an independent NumPy forward
pass, so a product that is wrong the same way on every thread fails too.

AIMZ_STRESS_REPEAT=N repeats every case N times (default 2)."""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

REPEAT = int(os.environ.get("AIMZ_STRESS_REPEAT", "2"))
# (devices, batch size): more threads than cores, batches that do not
# divide the observations.
CONCURRENT = [(2, 700), (3, 500), (4, 333)]


def mlp_data(rng, n, draws, d=100, h=128):
    X = rng.normal(size=(n, d)).astype(np.float32)
    s = 1.0 / np.sqrt(np.float32(d))
    t = 1.0 / np.sqrt(np.float32(h))
    post = dict(
        w1=(rng.normal(size=(draws, d, h)) * s).astype(np.float32),
        b1=rng.normal(0, 0.1, (draws, h)).astype(np.float32),
        w2=(rng.normal(size=(draws, h, h)) * t).astype(np.float32),
        b2=rng.normal(0, 0.1, (draws, h)).astype(np.float32),
        w3=(rng.normal(size=(draws, h, h)) * t).astype(np.float32),
        b3=rng.normal(0, 0.1, (draws, h)).astype(np.float32),
        w4=(rng.normal(size=(draws, h)) * t).astype(np.float32),
        b4=rng.normal(0, 0.1, draws).astype(np.float32))
    return X, post


def mlp_logits(X, p):
    """(draws, n) logits in float64."""
    relu = lambda v: np.maximum(v, 0.0)
    X = X.astype(np.float64)
    out = []
    for i in range(p["w1"].shape[0]):
        g = {k: v[i].astype(np.float64) for k, v in p.items()}
        h = relu(X @ g["w1"] + g["b1"])
        h = relu(h @ g["w2"] + g["b2"])
        h = relu(h @ g["w3"] + g["b3"])
        out.append(h @ g["w4"] + g["b4"])
    return np.array(out)


class Concurrency(E.E2ETestCase):

    def same_as_one_device(self, command, so, data, post, sites=None,
                           **kw):
        """Runs `command` on one device, then on several devices REPEAT
        times each; every array's bytes must be the one-device bytes.
        Returns the one-device arrays."""
        ref_out = self.fresh(".npz")
        E.run_cmd(command, so, data, ref_out, posterior=post, devices=1,
                  batch=500, seed=3, sites=sites, **kw)
        ref = E.read_arrays(ref_out)
        for rep in range(REPEAT):
            for devices, batch in CONCURRENT:
                with self.subTest(command=command, rep=rep, devices=devices,
                                  batch=batch):
                    out = self.fresh(".npz")
                    E.run_cmd(command, so, data, out, posterior=post,
                              devices=devices, batch=batch, seed=3,
                              sites=sites, **kw)
                    got = E.read_arrays(out)
                    self.assertEqual(sorted(got), sorted(ref))
                    for name in ref:
                        if not E.same_bytes(got[name], ref[name]):
                            diff = np.count_nonzero(got[name] != ref[name])
                            self.fail("%s: %d of %d values differ from the "
                                      "one-device run" % (name, diff,
                                                          ref[name].size))
                    os.remove(out)
        return ref

    def test_mlp_log_likelihood(self):
        rng = np.random.default_rng(13)
        n, draws = 3000, 12
        X, p = mlp_data(rng, n, draws)
        logits = mlp_logits(X, p)
        y = (rng.uniform(size=n) < special.expit(logits[0])).astype(np.int32)
        data = {"X": self.save("mlp_X.npy", X), "y": self.save("mlp_y.npy", y)}
        post = self.savez("mlp_post.npz", **p)
        ll = self.same_as_one_device("log-likelihood", E.model("mlp"), data,
                                     post)["y"]
        # Independent reference: Bernoulli(logits) in float64.
        ref = stats.bernoulli.logpmf(y[None, :], special.expit(logits))
        np.testing.assert_allclose(ll, ref, rtol=2e-4, atol=2e-5)

    def test_mlp_predict(self):
        rng = np.random.default_rng(14)
        n, draws = 3000, 16
        X, p = mlp_data(rng, n, draws)
        data = {"X": self.save("mlp_X.npy", X)}
        post = self.savez("mlp_post.npz", **p)
        y = self.same_as_one_device("predict", E.model("mlp"), data, post)["y"]
        # The outcome frequencies follow the reference probabilities.
        prob = special.expit(mlp_logits(X, p))
        z = (y.sum() - prob.sum()) / np.sqrt((prob * (1 - prob)).sum())
        self.assertLess(abs(z), 5.0)

    def test_tanh_net64_log_likelihood(self):
        rng = np.random.default_rng(15)
        n, draws, d = 20000, 16, 7
        X = rng.normal(size=(n, d))
        p = dict(w1=rng.normal(size=(draws, d, 5)),
                 w2=rng.normal(size=(draws, 5, 5)),
                 w3=rng.normal(size=(draws, 5)),
                 sigma=rng.uniform(0.5, 1.5, draws))
        mu = np.einsum("sj,snj->sn", p["w3"], np.tanh(np.einsum(
            "snh,shj->snj", np.tanh(np.einsum("nd,sdh->snh", X, p["w1"])),
            p["w2"])))
        y = mu[0] + rng.normal(size=n)
        data = {"X": self.save("tn_X.npy", X), "y": self.save("tn_y.npy", y)}
        post = self.savez("tn_post.npz", **p)
        so = E.model("tanh_net64")
        ll = self.same_as_one_device("log-likelihood", so, data, post)["y"]
        ref = stats.norm.logpdf(y[None, :], mu, p["sigma"][:, None])
        np.testing.assert_allclose(ll, ref, rtol=1e-10, atol=1e-12)
        pred = self.same_as_one_device("predict", so, {"X": data["X"]}, post,
                                       sites=["mu", "y"])
        np.testing.assert_allclose(pred["mu"], mu, rtol=1e-10, atol=1e-12)


if __name__ == "__main__":
    E.main()
