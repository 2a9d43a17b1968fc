// hierarchical (dsl-examples/hierarchical.aimz, G = 8 groups) for rstan's
// gqs: posterior predictive with the group-index gather a[g].
data {
  int<lower=0> N;
  int<lower=1> G;
  vector[N] x;
  int<lower=1, upper=G> g[N];
}
parameters {
  real mu_a;
  real<lower=0> sigma_a;
  vector[G] a;
  real b;
  real<lower=0> sigma;
}
generated quantities {
  vector[N] y_rep = to_vector(normal_rng(a[g] + b * x, sigma));
}
