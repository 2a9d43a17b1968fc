// mlp (dsl-examples/mlp.aimz: 100 -> 128 -> 128 -> 128 -> 1, ReLU,
// Bernoulli on the logit) for rstan's gqs: posterior predictive.
data {
  int<lower=0> N;
  int<lower=1> Din;
  int<lower=1> H;
  matrix[N, Din] X;
}
parameters {
  matrix[Din, H] w1;
  vector[H] b1;
  matrix[H, H] w2;
  vector[H] b2;
  matrix[H, H] w3;
  vector[H] b3;
  vector[H] w4;
  real b4;
}
generated quantities {
  int y_rep[N];
  {
    matrix[N, H] h = X * w1 + rep_matrix(b1', N);
    h = 0.5 * (h + fabs(h));
    h = h * w2 + rep_matrix(b2', N);
    h = 0.5 * (h + fabs(h));
    h = h * w3 + rep_matrix(b3', N);
    h = 0.5 * (h + fabs(h));
    y_rep = bernoulli_logit_rng(h * w4 + b4);
  }
}
