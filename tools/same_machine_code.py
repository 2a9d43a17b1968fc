#!/usr/bin/env python3
"""Checks that two shared libraries hold the same machine code per function.

    tools/same_machine_code.py A.so B.so

Disassembles both with llvm-objdump (llvm-objdump-19 or llvm-objdump on
PATH), then compares each function's instructions with addresses, symbol
names and spacing masked (the functions lie at other addresses in the two) and
padding dropped (int3 between the linker's input sections, nop within
one: a function's code may continue after such a gap, e.g. its cold part).
The linker's PLT stubs (name@plt) are not compared. Prints a line per differing function and a summary; exits 1
when a function differs or is missing from either.
"""

import re
import shutil
import subprocess
import sys

PADDING = re.compile(r"^\s*(int3|nop[wl]?\b.*)$")


def objdump():
    for name in ("llvm-objdump-19", "llvm-objdump"):
        if shutil.which(name):
            return name
    sys.exit("same_machine_code.py: llvm-objdump not found on PATH")


def functions(path):
    """{function name: [instruction text, ...]} with addresses masked."""
    out = subprocess.run([objdump(), "-d", "--no-show-raw-insn",
                          "--no-leading-addr", path], capture_output=True,
                         text=True, check=True).stdout
    fns, cur = {}, None
    for line in out.splitlines():
        if line.startswith("Disassembly of section"):
            cur = None
            continue
        m = re.match(r"^(?:[0-9a-f]+ )?<(.+)>:$", line)
        if m:
            cur = fns.setdefault(m.group(1), [])
            continue
        if cur is None or not line.strip() or PADDING.match(line):
            continue
        line = re.sub(r"<[^>]*>", "", line)
        line = re.sub(r"0x[0-9a-f]+|\b[0-9a-f]{4,}\b", "X", line)
        # Comments are aligned after the operands, whose width varies.
        cur.append(" ".join(line.split()))
    return {name: body for name, body in fns.items()
            if not name.endswith("@plt")}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = functions(sys.argv[1]), functions(sys.argv[2])
    differ = 0
    for name in sorted(set(a) | set(b)):
        if name not in a or name not in b:
            print("only in %s: %s" % (sys.argv[2 if name in b else 1], name))
            differ += 1
        elif a[name] != b[name]:
            print("differs: %s (%d vs %d instructions)"
                  % (name, len(a[name]), len(b[name])))
            differ += 1
    print("%d functions, %d differ" % (len(set(a) | set(b)), differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
