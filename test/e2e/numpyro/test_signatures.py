"""Every distribution the language accepts has NumPyro's signature.

`aimzc --list-distributions=json` prints the compiler's table (every row of
NumPyroDistributions.def and every alias such as BinomialProbs); for each,
`inspect.signature` of the NumPyro class (or function) of the same name
gives the reference. A positional argument must bind the parameter NumPyro
binds it to, a keyword must be NumPyro's name, a default NumPyro's default,
and a keyword-only parameter keyword-only. The project's own parameters
(`extension`) must be keyword-only and unknown to NumPyro, so they can never
change what a NumPyro call means. The test cannot drift: it reads NumPyro
itself, and lists every difference it finds before failing.

Run by the reference environment's python (.venv, tools/setup_venv.sh);
exits 77 (skip) when NumPyro is not installed there.
"""

import inspect
import json
import math
import os
import unittest

import reference  # noqa: F401  (NumPyro or skip)
import numpyro.distributions as dist  # noqa: E402

import aimz_e2e as E  # noqa: E402

# NumPyro's parameters that configure its implementation, not the
# distribution: the language has no counterpart and accepts none of them
# (an attempt is "no parameter" or "too many positional arguments").
IMPLEMENTATION_OPTIONS = {
    "validate_args",    # every class
    "is_sparse",        # Poisson: a JAX memory layout
    "total_count_max",  # Multinomial, DirichletMultinomial: a JAX loop bound
    "sample_method",    # LKJCholesky: 'onion' (ours) or 'cvine'
}

# Rows whose NumPyro signature is Python objects rather than values:
# ImproperUniform(support, batch_shape, event_shape) takes a constraint
# object and shapes; here `support=real|positive` is a keyword and the
# shapes are the site's `[...]` (docs/language.md, "Distributions"); MixtureGeneral's
# `support` is a constraint object (its components' support here);
# TruncatedPolyaGamma(batch_shape) has no parameters but its shape (the
# site's `[...]`).
NOT_VALUE_SIGNATURES = {"ImproperUniform", "MixtureGeneral", "TruncatedPolyaGamma"}

# PyMC's alternative parameterizations, which the PyMC rows leave out
# (a call with one is "no parameter"): precision for scale, Rice's b,
# Wald's phi.
PYMC_ALTERNATIVES = {"tau", "b", "phi"}

# numpyro.distributions classes the language leaves out by design, and
# why; a new NumPyro class outside the table, the rewritten classes and
# these lists fails test_every_numpyro_class_is_covered.
BY_DESIGN = {
    "Distribution": "the base class",
    "EulerMaruyama": "a sequential (SDE) site: no sharding plan covers it",
    "GaussianStateSpace": "a sequential (state-space) site",
    "RelaxedBernoulliLogits": "a relaxation for variational inference",
    "Unit": "numpyro.factor's carrier: the language's `factor` statement",
    "Independent": "`.to_event()`: the language's explicit shapes `Dist(...)[k]`",
    "ExpandedDistribution": "`.expand()`: the language's `Dist(...)[k]`",
}
# Not supported yet; docs/language.md's "Not yet supported" paragraph names each one,
# and a class that lands must leave this list (the test fails otherwise).
NOT_YET = set()

# NumPyro defaults of None that fail when left so: required here.
NONE_BUT_REQUIRED = {("MultivariateStudentT", "scale_tril")}

# A NumPyro default of None that means "no bound" is the infinite bound.
NONE_AS_INFINITY = {"low": "-inf", "high": "inf"}


def numpyro_parameters(name):
    obj = getattr(dist, name)
    params = []
    for p in inspect.signature(obj).parameters.values():
        if p.name == "self" or p.name in IMPLEMENTATION_OPTIONS:
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise AssertionError("%s: NumPyro's signature is %s; the test "
                                 "cannot read it" % (name,
                                                     inspect.signature(obj)))
        params.append(p)
    return params


def differences(row):
    """Every way the row differs from NumPyro's signature, as sentences."""
    name = row["name"]
    if not hasattr(dist, name):
        return ["%s: numpyro.distributions has no %s" % (name, name)]
    theirs = numpyro_parameters(name)
    ours = [p for p in row["params"] if not p["extension"]]
    out = []
    their_names = [p.name for p in theirs]
    our_names = [p["name"] for p in ours]
    if their_names != our_names:
        out.append("%s: parameters (%s) where NumPyro has (%s)" % (
            name, ", ".join(our_names), ", ".join(their_names)))
        return out
    group = set(row["exactly_one_of"])
    extensions = {p["name"] for p in row["params"] if p["extension"]}
    for t, o in zip(theirs, ours):
        kw_only = t.kind == t.KEYWORD_ONLY
        if kw_only != o["keyword_only"]:
            out.append("%s: '%s' is %s in NumPyro but %s here" % (
                name, t.name, "keyword-only" if kw_only else "positional",
                "keyword-only" if o["keyword_only"] else "positional"))
        out.extend(default_differences(name, t, o, group, extensions))
    for p in row["params"]:
        if p["extension"] and (p["name"] in their_names
                               or not p["keyword_only"]):
            out.append("%s: the project's own '%s' must be keyword-only and "
                       "not a NumPyro name" % (name, p["name"]))
    return out


def pymc_differences(row, pymc):
    """A PyMC row (`pymc` in the JSON: a class NumPyro lacks) against
    PyMC's own signature: its names, each positional one at PyMC's
    position (keyword-only where PyMC's is positional is allowed: an error
    beats another meaning), its numeric defaults, its required ones."""
    name = row["name"]
    theirs = [p for p in inspect.signature(getattr(pymc, name).dist).parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    positions = {p.name: i for i, p in enumerate(theirs)}
    out = []
    for i, o in enumerate(row["params"]):
        t = next((p for p in theirs if p.name == o["name"]), None)
        if t is None:
            out.append("%s: PyMC has no '%s'" % (name, o["name"]))
            continue
        if not o["keyword_only"] and (t.kind == t.KEYWORD_ONLY or positions[t.name] != i):
            out.append("%s: '%s' is positional %d here, PyMC's is %s" % (
                name, o["name"], i, "keyword-only" if t.kind == t.KEYWORD_ONLY
                else "positional %d" % positions[t.name]))
        if t.default is inspect.Parameter.empty and not o["required"]:
            out.append("%s: '%s' is required in PyMC" % (name, o["name"]))
        if isinstance(t.default, (int, float)) and not isinstance(t.default, bool) and (
                o["required"] or not math.isclose(float(t.default), float(o["default"]))):
            out.append("%s: '%s' defaults to %r in PyMC, %s here" % (
                name, o["name"], t.default, o["default"]))
    ours = {o["name"] for o in row["params"]}
    for t in theirs:
        if t.name not in ours and t.name not in PYMC_ALTERNATIVES and \
                t.default is inspect.Parameter.empty:
            out.append("%s: PyMC's required '%s' is missing" % (name, t.name))
    return out


def default_differences(name, t, o, group, extensions):
    required = t.default is inspect.Parameter.empty
    if required:
        # Required in NumPyro: required here, or one of a group whose other
        # members are all the project's own keywords (ZeroInflatedPoisson's
        # gate, or gate_logits=).
        alternatives = group - {o["name"]}
        if o["required"] or (o["name"] in group and alternatives
                             and alternatives <= extensions):
            return []
        return ["%s: '%s' is required in NumPyro but defaults to %s here" % (
            name, t.name, o["default"])]
    if t.default is None:
        if o["name"] in group and not o["required"] and o["default"] is None:
            return []
        if (name, t.name) in NONE_BUT_REQUIRED and o["required"]:
            return []
        if NONE_AS_INFINITY.get(t.name) == o["default"]:
            return []
        return ["%s: '%s' defaults to None in NumPyro but to %s here" % (
            name, t.name, "nothing (required)" if o["required"]
            else o["default"])]
    if o["required"] or o["default"] is None or isinstance(
            o["default"], str) or not math.isclose(float(t.default),
                                                   float(o["default"])):
        return ["%s: '%s' defaults to %r in NumPyro but to %s here" % (
            name, t.name, t.default,
            "nothing (required)" if o["required"] else o["default"])]
    return []


def catalogue_table(markdown, header):
    """The rows of the Markdown table under the line starting `header`."""
    lines = markdown.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


class Signatures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        r = E.aimzc("--list-distributions=json", check=True)
        cls.rows = json.loads(r.stdout)
        cls.markdown = E.aimzc("--list-distributions", check=True).stdout

    def test_pymc_keywords_are_pymcs_and_ours(self):
        # Each PyMC spelling is a parameter of PyMC's class, and what it is
        # renamed to a parameter of the table's distribution.
        try:
            import pymc
        except ImportError:
            self.skipTest("PyMC is not installed in the reference environment")
        ours = {r["name"]: {p["name"] for p in r["params"]} for r in self.rows}
        rows = catalogue_table(self.markdown, "| PyMC | Distribution |")
        self.assertGreater(len(rows), 20)
        found = []
        for pymc_name, target, keywords in rows:
            theirs = set(inspect.signature(
                getattr(pymc, pymc_name).dist).parameters)
            for pair in keywords.split(", "):
                k, v = [w.strip("`=") for w in pair.split(" is ")]
                if k not in theirs:
                    found.append("%s: PyMC has no '%s'" % (pymc_name, k))
                if v not in ours[target]:
                    found.append("%s: %s has no '%s'" % (pymc_name, target, v))
        self.assertEqual(found, [], "\n" + "\n".join(found))

    def test_table_is_read(self):
        names = {r["name"] for r in self.rows}
        # The table as the compiler sees it, aliases included.
        for n in ("Normal", "MultivariateNormal", "BinomialProbs",
                  "TruncatedDistribution"):
            self.assertIn(n, names)

    def test_every_row_has_numpyros_signature(self):
        found = []
        for row in self.rows:
            if row["name"] in NOT_VALUE_SIGNATURES or row["pymc"]:
                continue
            found.extend(differences(row))
        self.assertEqual(found, [], "\n" + "\n".join(found))

    def test_every_pymc_row_has_pymcs_signature(self):
        try:
            import pymc
        except ImportError:
            self.skipTest("PyMC is not installed in the reference environment")
        pymc_rows = [r for r in self.rows if r["pymc"]]
        self.assertGreaterEqual(len(pymc_rows), 9)
        found = []
        for row in pymc_rows:
            if hasattr(dist, row["name"]):
                found.append("%s: NumPyro has this class; the row must "
                             "take NumPyro's signature" % row["name"])
            found.extend(pymc_differences(row, pymc))
        self.assertEqual(found, [], "\n" + "\n".join(found))

    def test_every_numpyro_class_is_covered(self):
        ours = {r["name"] for r in self.rows}
        ours |= {row[0].strip("`").split("(")[0]
                 for row in catalogue_table(self.markdown, "| Call | Is |")}
        ours |= {"ZeroInflatedDistribution", "HurdleDistribution"}
        classes = {n for n in dir(dist) if isinstance(getattr(dist, n), type)
                   and issubclass(getattr(dist, n), dist.Distribution)}
        missing = sorted(classes - ours - set(BY_DESIGN) - NOT_YET)
        self.assertEqual(missing, [], "numpyro.distributions classes neither "
                         "supported nor listed as excluded")
        landed = sorted(NOT_YET & ours)
        self.assertEqual(landed, [], "supported now: take them off NOT_YET "
                         "and docs/language.md's list")
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               "..", "..", "..", "docs", "language.md")) as f:
            readme = f.read()
        if not NOT_YET:  # docs/language.md says so, and lists only the exclusions
            self.assertIn("Every class of `numpyro.distributions` is "
                          "supported except those left\nout by design:", readme)
            return
        start = readme.index("Not yet supported (")
        paragraph = readme[start:readme.index("\n\n", start)]
        unlisted = sorted(n for n in NOT_YET if "`%s`" % n not in paragraph)
        self.assertEqual(unlisted, [], "docs/language.md's 'Not yet supported' "
                         "paragraph must name these")

    def test_each_probs_logits_class_is_accepted(self):
        # NumPyro's *Probs / *Logits classes of every family the language
        # has are spellings of it here too.
        ours = {r["name"] for r in self.rows}
        families = {r["name"] for r in self.rows if not r["alias_of"]}
        missing = []
        for cls in dir(dist):
            for suffix in ("Probs", "Logits"):
                base = cls[:-len(suffix)]
                if cls.endswith(suffix) and base in families \
                        and cls not in ours:
                    missing.append(cls)
        self.assertEqual(missing, [], "NumPyro classes of families the "
                         "language has, not accepted: %s" % missing)


if __name__ == "__main__":
    E.main()
