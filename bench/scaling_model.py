#!/usr/bin/env python3
"""A generated model of a given size, for bench/compile.sh --scaling.

    bench/scaling_model.py KIND SITES > model.aimz

KIND is one of
  latent  SITES independent global latents, the first 50 summed into the
          mean of one output;
  chain   SITES global latents each centred on the one before (every site's
          value crosses into the next);
  vector  SITES global vector latents of 3 elements, the first element of
          the first 50 summed into the mean;
  det     one latent and SITES deterministic sites per observation, each
          computed from the one before (every site is written per row).
"""
import sys


def model(kind, n):
    lines = ["model big(x: f32[n]) -> (y: f32[n]) {"]
    if kind == "latent":
        lines += ["  a%d ~ Normal(0, 1);" % i for i in range(n)]
        mean = " + ".join("a%d" % i for i in range(min(n, 50)))
        lines += ["  plate obs(n) {", "    y ~ Normal((%s) * x, 1);" % mean]
    elif kind == "vector":
        lines += ["  a%d ~ Normal(0, 1)[3];" % i for i in range(n)]
        mean = " + ".join("a%d[0]" % i for i in range(min(n, 50)))
        lines += ["  plate obs(n) {", "    y ~ Normal((%s) * x, 1);" % mean]
    elif kind == "chain":
        lines.append("  a0 ~ Normal(0, 1);")
        lines += ["  a%d ~ Normal(a%d, 1);" % (i, i - 1) for i in range(1, n)]
        lines += ["  plate obs(n) {", "    y ~ Normal(a%d * x, 1);" % (n - 1)]
    elif kind == "det":
        lines += ["  a ~ Normal(0, 1);", "  plate obs(n) {",
                  "    deterministic d0 = a * x;"]
        lines += ["    deterministic d%d = d%d + a * x;" % (i, i - 1)
                  for i in range(1, n)]
        lines.append("    y ~ Normal(d%d, 1);" % (n - 1))
    else:
        sys.exit("scaling_model.py: KIND is latent, vector, chain or det")
    return "\n".join(lines + ["  }", "}"]) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.stdout.write(model(sys.argv[1], int(sys.argv[2])))
