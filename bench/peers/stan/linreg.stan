// linreg (dsl-examples/linreg.aimz) for rstan's gqs: posterior predictive
// (ll = 0) or pointwise log-likelihood (ll = 1) of the same posterior draws.
data {
  int<lower=0> N;
  int<lower=0> K;
  matrix[N, K] X;
  vector[N] y;
  int<lower=0, upper=1> ll;
}
parameters {
  real alpha;
  vector[K] beta;
  real<lower=0> sigma;
}
generated quantities {
  vector[ll ? 0 : N] y_rep;
  vector[ll ? N : 0] log_lik;
  {
    vector[N] mu = alpha + X * beta;
    if (ll) {
      for (i in 1:N) log_lik[i] = normal_lpdf(y[i] | mu[i], sigma);
    } else {
      y_rep = to_vector(normal_rng(mu, sigma));
    }
  }
}
