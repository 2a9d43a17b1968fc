"""x ** n with a constant integer n keeps integer_pow's sign rule for every
n: the exponent is parsed exactly (64 bits), not rounded to the model's
float type (2^24 + 1 is even in float32), and the result has NumPy's sign:
negative exactly when x < 0 and n is odd."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

EXPONENTS = [3, 16777217, -16777217, 16777218, 9007199254740993,
             -9007199254740993, 4611686018427387905]

SOURCE = """model powers(x: %s[n]) -> (y: %s[n]) {
  plate obs(n) {
%s
    y ~ Normal(0, 1);
  }
}
"""


class IntegerPowers(E.E2ETestCase):
    def check(self, dtype):
        lines = "\n".join("    deterministic p%d = x ** %d;" % (i, n)
                          for i, n in enumerate(EXPONENTS))
        so = self.compile_source("powers_" + dtype,
                                 SOURCE % (dtype, dtype, lines))
        np_type = np.float32 if dtype == "f32" else np.float64
        x = np.array([-1.0, 1.0, -0.5, 0.5, -1.0, -2.0], np_type)
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, {"x": self.save("x.npy", x)}, out,
                  num_samples=1, seed=1, check=False,
                  sites=["p%d" % i for i in range(len(EXPONENTS))])
        got = E.read_arrays(out)
        for i, n in enumerate(EXPONENTS):
            v = got["p%d" % i][0]
            with np.errstate(over="ignore", divide="ignore", under="ignore"):
                mag = np.abs(x).astype(np.float64) ** float(n)
            sign = np.where((x < 0) & (n % 2 == 1), -1.0, 1.0)
            ref = (sign * mag).astype(np_type)
            np.testing.assert_array_equal(np.signbit(v), np.signbit(ref),
                                          err_msg="x ** %d (%s)" % (n, dtype))
            np.testing.assert_allclose(v, ref, rtol=1e-6,
                                       err_msg="x ** %d (%s)" % (n, dtype))

    def test_f32(self):
        self.check("f32")

    def test_f64(self):
        self.check("f64")


if __name__ == "__main__":
    E.main()
