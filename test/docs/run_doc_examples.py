#!/usr/bin/env python3
"""Runs every shell and Python example of README.md and docs/*.md as written,
so the docs cannot drift from the code (issue 34).

Each file's fenced blocks run in document order in a scratch directory of
their own, which links the repository's top-level entries (so
`dsl-examples/linreg.aimz` and `docs/examples/uplift.aimz` resolve) and
keeps what the blocks write. The build's aimzc and aimz-run come first on
PATH and build/python is on PYTHONPATH.

- ```sh / ```bash blocks run with bash -e -o pipefail; ```console blocks
  run their `$ ` lines.
- ```python blocks run in one interpreter per file (--python, the venv's),
  sharing their names as a reader's session does; tracebacks name the
  markdown file and line.
- Every other fence must name its language (```text for output and file
  layouts, ```aimz, ```c++): an unnamed fence is an error, so no command
  can hide in a block the test does not run.
- A block that cannot run here carries the marker
  `<!-- doc-test: skip (the reason) -->` on the line before its fence; the
  summary lists each skip with its reason.
- An ```aimz block whose first line is `# PATH` of an existing file must
  be that file's model (comments aside).

Exit status: 0 when every block ran, 1 when one failed or a fence is
unnamed."""

import argparse
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

RUN = {"sh", "bash", "console", "python"}
MARKER = re.compile(r"^<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
SKIP = re.compile(r"^skip\s*\((.+)\)$")
FENCE = re.compile(r"^(`{3,})\s*([^`\s]*)\s*$")

# The interpreter behind ```python blocks: exec each block in one namespace,
# answer True/False on the pipe given in argv[1]. Output goes to the
# process's own stdout/stderr (a file the driver reads), so native code's
# messages are kept too.
PY_SERVER = r"""
import json, os, sys, traceback
resp = os.fdopen(int(sys.argv[1]), "w")
g = {"__name__": "__main__"}
for line in sys.stdin:
    req = json.loads(line)
    try:
        exec(compile(req["code"], req["file"], "exec"), g)
        ok = True
    except BaseException:
        traceback.print_exc()
        ok = False
    sys.stdout.flush()
    sys.stderr.flush()
    resp.write(json.dumps(ok) + "\n")
    resp.flush()
"""


class Block:
    def __init__(self, path, line, lang, text, marker):
        self.path, self.line, self.lang = path, line, lang
        self.text, self.marker = text, marker

    def where(self):
        return f"{self.path}:{self.line}"


def parse(path, rel):
    """The fenced blocks of one markdown file, with the marker before each."""
    blocks, errors = [], []
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        ticks, lang = m.group(1), m.group(2).lower()
        start = i + 1  # 1-based line of the fence
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != ticks:
            j += 1
        if j == len(lines):
            errors.append(f"{rel}:{start}: fence never closed")
            break
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        marker = MARKER.match(lines[k]) if k >= 0 else None
        if not lang:
            errors.append(f"{rel}:{start}: fence without a language: name it "
                          "(sh or python to run it, text for output)")
        blocks.append(Block(rel, start, lang, "\n".join(lines[i + 1:j]) + "\n",
                            marker.group(1) if marker else None))
        i = j + 1
    return blocks, errors


def model_code(text):
    """A model's lines without comments and blank lines."""
    lines = (re.sub(r"#.*", "", l).rstrip() for l in text.split("\n"))
    return [l for l in lines if l]


def check_aimz_copy(block, root):
    """An ```aimz block headed `# path` must be that file's model (comments
    may differ: the file explains more)."""
    m = re.match(r"^#\s*(\S+\.aimz)\s*$", block.text.split("\n")[0])
    if not m or not os.path.isfile(os.path.join(root, m.group(1))):
        return None
    want = open(os.path.join(root, m.group(1)), encoding="utf-8").read()
    if model_code(want) == model_code(block.text):
        return None
    return f"differs from {m.group(1)}"


def console_commands(text):
    return "\n".join(l[2:] for l in text.split("\n") if l.startswith("$ "))


class Session:
    """One markdown file's scratch directory, shell and Python interpreter."""

    def __init__(self, args, env, scratch):
        self.args, self.env, self.dir = args, env, scratch
        self.py = None
        self.log = scratch and os.path.join(scratch, ".doc-test-python.log")

    def run_shell(self, block):
        text = console_commands(block.text) if block.lang == "console" \
            else block.text
        try:
            p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", text],
                               cwd=self.dir, env=self.env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=self.args.block_timeout)
        except subprocess.TimeoutExpired as e:
            return False, (e.output or b"").decode(errors="replace") + \
                f"\n(timed out after {self.args.block_timeout} s)"
        return p.returncode == 0, p.stdout.decode(errors="replace") + \
            ("" if p.returncode == 0 else f"\n(exit status {p.returncode})")

    def run_python(self, block):
        if self.py is None:
            r, w = os.pipe()
            self.out = open(self.log, "w+b")
            self.py = subprocess.Popen(
                [self.args.python, "-u", "-c", PY_SERVER, str(w)],
                cwd=self.dir, env=self.env, stdin=subprocess.PIPE,
                stdout=self.out, stderr=subprocess.STDOUT, pass_fds=(w,))
            os.close(w)
            self.resp = os.fdopen(r)
        pos = os.path.getsize(self.log)
        # Blank lines first, so a traceback's line numbers are the file's.
        code = "\n" * block.line + block.text
        self.py.stdin.write((json.dumps({"code": code, "file": block.path})
                             + "\n").encode())
        self.py.stdin.flush()
        ready, _, _ = select.select([self.resp], [], [],
                                    self.args.block_timeout)
        line = self.resp.readline() if ready else ""
        with open(self.log, "rb") as f:
            f.seek(pos)
            out = f.read().decode(errors="replace")
        if not line:
            self.close()
            why = "timed out" if not ready else "the interpreter exited"
            return False, out + f"\n({why})"
        return json.loads(line), out

    def close(self):
        if self.py is not None:
            self.py.kill()
            self.py.wait()
            self.py = None


def scratch_for(root, build, tmp, rel):
    d = tempfile.mkdtemp(prefix=re.sub(r"\W", "_", rel) + ".", dir=tmp)
    for name in os.listdir(root):
        if name.startswith(".") or name.startswith("build"):
            continue
        os.symlink(os.path.join(root, name), os.path.join(d, name))
    # Docs name build/bin/..., build/python: this build's.
    os.symlink(build, os.path.join(d, "build"))
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True, help="the repository")
    ap.add_argument("--build", required=True, help="the build directory")
    ap.add_argument("--aimzc", required=True)
    ap.add_argument("--aimz-run", required=True)
    ap.add_argument("--python", required=True,
                    help="the interpreter of ```python blocks (the venv's)")
    ap.add_argument("--tmp", required=True, help="where scratch dirs go")
    ap.add_argument("--block-timeout", type=int, default=240)
    ap.add_argument("--keep", action="store_true",
                    help="keep the scratch directories")
    ap.add_argument("files", nargs="*",
                    help="markdown files relative to --root "
                         "(default: README.md and docs/*.md)")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    build = os.path.abspath(args.build)
    if not os.access(args.python, os.X_OK):
        print(f"skipped: no {args.python}; run tools/setup_venv.sh")
        return 77
    files = args.files or ["README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(root, "docs"))
        if f.endswith(".md"))

    env = dict(os.environ)
    bins = {os.path.dirname(os.path.abspath(args.aimzc)),
            os.path.dirname(os.path.abspath(args.aimz_run))}
    env["PATH"] = os.pathsep.join(sorted(bins) + [env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(build, "python")] +
        ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.update(PYTHONDONTWRITEBYTECODE="1", JAX_PLATFORMS="cpu")
    os.makedirs(args.tmp, exist_ok=True)

    ran, skipped, failed, other, errors = [], [], [], {}, []
    t_all = time.monotonic()
    for rel in files:
        blocks, errs = parse(os.path.join(root, rel), rel)
        errors += errs
        runnable = [b for b in blocks if b.lang in RUN]
        for b in blocks:
            if b.lang == "aimz":
                why = check_aimz_copy(b, root)
                if why:
                    errors.append(f"{b.where()}: ```aimz block {why}")
            if b.lang not in RUN:
                other[b.lang or "(none)"] = other.get(b.lang or "(none)", 0) + 1
                if b.marker:
                    errors.append(f"{b.where()}: doc-test marker on a "
                                  f"```{b.lang} block, which never runs")
        if not runnable:
            continue
        # Files whose blocks are all skipped need no scratch directory.
        if all(b.marker is not None for b in runnable):
            scratch = None
            print(f"== {rel}", flush=True)
        else:
            scratch = scratch_for(root, build, args.tmp, rel)
            print(f"== {rel} (in {scratch})", flush=True)
        session = Session(args, env, scratch)
        failed_before = len(failed)
        try:
            for b in runnable:
                if b.marker is not None:
                    m = SKIP.match(b.marker)
                    if not m:
                        errors.append(f"{b.where()}: unknown doc-test marker "
                                      f"'{b.marker}' (skip (reason))")
                        continue
                    skipped.append((b, m.group(1)))
                    print(f"  skip  {b.where()}: {m.group(1)}", flush=True)
                    continue
                t = time.monotonic()
                ok, out = (session.run_python(b) if b.lang == "python"
                           else session.run_shell(b))
                dt = time.monotonic() - t
                print(f"  {'ok  ' if ok else 'FAIL'}  {b.where()} "
                      f"({b.lang}, {dt:.1f} s)", flush=True)
                (ran if ok else failed).append(b)
                if not ok:
                    print("  --- block:")
                    print("".join("  | " + l + "\n"
                                  for l in b.text.rstrip("\n").split("\n")))
                    print("  --- output:")
                    print("\n".join("  " + l for l in
                                    out.rstrip("\n").split("\n")[-60:]))
        finally:
            session.close()
        # A failed file's directory stays, to look at.
        if scratch and not args.keep and len(failed) == failed_before:
            shutil.rmtree(scratch, ignore_errors=True)

    print(f"\nsummary: {len(ran)} ran, {len(failed)} failed, "
          f"{len(skipped)} skipped, in {time.monotonic() - t_all:.0f} s; "
          "not examples: " + (", ".join(f"{n} {k}" for k, n in
                                        sorted(other.items())) or "none"))
    for b, why in skipped:
        print(f"  skipped {b.where()} ({b.lang}): {why}")
    for b in failed:
        print(f"  FAILED  {b.where()} ({b.lang})")
    for e in errors:
        print(f"  error: {e}")
    return 1 if failed or errors else 0


if __name__ == "__main__":
    sys.exit(main())
