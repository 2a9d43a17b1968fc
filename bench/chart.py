#!/usr/bin/env python3
"""The benchmark's picture: wall time per workload for aimz-run and each
peer, on a log scale, the CPU named in the title.

Usage: bench/chart.py results.json chart.png

bench/harness.py calls chart() after writing results.json (where
matplotlib is installed: the venv of tools/setup_venv.sh has it).
"""

import json
import sys

# (tool, variant suffix, label): the README's summary columns.
SERIES = [("aimz-run", "devices", "aimz-run"),
          ("numpy", "as-is", "NumPy"),
          ("numpyro", "as-is", "NumPyro Predictive"),
          ("aimz-jax", "as-is", "aimz (JAX)"),
          ("pymc", "as-is", "PyMC"),
          ("stan", "as-is", "Stan gqs")]


def usable(r):
    return r.get("wall_s") and r.get("check") not in ("FAILED", "MISMATCH",
                                                      "skipped")


def bars(rows):
    """[(workload label, {series label: seconds})] in the rows' order."""
    groups = {}  # insertion-ordered
    for r in rows:
        key = "%s, n = %s" % (r["workload"], "{:,}".format(r["n"]))
        times = groups.setdefault(key, {})
        for tool, variant, label in SERIES:
            if (r["tool"] == tool and r["variant"].endswith(variant) and
                    usable(r)):
                times[label] = r["wall_s"]
    return [(k, v) for k, v in groups.items() if v]


def chart(results, out):
    """Writes the chart of a results.json's rows to `out` (a PNG); returns
    the bars drawn and the title."""
    import matplotlib
    matplotlib.use("Agg")  # no display
    import matplotlib.pyplot as plt
    groups = bars(results["rows"])
    if not groups:
        raise ValueError("no timed rows in the results")
    labels = [s[2] for s in SERIES
              if any(s[2] in g[1] for g in groups)]
    height = 0.8 / len(labels)
    fig, ax = plt.subplots(figsize=(9, 0.6 + 0.5 * len(groups) *
                                    max(2, len(labels)) / 2))
    for i, label in enumerate(labels):
        ys = [g - 0.4 + height * (i + 0.5) for g in range(len(groups))]
        xs = [grp[1].get(label, 0) for grp in groups]
        kept = [(y, x) for y, x in zip(ys, xs) if x > 0]
        ax.barh([y for y, _ in kept], [x for _, x in kept], height,
                label=label)
    ax.set_xscale("log")
    ax.set_yticks(range(len(groups)))
    ax.set_yticklabels([g[0] for g in groups])
    ax.invert_yaxis()
    ax.set_xlabel("wall time, s (log scale; median of the rounds)")
    cpu = results.get("machine", {}).get("Model name", "unknown CPU")
    cores = results.get("machine", {}).get("CPU(s)", "?")
    title = "aimz-run vs peers, %s draws (%s mode)\n%s, %s CPUs" % (
        results.get("draws", "?"), results.get("mode", "?"), cpu, cores)
    ax.set_title(title)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return groups, title


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        chart(json.load(f), argv[2])
    print("wrote %s" % argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
