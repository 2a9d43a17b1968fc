"""A count distribution's invalid draw (-1, kInvalidCount) is counted and
reported as a continuous site's NaN is: a warning by default, an error
under --strict, in predict and in prior-predictive. Each invalid parameter
affects its own site only: a hurdle gate above 1, a zero-inflation gate
below 0 (of a Poisson, or above 1 or below 0 of a binomial), a hurdle rate of 0, a truncation with no integer in it or a
reversed one, a truncated binomial whose low is above total_count."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

VALID = dict(g=0.3, r=2.0, lo=1.0, hi=6.0)
N, DRAWS = 20, 4


class InvalidCounts(E.E2ETestCase):
    def setUp(self):
        super().setUp()
        self.data = {"k": self.save("k.npy", np.full(N, 5, np.int32))}

    def run_with(self, strict, **changes):
        post = {k: np.full(DRAWS, v, np.float32) for k, v in VALID.items()}
        for k, v in changes.items():
            post[k][0] = v  # the first draw only
        out = self.fresh(".npz")
        r = E.run_cmd("predict", E.model("invalid_counts"), self.data, out,
                      posterior=self.savez("post.npz", **post), seed=2,
                      check=False, extra=["--strict"] if strict else [])
        return r, out

    def test_valid_parameters_give_no_report(self):
        r, out = self.run_with(True)
        self.assertEqual(r.rc, 0, r.stderr)
        for a in E.read_arrays(out).values():
            self.assertTrue((a >= 0).all())

    def test_each_invalid_parameter_is_reported(self):
        cases = [("h", dict(g=1.5)), ("z", dict(g=-0.2)), ("h", dict(r=0.0)),
                 ("t", dict(lo=1.5, hi=1.7)), ("t", dict(lo=4.0, hi=2.0)),
                 ("b", dict(lo=6.0)), ("zb", dict(g=1.5)), ("zb", dict(g=-0.2))]
        for site, change in cases:
            with self.subTest(site=site, change=change):
                r, out = self.run_with(False, **change)
                self.assertEqual(r.rc, 0, r.stderr)
                lines = [l for l in r.warnings() if "non-finite" in l]
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn("'%s' holds %d invalid draws (-1)" % (site, N),
                              lines[0])
                self.assertIn("(from draw 0)", lines[0])
                got = E.read_arrays(out)[site]
                self.assertTrue((got[0] == -1).all())
                self.assertTrue((got[1:] >= 0).all())
                r, _ = self.run_with(True, **change)
                self.assertNotEqual(r.rc, 0, "--strict passed: %r" % r)
                self.assertIn("--strict refuses them", r.stderr)

    def test_prior_predictive_counts_them_too(self):
        # lo and hi are independent Uniform(0, 10) draws: many prior draws
        # have no integer in [lo, hi], and each of those is counted.
        out = self.fresh(".npz")
        r = E.run_cmd("prior-predictive", E.model("invalid_counts"),
                      self.data, out, num_samples=200, seed=3, check=False)
        arrays = E.read_arrays(out)
        # Uniform(0, 10) bounds: some draws have no integer in [lo, hi].
        bad = int((arrays["t"] == -1).sum())
        self.assertGreater(bad, 0)
        lines = [l for l in r.warnings() if "non-finite" in l]
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn("'t' holds %d invalid draws (-1)" % bad, lines[0])


if __name__ == "__main__":
    E.main()
