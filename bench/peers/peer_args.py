"""The command line every bench peer takes (bench/harness.py builds it)."""

import argparse

WORKLOADS = ["linreg-pred", "linreg-ll", "hier-pred", "mlp-pred", "prior"]


def parser(backends):
    p = argparse.ArgumentParser()
    p.add_argument("--backend", choices=backends, required=True)
    p.add_argument("--workload", required=True, choices=WORKLOADS)
    p.add_argument("--data-dir", required=True)
    p.add_argument("--draws", type=int, required=True)
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--spec", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--result", required=True)
    p.add_argument("--seed", type=int, default=1)
    return p
