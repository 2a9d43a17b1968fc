"""High-precision reference maths on top of the standard `decimal` module.

Used by make_reference.py to compute log densities at 60 significant digits
so that the committed reference values are correct to double precision even
where scipy's own double-precision formulas cancel badly (e.g. Poisson or
Binomial near the mode with huge counts).  Only the standard library is
needed here; scipy is used separately as a cross-check.
"""

from decimal import Decimal, getcontext, localcontext
from fractions import Fraction

getcontext().prec = 70

D = Decimal
PI = D("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899863")
LN_2PI = (2 * PI).ln()
HALF = D("0.5")


def _bernoulli_numbers(n):
    """B_0..B_n as Fractions (Akiyama-Tanigawa), with B_1 = +1/2."""
    out = []
    a = [Fraction(0)] * (n + 1)
    for m in range(n + 1):
        a[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out.append(a[0])
    return out


_B = _bernoulli_numbers(60)
# Stirling coefficients B_{2k} / (2k (2k-1)), k = 1..30
_STIRLING = [D(_B[2 * k].numerator) / D(_B[2 * k].denominator) / D(2 * k * (2 * k - 1)) for k in range(1, 31)]


def dec(x):
    """Exact Decimal of a Python float / int / str."""
    if isinstance(x, Decimal):
        return x
    if isinstance(x, str):
        return D(x)
    return D(x)  # Decimal(float) is exact


def lgamma(x):
    """log|Gamma(x)| for Decimal x > 0."""
    x = dec(x)
    assert x > 0
    if x == 1 or x == 2:
        return D(0)
    shift = D(1)
    while x < 60:
        shift *= x
        x += 1
    s = (x - HALF) * x.ln() - x + LN_2PI / 2
    xp = x
    x2 = x * x
    for c in _STIRLING:
        s += c / xp
        xp *= x2
    return s - shift.ln()


def stirlerr(x):
    """lgamma(x+1) - (x+1/2) log x + x - log sqrt(2 pi)."""
    x = dec(x)
    return lgamma(x + 1) - (x + HALF) * x.ln() + x - LN_2PI / 2


def log(x):
    return dec(x).ln()


def log1p(x):
    """log(1 + x), exact to working precision even for tiny |x|."""
    x = dec(x)
    if x != 0 and abs(x) < D("1e-30"):
        # series: x - x^2/2 + x^3/3 ...
        s, term, k = D(0), x, 1
        while term != 0 and abs(term) > abs(s) * D("1e-75"):
            s += term / k
            k += 1
            term = -term * x
        return s
    return (1 + x).ln()


def exp(x):
    return dec(x).exp()


def sqrt(x):
    return dec(x).sqrt()


def lbeta(a, b):
    return lgamma(a) + lgamma(b) - lgamma(dec(a) + dec(b))


def softplus(x):
    x = dec(x)
    return log1p(x.exp())


NEG_INF = float("-inf")
POS_INF = float("inf")
NAN = float("nan")
