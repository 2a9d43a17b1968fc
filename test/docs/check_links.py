#!/usr/bin/env python3
"""Checks the links between the docs (README.md, docs/*.md,
dsl-examples/README.md), so that moving a section cannot leave a dangling
one:

- a markdown link [text](target) to a file of the checkout must name one
  that exists (relative to the page), and its #anchor, if any, a heading
  of that page (GitHub's anchors: lower case, punctuation dropped, spaces
  as hyphens);
- a path in backquotes that starts at a top-level directory of the
  checkout (`docs/cli.md`, `runtime/include/aimz/math/Folded.h`) must
  exist, unless it is a pattern or a build output (build/, *.so, ...).

Exit status 0 when every link resolves, 1 otherwise (each one listed)."""

import argparse
import glob
import os
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\s]+)`")
TOP = ("docs/", "dsl-examples/", "test/", "tools/", "bench/", "runtime/",
       "compiler/", "python/", ".ci/")
# Paths a page may name that a checkout does not hold: build outputs,
# patterns, placeholders.
GENERATED = re.compile(r"[*<>{}$]|\.\.\.|^build|/Output/|\.(so|o|zarr|npy|npz|nc|partial)$")


def anchors(path):
    """The anchors of a page's headings, as GitHub makes them."""
    out, fence = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^#{1,6}\s+(.*?)\s*$", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
            out.add(slug)
    return out


def code_spans(text):
    """Backquoted spans outside fenced blocks."""
    fence = False
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            fence = not fence
            continue
        if not fence:
            for m in CODE.finditer(line):
                yield n, m.group(1)


def check(root, rel):
    path = os.path.join(root, rel)
    text = open(path, encoding="utf-8").read()
    bad = []
    for n, line in enumerate(text.split("\n"), 1):
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-z]+:", target):
                continue  # http:, https:, mailto:
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(dest):
                bad.append("%s:%d: link to %s: no such file" % (rel, n, target))
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                bad.append("%s:%d: link to %s: no heading '%s' there" % (rel, n, target, anchor))
    for n, span in code_spans(text):
        span = span.rstrip(".,;:")
        if not span.startswith(TOP) or GENERATED.search(span):
            continue
        if not os.path.exists(os.path.join(root, span.split(":")[0])):
            bad.append("%s:%d: `%s`: no such file or directory" % (rel, n, span))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    pages = ["README.md", "dsl-examples/README.md"] + sorted(
        os.path.relpath(p, args.root) for p in glob.glob(os.path.join(args.root, "docs", "*.md")))
    bad = []
    for rel in pages:
        bad += check(args.root, rel)
    for b in bad:
        print(b)
    print("%d pages, %d broken links" % (len(pages), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
