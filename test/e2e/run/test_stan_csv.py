"""--posterior also takes CmdStan CSV files, one per chain: the same draws
written as Stan writes them give byte-identical results to the .npz.

The files follow CmdStan's documented format (configuration comments,
one header line, `beta.1`-style 1-based column-major columns, sampler
diagnostics ending in `__`, saved warmup draws before "Adaptation
terminated", timing comments at the end), written here from known draws."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

DIAGNOSTICS = ["lp__", "accept_stat__", "stepsize__", "treedepth__",
               "n_leapfrog__", "divergent__", "energy__"]


def stan_columns(name, shape):
    """Stan's column names of a parameter, in its column-major order."""
    if not shape:
        return [name], [()]
    idx = list(np.ndindex(*shape[::-1]))  # first index fastest
    idx = [tuple(reversed(i)) for i in idx]
    return (["%s.%s" % (name, ".".join(str(k + 1) for k in i)) for i in idx],
            idx)


def write_stan_csv(path, post, draws, warmup=0, rng=None, extra=()):
    """One chain: post[name][draws] as CmdStan writes it; `warmup` junk
    draws saved before the adaptation's end."""
    names, getters = list(DIAGNOSTICS), []
    for n in [n for n in post] + [e[0] for e in extra]:
        arr = post[n] if n in post else dict(extra)[n]
        cols, idx = stan_columns(n, arr.shape[1:])
        names += cols
        getters += [(arr, i) for i in idx]
    lines = ["# stan_version_major = 2",
             "# model = fit_model",
             "# method = sample (Default)",
             "#   sample",
             "#     num_samples = %d" % draws.stop,
             "#     num_warmup = %d" % warmup,
             "#     save_warmup = %d" % (1 if warmup else 0),
             "#     thin = 1 (Default)",
             ",".join(names)]

    def row(values):
        return ",".join(repr(float(v)) for v in values)
    for _ in range(warmup):
        lines.append(row(list(rng.normal(size=len(DIAGNOSTICS))) +
                         [1e9] * len(getters)))  # never used
    lines += ["# Adaptation terminated", "# Step size = 0.5",
              "# Diagonal elements of inverse mass matrix:",
              "# " + ", ".join(["1"] * len(getters))]
    for d in range(draws.start, draws.stop):
        lines.append(row([-12.5, 0.9, 0.5, 3, 7, 0, 13.1] +
                         [a[d][i] if i else a[d] for a, i in getters]))
    lines += ["", "#  Elapsed Time: 0.05 seconds (Warm-up)",
              "#                0.04 seconds (Sampling)"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


class StanCsv(E.E2ETestCase):
    N, J = 3000, 5

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(11)
        D = 12
        self.x = rng.normal(size=self.N).astype(np.float32)
        self.g = rng.integers(0, self.J, self.N).astype(np.int32)
        L = np.zeros((D, 2, 2))
        L[:, 0, 0] = 1
        L[:, 1, 0] = rng.uniform(-0.5, 0.5, D)
        L[:, 1, 1] = np.sqrt(1 - L[:, 1, 0] ** 2)
        self.post = dict(mu=rng.normal(size=(D, 2)),
                         tau=rng.uniform(0.5, 1.5, (D, 2)),
                         L_omega=L,
                         ab=rng.normal(size=(D, self.J, 2)),
                         sigma=rng.uniform(0.5, 1.5, D))
        self.data = {"x": self.save("x.npy", self.x),
                     "g": self.save("g.npy", self.g)}
        self.rng = rng

    def tmpdir(self):
        d = self.fresh(suffix="")
        os.makedirs(d)
        return d

    def chains(self, warmup=0, extra=()):
        d = self.tmpdir()
        write_stan_csv(os.path.join(d, "fit-1.csv"), self.post, range(0, 7),
                       warmup=warmup, rng=self.rng, extra=extra)
        write_stan_csv(os.path.join(d, "fit-2.csv"), self.post, range(7, 12),
                       warmup=warmup, rng=self.rng, extra=extra)
        return d

    def test_same_bytes_as_the_npz(self):
        so = E.model("varying_slopes")
        npz = self.savez("post.npz", **{k: v.astype(np.float32)
                                         for k, v in self.post.items()})
        d = self.chains(warmup=4,
                        extra=[("beta_t", np.ones((12, 3)))])  # not a site
        for cmd in ("predict", "log-likelihood"):
            data = dict(self.data)
            if cmd == "log-likelihood":
                data["y"] = self.save("y.npy", self.x * 0.5)
            a, b = self.fresh(), self.fresh()
            E.run_cmd(cmd, so, data, a, posterior=npz, seed=3, batch=700)
            r = E.run_cmd(cmd, so, data, b,
                          posterior=os.path.join(d, "fit-*.csv"), seed=3,
                          batch=700)
            self.assertIn("beta_t", r.stderr)  # warned, ignored
            A, B = E.read_arrays(a), E.read_arrays(b)
            self.assertEqual(sorted(A), sorted(B))
            for k in A:
                self.assertEqual(A[k].shape[0], 12, k)
                np.testing.assert_array_equal(A[k], B[k], err_msg=k)

    def test_one_file(self):
        so = E.model("varying_slopes")
        d = self.chains()
        out = self.fresh()
        E.run_cmd("predict", so, self.data, out,
                  posterior=os.path.join(d, "fit-2.csv"), seed=1)
        self.assertEqual(E.read_arrays(out)["y"].shape, (5, self.N))

    def test_errors(self):
        so = E.model("varying_slopes")
        d = self.chains()
        r = E.run_cmd("predict", so, self.data, self.fresh(),
                      posterior=os.path.join(d, "nothing-*.csv"), check=False)
        self.assert_one_error_line(r, "matches no file")
        bad = os.path.join(d, "bad.csv")
        with open(os.path.join(d, "fit-1.csv")) as f:
            text = f.read().replace("\n-12.5,", "\n-12.5,oops,", 1)
        with open(bad, "w") as f:
            f.write(text)
        r = E.run_cmd("predict", so, self.data, self.fresh(), posterior=bad,
                      check=False)
        self.assert_one_error_line(r, "bad.csv", "line", "values for")
        with open(bad, "w") as f:
            f.write(text.replace("\n-12.5,oops,0.9", "\n-12.5,0.9", 1)
                    .replace(",0.9,", ",x0.9,", 1))
        r = E.run_cmd("predict", so, self.data, self.fresh(), posterior=bad,
                      check=False)
        self.assert_one_error_line(r, "bad.csv", "accept_stat__",
                                   "is not a number")
        other = self.tmpdir()
        write_stan_csv(os.path.join(other, "a.csv"), self.post, range(0, 3))
        write_stan_csv(os.path.join(other, "b.csv"),
                       {k: v for k, v in self.post.items() if k != "sigma"},
                       range(3, 6))
        r = E.run_cmd("predict", so, self.data, self.fresh(),
                      posterior=os.path.join(other, "*.csv"), check=False)
        self.assert_one_error_line(r, "b.csv", "other columns", "one fit")
        # Only part of a matrix: the largest index says more entries.
        part = os.path.join(other, "part.csv")
        with open(os.path.join(other, "a.csv")) as f:
            lines = f.read().split("\n")
        hdr = [i for i, l in enumerate(lines) if l.startswith("lp__")][0]
        cols = lines[hdr].split(",")
        drop = cols.index("ab.2.1")
        fixed = [",".join(c for j, c in enumerate(l.split(",")) if j != drop)
                 if (i >= hdr and l and not l.startswith("#")) else l
                 for i, l in enumerate(lines)]
        with open(part, "w") as f:
            f.write("\n".join(fixed))
        r = E.run_cmd("predict", so, self.data, self.fresh(), posterior=part,
                      check=False)
        self.assert_one_error_line(r, "'ab'", "some entries are missing")
        # A hostile index: 2^32 (or 2^64 over two axes) entries must not be
        # allocated (it segfaulted, or aborted with bad_alloc).
        for bad in ("ab.4294967296.1", "ab.4294967296.4294967296",
                    "ab.18446744073709551615.2"):
            with self.subTest(column=bad):
                huge = os.path.join(other, "huge.csv")
                with open(huge, "w") as f:
                    f.write("\n".join(l.replace("ab.2.1", bad) if i == hdr
                                      else l for i, l in enumerate(lines)))
                r = E.run_cmd("predict", so, self.data, self.fresh(),
                              posterior=huge, check=False)
                self.assertGreater(r.rc, 0, r)
                self.assertEqual(len(r.errors()), 1, r)
                self.assertIn("ab", r.errors()[0])
        # A file cut inside its last value ("...,0." of "0.123"): refused,
        # not read as 0 (which gave 1000 non-finite log-likelihoods).
        with open(os.path.join(other, "a.csv")) as f:
            text = f.read()
        body = text.rstrip("\n")
        last = [l for l in body.split("\n") if l and not l.startswith("#")][-1]
        cut = body[:body.rindex(last) + len(last)]
        cut = cut[:cut.rindex(".") + 1]
        cut_path = os.path.join(other, "cut.csv")
        with open(cut_path, "w") as f:
            f.write(cut)
        r = E.run_cmd("predict", so, self.data, self.fresh(),
                      posterior=cut_path, check=False)
        self.assert_one_error_line(r, "cut.csv", "cut short")
        # The same line with its newline is whole, and read.
        with open(cut_path, "w") as f:
            f.write(body[:body.rindex(last) + len(last)] + "\n")
        r = E.run_cmd("predict", so, self.data, self.fresh(),
                      posterior=cut_path, check=False)
        self.assertEqual(r.rc, 0, r)


FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "..", "..", "fixtures", "stan")


def read_rstan_csv(path):
    """(column names, post-warmup rows) of a CSV written by rstan itself,
    read independently of aimz-run: rows before "# Adaptation terminated"
    are warmup."""
    names, rows, sampling = None, [], False
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# Adaptation terminated"):
                sampling = True
            if not line or line.startswith("#"):
                continue
            if names is None:
                names = line.split(",")
            elif sampling:
                rows.append([float(v) for v in line.split(",")])
    return names, np.array(rows)


class RstanFit(E.E2ETestCase):
    """Two chains of test/fixtures/stan/linreg.stan written by rstan 2.21
    (make_fixtures.R), with Stan's own pointwise log-likelihood as a
    generated quantity: aimz-run reads the files as rstan wrote them and
    its log-likelihood of every draw agrees with Stan's."""

    def setUp(self):
        super().setUp()
        table = np.genfromtxt(os.path.join(FIXTURES, "data.csv"),
                              delimiter=",", names=True)
        self.X = np.stack([table["X1"], table["X2"], table["X3"]],
                          axis=1).astype(np.float32)
        self.y = table["y"].astype(np.float32)
        self.files = [os.path.join(FIXTURES, "fit-%d.csv" % c)
                      for c in (1, 2)]
        chains = [read_rstan_csv(f) for f in self.files]
        self.names = chains[0][0]
        self.rows = np.concatenate([c[1] for c in chains])  # chain-major
        self.per_chain = len(chains[0][1])

    def column(self, name):
        return self.rows[:, self.names.index(name)]

    def test_log_likelihood_agrees_with_stan(self):
        so = E.model("linreg")
        data = {"X": self.save("X.npy", self.X),
                "y": self.save("y.npy", self.y)}
        out = self.fresh()
        r = E.run_cmd("log-likelihood", so, data, out,
                      posterior=os.path.join(FIXTURES, "fit-*.csv"),
                      batch=17)
        self.assertIn("log_lik", r.stderr)  # not a site: warned, ignored
        ours = E.read_arrays(out)["y"]
        stan = np.stack([self.column("log_lik.%d" % (n + 1))
                         for n in range(len(self.y))], axis=1)
        self.assertEqual(ours.shape, stan.shape)
        self.assertEqual(ours.shape[0], 2 * self.per_chain)
        # Stan prints 6 significant digits of draws and log_lik alike.
        np.testing.assert_allclose(ours, stan, rtol=1e-4, atol=2e-4)

    def test_predict_and_chains(self):
        so = E.model("linreg")
        out = self.fresh()
        E.run_cmd("predict", so, {"X": self.save("X.npy", self.X)}, out,
                  posterior=os.path.join(FIXTURES, "fit-*.csv"),
                  sites=["eta"], extra=["--layout", "inference-data"])
        eta = E.open_group(out)["posterior_predictive/eta"][...]
        beta = np.stack([self.column("beta.%d" % k) for k in (1, 2, 3)],
                        axis=1)
        want = np.exp(self.column("alpha")[:, None] + beta @ self.X.T)
        self.assertEqual(eta.shape, (2, self.per_chain, len(self.y)))
        np.testing.assert_allclose(eta.reshape(want.shape), want, rtol=2e-5)


if __name__ == "__main__":
    E.main()
