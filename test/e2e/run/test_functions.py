"""Every elementwise function against SciPy / NumPy over its domain (tails
included), in f64 (1e-12 relative, or 1e-300 absolute near zero) and f32
(the float32 reference's few ulps): NumPy's names and Stan's aliases, libm's
functions and the support library's (digamma, trigamma, ndtri, Bessel),
NaN outside the domain. One model per precision holds every function as a
deterministic site of inputs x (and y)."""

import os
import sys

import numpy as np
from scipy import special as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

N = 400


def grid(lo, hi, n=N, log=False):
    if log:
        return np.geomspace(lo, hi, n)
    return np.linspace(lo, hi, n)


def sym(a, n=N):
    """Both signs, tails and the middle."""
    h = np.geomspace(1e-6, a, n // 2)
    return np.concatenate([-h[::-1], h])


# name: (reference(x) or (x, y), x values, y values or None)
UNARY = {
    "tan": (np.tan, grid(-1.5, 1.5)),
    "arcsin": (np.arcsin, grid(-1.2, 1.2)),
    "asin": (np.arcsin, grid(-1, 1)),
    "arccos": (np.arccos, grid(-1.2, 1.2)),
    "acos": (np.arccos, grid(-1, 1)),
    "arctan": (np.arctan, sym(1e30)),
    "atan": (np.arctan, sym(1e10)),
    "sinh": (np.sinh, sym(700)),
    "cosh": (np.cosh, sym(700)),
    "arcsinh": (np.arcsinh, sym(1e300)),
    "asinh": (np.arcsinh, sym(1e5)),
    "arccosh": (np.arccosh, grid(0.5, 1e300, log=True)),
    "acosh": (np.arccosh, grid(1, 1e5, log=True)),
    "arctanh": (np.arctanh, grid(-1.1, 1.1)),
    "atanh": (np.arctanh, grid(-0.999999, 0.999999)),
    "cbrt": (np.cbrt, sym(1e300)),
    "exp2": (np.exp2, grid(-1070, 1020)),
    "log2": (np.log2, grid(1e-300, 1e300, log=True)),
    "log10": (np.log10, grid(1e-300, 1e300, log=True)),
    "floor": (np.floor, grid(-7.5, 7.5, 61)),
    "ceil": (np.ceil, grid(-7.5, 7.5, 61)),
    "round": (np.round, grid(-7.5, 7.5, 61)),
    "rint": (np.rint, grid(-7.5, 7.5, 61)),
    "trunc": (np.trunc, grid(-7.5, 7.5, 61)),
    "sign": (np.sign, np.array([-3.0, -1e-300, 0.0, 2e-300, 5.0, np.inf])),
    "fabs": (np.fabs, sym(1e300)),
    "inv": (lambda x: 1 / x, sym(1e300)),
    "reciprocal": (lambda x: 1 / x, sym(1e10)),
    "inv_sqrt": (lambda x: 1 / np.sqrt(x), grid(1e-300, 1e300, log=True)),
    "rsqrt": (lambda x: 1 / np.sqrt(x), grid(1e-10, 1e10, log=True)),
    "inv_square": (lambda x: 1 / (x * x), sym(1e150)),
    "step": (lambda x: np.where(x < 0, 0.0, 1.0), grid(-3, 3, 61)),
    "int_step": (lambda x: np.where(x > 0, 1.0, 0.0), grid(-3, 3, 61)),
    "erfc": (sp.erfc, grid(-6, 27)),
    "gamma": (sp.gamma, np.concatenate([grid(-9.5, -0.5, 10), grid(1e-5, 170)])),
    "tgamma": (sp.gamma, grid(0.01, 30)),
    "gammaln": (sp.gammaln, grid(1e-5, 1e5, log=True)),
    "digamma": (sp.digamma, np.concatenate([grid(-9.7, -0.3, 40),
                                            grid(1e-6, 1e8, log=True)])),
    "psi": (sp.digamma, grid(0.01, 50)),
    "trigamma": (lambda x: sp.polygamma(1, x),
                 np.concatenate([grid(-9.7, -0.3, 40),
                                 grid(1e-6, 1e8, log=True)])),
    "ndtri": (sp.ndtri, np.concatenate([grid(1e-300, 0.4, log=True),
                                        grid(0.4, 0.6, 20),
                                        1 - grid(1e-16, 0.4, log=True),
                                        [0.0, 1.0, -0.1, 1.1]])),
    "inv_Phi": (sp.ndtri, grid(1e-10, 1 - 1e-10)),
    "ndtr": (sp.ndtr, grid(-37, 8)),
    "Phi_approx": (lambda x: sp.expit(0.07056 * x ** 3 + 1.5976 * x),
                   grid(-8, 8)),
    "i0": (sp.i0, sym(700)),
    "i0e": (sp.i0e, sym(1e6)),
    "i1": (sp.i1, sym(700)),
    "i1e": (sp.i1e, sym(1e6)),
}

BINARY = {
    "arctan2": (np.arctan2, sym(10), sym(10)[::-1]),
    "atan2": (np.arctan2, sym(1e5), sym(3)),
    "hypot": (np.hypot, sym(1e300), sym(1e300)[::-1]),
    "fmod": (np.fmod, sym(100), np.linspace(0.3, 7, N)),
    "fmin": (np.fmin, np.where(np.arange(N) % 7 == 0, np.nan, sym(5)),
             np.where(np.arange(N) % 5 == 0, np.nan, sym(5)[::-1])),
    "fmax": (np.fmax, np.where(np.arange(N) % 7 == 0, np.nan, sym(5)),
             np.where(np.arange(N) % 5 == 0, np.nan, sym(5)[::-1])),
    "fdim": (lambda x, y: np.maximum(x - y, 0), sym(5), sym(5)[::-1]),
    "logaddexp2": (np.logaddexp2, sym(1000), sym(1000)[::-1]),
    "xlogy": (sp.xlogy, np.where(np.arange(N) % 4 == 0, 0.0, sym(3)),
              grid(0, 10)),
    "xlog1py": (sp.xlog1py, np.where(np.arange(N) % 4 == 0, 0.0, sym(3)),
                grid(-1, 10)),
    "binomial_coefficient_log": (
        lambda n, k: sp.gammaln(n + 1) - sp.gammaln(k + 1) - sp.gammaln(n - k + 1),
        grid(10, 50), grid(0, 10)),
    "betaln": (sp.betaln, grid(0.5, 30), grid(0.5, 30)[::-1]),
    "power": (np.power, grid(0.1, 10), grid(-3, 3)),
    # Written without cancellation: log_sigmoid(x) + log1p(-e^(y - x)) -
    # softplus(y) (np.log(expit(x) - expit(y)) loses digits near 0).
    "log_inv_logit_diff": (
        lambda x, y: (-np.logaddexp(0, -x) + np.log1p(-np.exp(y - x))
                      - np.logaddexp(0, y)),
        grid(-20, 30), grid(-40, 10)),
    "betaln_far": (sp.betaln, grid(1, 5), grid(1e8, 1e10, log=True)),
    # Owen's T over both signs of h and a, a from 1e-6 to 1e8 (the a > 1
    # identity), h into the far tail (T ~ 1e-300).
    "owens_t": (sp.owens_t, sym(37), np.concatenate([
        grid(1e-6, 1e8, N // 2, log=True),
        -grid(1e-6, 1e8, N // 2, log=True)[::-1]])[np.arange(N) * 7 % N]),
    # log I_v(z): orders from -0.9 to 400, z from 1e-8 to 1e5 (both the
    # power series and Hankel's series, z near v^2 on either side).
    "log_modified_bessel_first_kind": (
        lambda v, z: np.log(sp.ive(v, z)) + z,
        np.concatenate([grid(-0.9, 3, N // 2), grid(3, 400, N // 2)]),
        grid(1e-8, 1e5, log=True)[np.arange(N) * 13 % N]),
    "ive": (sp.ive, grid(0, 60), grid(1e-6, 1e4, log=True)),
    "iv": (sp.iv, grid(0, 30), grid(1e-3, 700)),
}


# Stan's log_mix(theta, lp1, lp2): x is theta, y lp1 and lp2 = -y.
TERNARY = {
    "log_mix": (lambda t, a: np.logaddexp(np.log(t) + a, np.log1p(-t) - a),
                # away from lp1 = 0, where the value cancels to ~0 in any
                # implementation (SciPy's reference too)
                grid(0.001, 0.999), np.concatenate([-grid(0.5, 50, N // 2),
                                                    grid(0.5, 50, N // 2)])),
}


def call_name(name):
    return name.split("_far")[0]


def source(dtype):
    lines = ["model functions(x: %s[n], y: %s[n]) -> (out: f32[n]) {" %
             (dtype, dtype), "  plate obs(n) {"]
    for name in UNARY:
        lines.append("    deterministic u_%s = %s(x);" % (name, name))
    for name in BINARY:
        lines.append("    deterministic b_%s = %s(x, y);" % (name,
                                                          call_name(name)))
    for name in TERNARY:
        lines.append("    deterministic b_%s = %s(x, y, -y);" % (name, name))
    lines += ["    out ~ Normal(0.0, 1.0);", "  }", "}"]
    return "\n".join(lines) + "\n"


class Functions(E.E2ETestCase):
    def run_all(self, dtype):
        so = self.compile_source("functions_" + dtype, source(dtype))
        t = np.float32 if dtype == "f32" else np.float64
        got = {}
        cases = [(n, ref, x, None) for n, (ref, x) in UNARY.items()] + \
                [(n, ref, x, y) for n, (ref, x, y) in BINARY.items()] + \
                [(n, ref, x, y) for n, (ref, x, y) in TERNARY.items()]
        for name, ref, x, y in cases:
            x = np.asarray(x, np.float64).astype(t)
            yv = (np.zeros_like(x) if y is None
                  else np.asarray(y, np.float64).astype(t))
            site = ("u_" if y is None else "b_") + name
            out = self.fresh(".npz")
            r = E.run_cmd("prior-predictive", so,
                          {"x": self.save("x.npy", x),
                           "y": self.save("y.npy", yv)},
                          out, num_samples=1, seed=1, sites=[site],
                          check=False)
            self.assertIn(r.rc, (0,), r.stderr)
            v = E.read_arrays(out)[site][0]
            with np.errstate(all="ignore"):
                want = (ref(x.astype(np.float64)) if y is None else
                        ref(x.astype(np.float64), yv.astype(np.float64)))
            # The reference's condition number: how much an input's own
            # rounding (to the model's precision) moves the value.
            h = 1e-7
            with np.errstate(all="ignore"):
                xd, yd = x.astype(np.float64), yv.astype(np.float64)
                f = (lambda a, b: ref(a) if y is None else ref(a, b))
                cond = np.abs(f(xd * (1 + h), yd) / want - 1) / h
                if y is not None:
                    cond = np.maximum(cond, np.abs(
                        f(xd, yd * (1 + h)) / want - 1) / h)
            got[name] = (v, np.asarray(want, np.float64), x, yv,
                         np.nan_to_num(cond, nan=0.0, posinf=0.0))
        return got

    def check(self, dtype, rtol):
        bad = []
        tiny = np.finfo(np.float32 if dtype == "f32" else np.float64).tiny
        eps = np.finfo(np.float32 if dtype == "f32" else np.float64).eps
        for name, (v, want, x, y, cond) in self.run_all(dtype).items():
            if dtype == "f32":
                # The reference rounded to f32, where it is representable.
                with np.errstate(all="ignore"):
                    want = want.astype(np.float32).astype(np.float64)
            v = v.astype(np.float64)
            both_nan = np.isnan(v) & np.isnan(want)
            same_inf = np.isinf(want) & (v == want)
            # f32 computes from inputs and intermediates rounded to f32: a
            # few ulps times the function's condition number as well.
            tol = rtol + (4 * eps * cond if dtype == "f32" else 0)
            close = np.abs(v - want) <= tol * np.abs(want) + 16 * tiny
            ok = both_nan | same_inf | close
            if not ok.all():
                i = int(np.argmin(ok))
                bad.append("%s(%r, %r) = %r, SciPy %r" % (
                    name, x[i], y[i], v[i], want[i]))
        self.assertEqual(bad, [], "\n" + "\n".join(bad))

    def test_like_constructors(self):
        so = self.compile_source("like", """model like(x: f64[n], k: i32[n]) -> (y: f64[n]) {
  W ~ Normal(0, 1)[3, 4];
  deterministic z = zeros_like(W);
  deterministic f = full_like(W, 2.5);
  plate obs(n) {
    deterministic base = zeros_like(x) + x;
    deterministic kk = full_like(k, 7);
    y ~ Normal(base + ones_like(x), 1);
  }
}
""")
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so,
                  {"x": self.save("x.npy", np.array([1.5, -2.0, 4.0])),
                   "k": self.save("k.npy", np.arange(3, dtype=np.int32))},
                  out, num_samples=2, seed=1,
                  sites=["z", "f", "base", "kk"])
        got = E.read_arrays(out)
        np.testing.assert_array_equal(got["z"], np.zeros((2, 3, 4)))
        np.testing.assert_array_equal(got["f"], np.full((2, 3, 4), 2.5))
        np.testing.assert_array_equal(got["base"], [[1.5, -2.0, 4.0]] * 2)
        self.assertEqual(got["kk"].dtype, np.int32)
        np.testing.assert_array_equal(got["kk"], np.full((2, 3), 7))

    def test_integer_abs(self):
        # abs of an integer input stays integer (it once stopped the
        # lowering: no libm call for math.absi); INT_MIN wraps as in NumPy.
        so = self.compile_source("iabs", """model iabs(k: i32[n], j: i64[n]) -> (y: f32[n]) {
  plate obs(n) {
    deterministic ak = abs(k);
    deterministic aj = abs(j);
    y ~ Normal(0, 1);
  }
}
""")
        k = np.array([-5, 0, 7, -2**31, 2**31 - 1], dtype=np.int32)
        j = np.array([-2**40, 3, 0, -2**63, -1], dtype=np.int64)
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so,
                  {"k": self.save("k.npy", k), "j": self.save("j.npy", j)},
                  out, num_samples=2, seed=1, sites=["ak", "aj"])
        got = E.read_arrays(out)
        self.assertEqual(got["ak"].dtype, np.int32)
        self.assertEqual(got["aj"].dtype, np.int64)
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(got["ak"], [np.abs(k)] * 2)
            np.testing.assert_array_equal(got["aj"], [np.abs(j)] * 2)

    def test_f64(self):
        self.check("f64", 1e-12)

    def test_f32(self):
        self.check("f32", 2e-6)

MATRIX_SOURCE = """model mats(A: %(t)s[n, K, K], S: %(t)s[K, K]) -> (y: %(t)s[n]) {
  a ~ Normal(0, 1);
  deterministic inv_S = inverse(S);
  deterministic chol_S = cholesky(S);
  deterministic stan_chol = cholesky_decompose(S);
  deterministic inv_A = inverse(A);
  deterministic chol_AAt = cholesky(sum(A[:, :, None, :] * A[:, None, :, :], axis=-1) + eye(K));
  plate obs(n) { y ~ Normal(a, 1); }
}
"""


class MatrixFunctions(E.E2ETestCase):
    """cholesky and inverse against NumPy, batched over an observation
    axis and alone, at both precisions; NaN for a singular matrix (inverse)
    or one that is not positive definite (cholesky)."""

    def run_mats(self, dtype):
        t = np.float32 if dtype == "f32" else np.float64
        so = self.compile_source("mats_" + dtype, MATRIX_SOURCE % {"t": dtype})
        rng = np.random.default_rng(61)
        n, K = 5, 4
        A = rng.normal(size=(n, K, K))
        A[3] = np.ones((K, K))  # singular
        A[4, :, 0] = 0  # a zero column: singular, and a pivot of 0
        A[2] = np.triu(A[2]) + 3 * np.eye(K)  # triangular: pivots on the diagonal
        A[1] = np.eye(K)[[1, 0, 3, 2]] * [2, 3, 4, 5]  # needs row exchanges
        B = rng.normal(size=(K, K))
        S = B @ B.T + K * np.eye(K)
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so,
                  {"A": self.save("A.npy", A.astype(t)),
                   "S": self.save("S.npy", S.astype(t))}, out,
                  num_samples=1, seed=1,
                  sites=["inv_S", "chol_S", "stan_chol", "inv_A", "chol_AAt"])
        A, S = A.astype(t).astype(np.float64), S.astype(t).astype(np.float64)
        return E.read_arrays(out), A, S

    def check(self, dtype, rtol):
        got, A, S = self.run_mats(dtype)
        np.testing.assert_allclose(got["inv_S"][0], np.linalg.inv(S), rtol=rtol,
                                   atol=rtol)
        L = np.linalg.cholesky(S)
        np.testing.assert_allclose(got["chol_S"][0], L, rtol=rtol, atol=rtol)
        np.testing.assert_array_equal(got["stan_chol"][0], got["chol_S"][0])
        inv = got["inv_A"][0]
        for i in (0, 1, 2):
            np.testing.assert_allclose(inv[i], np.linalg.inv(A[i]),
                                       rtol=50 * rtol, atol=50 * rtol)
        self.assertTrue(np.isnan(inv[3]).all() and np.isnan(inv[4]).all())
        K = A.shape[1]
        want = np.linalg.cholesky(A @ A.transpose(0, 2, 1) + np.eye(K))
        np.testing.assert_allclose(got["chol_AAt"][0], want, rtol=10 * rtol,
                                   atol=10 * rtol)

    def test_f64(self):
        self.check("f64", 1e-12)

    def test_f32(self):
        self.check("f32", 2e-6)

    def test_not_positive_definite_is_nan(self):
        so = self.compile_source("mats_npd", MATRIX_SOURCE % {"t": "f64"})
        S = np.diag([1.0, -1.0, 2.0, 3.0])
        out = self.fresh(".npz")
        A = np.tile(np.eye(4), (2, 1, 1))
        E.run_cmd("prior-predictive", so,
                  {"A": self.save("A.npy", A), "S": self.save("S.npy", S)},
                  out, num_samples=1, seed=1, sites=["chol_S", "inv_S"])
        got = E.read_arrays(out)
        self.assertTrue(np.isnan(got["chol_S"]).all())
        np.testing.assert_allclose(got["inv_S"][0], np.linalg.inv(S))

LARGE_CHOLESKY_SOURCE = """model bigchol(x: %(t)s[n], S: %(t)s[K, K], T: %(t)s[M, M], V: %(t)s[J, J]) -> (y: %(t)s[n]) {
  a ~ Normal(0, 1);
  deterministic L = cholesky(S);
  deterministic LT = cholesky(T);
  deterministic LV = cholesky(V);
  plate obs(n) { y ~ Normal(a, 1); }
}
"""


class LargeCholesky(E.E2ETestCase):
    """Factors large enough for the blocked factor (BlockedCholesky.h:
    blocks of 32 rows inside blocks of 256) against NumPy, and the property
    that makes its bits independent of the blocking: every entry is one
    sequence of operations, so the factor of a leading square is the
    leading square of the factor, bit for bit, whether that square is
    factored blocked (37 x 37) or by the unblocked loop (20 x 20), with the
    model CPU's fused multiply-adds."""

    def factors(self, dtype, S):
        t = np.float32 if dtype == "f32" else np.float64
        so = self.compile_source("bigchol_" + dtype,
                                 LARGE_CHOLESKY_SOURCE % {"t": dtype})
        S = S.astype(t)
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so,
                  {"x": self.save("x.npy", np.zeros(2, t)),
                   "S": self.save("S.npy", S),
                   "T": self.save("T.npy", np.ascontiguousarray(S[:37, :37])),
                   "V": self.save("V.npy", np.ascontiguousarray(S[:20, :20]))},
                  out, num_samples=1, seed=1, sites=["L", "LT", "LV"])
        got = E.read_arrays(out)
        return got["L"][0], got["LT"][0], got["LV"][0], S.astype(np.float64)

    def spd(self, K):
        x = np.sort(np.random.default_rng(7).uniform(-3, 3, K))
        return np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2) + 0.1 * np.eye(K)

    def check(self, dtype, tol):
        L, LT, LV, S = self.factors(dtype, self.spd(300))
        want = np.linalg.cholesky(S)
        np.testing.assert_allclose(L, want, rtol=tol, atol=tol)
        self.assertTrue((np.triu(L, 1) == 0).all())
        np.testing.assert_array_equal(L[:37, :37].view(np.uint8),
                                      LT.view(np.uint8))
        np.testing.assert_array_equal(L[:20, :20].view(np.uint8),
                                      LV.view(np.uint8))

    def test_f64(self):
        self.check("f64", 1e-10)

    def test_f32(self):
        self.check("f32", 1e-3)

    def test_not_positive_definite_or_symmetric_is_nan(self):
        S = self.spd(300)
        S[290, 290] = 0.01  # below its row's sum of squares: fails late
        L, LT, LV, _ = self.factors("f64", S)
        self.assertTrue(np.isnan(L).all())
        self.assertFalse(np.isnan(LT).any())
        S = self.spd(300)
        S[5, 200] += 1e-3  # not symmetric
        L, _, _, _ = self.factors("f64", S)
        self.assertTrue(np.isnan(L).all())


if __name__ == "__main__":
    E.main()
