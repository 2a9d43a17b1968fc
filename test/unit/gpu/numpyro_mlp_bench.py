"""NumPyro's Predictive on issue 6's MLP benchmark, for comparison with
aimz_gpu_bench on the same machine (run by device_check.sh on the lent H200,
whose image has JAX and NumPyro).

The model is dsl-examples/mlp.aimz (100 -> 128 -> 128 -> 128 -> 1, ReLU,
Bernoulli on the logit); the posterior is random (draws scaled by 0.1, as in
aimz_gpu_bench), X ~ N(0, 1). Predictive is vectorized over the draws
(parallel=True) and walks the observations in batches; every batch's y comes
back to host memory (np.asarray), as a store would need it. Prints
"RESULT phase=numpyro_... key=value" lines.

  python3 numpyro_mlp_bench.py [--draws 1000] [--obs 1000000]
                               [--batch-obs 16384] [--max-seconds 90]
"""

import argparse
import sys
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--draws", type=int, default=1000)
    p.add_argument("--obs", type=int, default=1_000_000)
    p.add_argument("--batch-obs", type=int, default=16384)
    p.add_argument("--max-seconds", type=float, default=90.0)
    a = p.parse_args()
    t_start = time.perf_counter()
    try:
        import numpy as np
        import jax
        import jax.numpy as jnp
        import numpyro
        import numpyro.distributions as dist
        from numpyro.infer import Predictive
    except ImportError as e:
        print(f'RESULT phase=numpyro skipped="{e}"')
        return 0
    dev = jax.devices()[0]
    print(f"RESULT phase=numpyro_setup jax={jax.__version__} "
          f"numpyro={numpyro.__version__} device=\"{dev}\" "
          f"platform={dev.platform} import_seconds={time.perf_counter() - t_start:.2f}")

    D, N, B, d, H = a.draws, a.obs, min(a.batch_obs, a.obs), 100, 128

    def model(X):
        w1 = numpyro.sample("w1", dist.Normal(0, 1).expand([d, H]).to_event(2))
        b1 = numpyro.sample("b1", dist.Normal(0, 1).expand([H]).to_event(1))
        w2 = numpyro.sample("w2", dist.Normal(0, 1).expand([H, H]).to_event(2))
        b2 = numpyro.sample("b2", dist.Normal(0, 1).expand([H]).to_event(1))
        w3 = numpyro.sample("w3", dist.Normal(0, 1).expand([H, H]).to_event(2))
        b3 = numpyro.sample("b3", dist.Normal(0, 1).expand([H]).to_event(1))
        w4 = numpyro.sample("w4", dist.Normal(0, 1).expand([H]).to_event(1))
        b4 = numpyro.sample("b4", dist.Normal(0, 1))
        h = jax.nn.relu(X @ w1 + b1)
        h = jax.nn.relu(h @ w2 + b2)
        h = jax.nn.relu(h @ w3 + b3)
        logits = h @ w4 + b4
        with numpyro.plate("obs", X.shape[0]):
            numpyro.sample("y", dist.Bernoulli(logits=logits))

    rng = np.random.default_rng(1)
    shapes = {"w1": (d, H), "b1": (H,), "w2": (H, H), "b2": (H,),
              "w3": (H, H), "b3": (H,), "w4": (H,), "b4": ()}
    post = {k: (0.1 * rng.standard_normal((D,) + s)).astype(np.float32)
            for k, s in shapes.items()}
    post = jax.device_put(post)
    X_all = rng.standard_normal((N, d), dtype=np.float32)
    pred = Predictive(model, posterior_samples=post, return_sites=["y"],
                      parallel=True)
    f = jax.jit(lambda key, X: pred(key, X)["y"])
    key = jax.random.PRNGKey(0)

    def batch(o):
        xb = X_all[o:o + B]
        if xb.shape[0] < B:  # pad the last batch: one compiled shape
            xb = np.concatenate([xb, np.zeros((B - xb.shape[0], d), np.float32)])
        return xb

    t = time.perf_counter()
    y = f(key, jnp.asarray(batch(0)))
    y.block_until_ready()
    compile_s = time.perf_counter() - t
    print(f"RESULT phase=numpyro_compile batch_obs={B} seconds={compile_s:.2f} "
          f"y_shape={tuple(y.shape)} y_dtype={y.dtype}")

    t = time.perf_counter()
    done = 0
    for i, o in enumerate(range(0, N, B)):
        y = f(jax.random.fold_in(key, i), jnp.asarray(batch(o)))
        yh = np.asarray(y)[:, :min(B, N - o)]  # to host memory
        done = o + yh.shape[1]
        if time.perf_counter() - t > a.max_seconds:
            break
    secs = time.perf_counter() - t
    full = secs * N / max(done, 1)
    tag = "_extrapolated" if done < N else ""
    print(f"RESULT phase=numpyro_main draws={D} obs_done={done} obs_total={N} "
          f"seconds={secs:.3f} full_run_seconds{tag}={full:.3f} "
          f"pairs_per_second={D * done / secs:.4g} mean_y={float(yh.mean()):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
