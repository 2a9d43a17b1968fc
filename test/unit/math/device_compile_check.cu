// Compile-only portability check: instantiates every sampler and log density
// for float and double inside a CUDA kernel, with AIMZ_MATH_FN defined as
// `__host__ __device__ inline`.  Built by device_compile_check.sh (nvcc and/or
// clang CUDA); not part of aimz_math_tests.
#include "aimz/math/Math.h"
using namespace aimz::math;
template <class T>
__global__ void k(T* out, int* cnt, const T* x, unsigned long long seed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  RandomStream s(seed, 3, 0, static_cast<unsigned long long>(i), 0);
  T r = normal_sample(s, T(0), T(1)) + gamma_sample(s, T(0.5), T(2)) + beta_sample(s, T(2), T(3)) +
        student_t_sample(s, T(3), T(0), T(1)) + cauchy_sample(s, T(0), T(1)) + log_normal_sample(s, T(0), T(1)) +
        half_normal_sample(s, T(1)) + half_cauchy_sample(s, T(1)) + exponential_sample(s, T(1)) + uniform_sample(s, T(0), T(1));
  const T inf = static_cast<T>(INFINITY);
  r += truncated_normal_sample(s, T(0), T(1), T(0), inf) + truncated_cauchy_sample(s, T(0), T(1), T(-1), T(2)) +
       truncated_laplace_sample(s, T(0), T(1), -inf, T(0)) + truncated_logistic_sample(s, T(0), T(1), T(1), T(3)) +
       truncated_student_t_sample(s, T(3), T(0), T(1), T(0), inf) +
       truncated_student_t_sample_first(s, T(3), T(0), T(1), T(0), inf);
  cnt[i] = poisson_sample(s, x[i]) + binomial_sample(s, T(100), T(0.3)) + bernoulli_sample(s, T(0.2)) +
           bernoulli_logits_sample(s, T(0.2)) + binomial_logits_sample(s, T(10), T(-1));
  r += normal_log_prob(x[i], T(0), T(1)) + gamma_log_prob(x[i], T(2), T(1)) + beta_log_prob(x[i], T(2), T(2)) +
       student_t_log_prob(x[i], T(3), T(0), T(1)) + poisson_log_prob(x[i], T(3)) + binomial_log_prob(x[i], T(10), T(0.5)) +
       binomial_logits_log_prob(x[i], T(10), T(0.5)) + bernoulli_log_prob(x[i], T(0.5)) + bernoulli_logits_log_prob(x[i], T(0.5)) +
       log_normal_log_prob(x[i], T(0), T(1)) + half_normal_log_prob(x[i], T(1)) + half_cauchy_log_prob(x[i], T(1)) +
       cauchy_log_prob(x[i], T(0), T(1)) + exponential_log_prob(x[i], T(1)) + uniform_log_prob(x[i], T(0), T(1)) +
       log_gamma(x[i]) + log_beta(x[i], T(2)) + truncated_normal_log_prob(x[i], T(0), T(1), T(0), inf) +
       truncated_cauchy_log_prob(x[i], T(0), T(1), T(-1), T(2)) + truncated_laplace_log_prob(x[i], T(0), T(1), -inf, T(0)) +
       truncated_logistic_log_prob(x[i], T(0), T(1), T(1), T(3)) +
       truncated_student_t_log_prob(x[i], T(3), T(0), T(1), T(0), inf) +
       hurdle_poisson_log_prob(x[i], T(0.3), T(2)) + hurdle_negative_binomial2_log_prob(x[i], T(0.3), T(2), T(1)) +
       hurdle_gamma_log_prob(x[i], T(0.3), T(2), T(1)) + hurdle_log_normal_log_prob(x[i], T(0.3), T(0), T(1)) +
       hurdle_gamma_sample(s, T(0.3), T(2), T(1)) + hurdle_log_normal_sample(s, T(0.3), T(0), T(1));
  r += asymmetric_laplace_sample(s, T(0), T(1), T(2)) + kumaraswamy_sample(s, T(2), T(3)) +
       log_uniform_sample(s, T(1), T(2)) + beta_proportion_sample(s, T(0.3), T(4)) + chi2_sample(s, T(3)) +
       asymmetric_laplace_log_prob(x[i], T(0), T(1), T(2)) + kumaraswamy_log_prob(x[i], T(2), T(3)) +
       log_uniform_log_prob(x[i], T(1), T(2)) + beta_proportion_log_prob(x[i], T(0.3), T(4)) +
       chi2_log_prob(x[i], T(3)) + geometric_log_prob(x[i], T(0.3)) + geometric_logits_log_prob(x[i], T(-1));
  r += truncated_gamma_sample(s, T(2), T(0.1), T(1), T(80)) + truncated_gamma_log_prob(x[i], T(2), T(0.1), T(1), T(80)) +
       truncated_inverse_gamma_sample(s, T(3), T(2), T(0.5), inf) + truncated_exponential_sample(s, T(1), T(1), T(2)) +
       truncated_weibull_log_prob(x[i], T(2), T(1.5), T(0), T(3)) + truncated_gumbel_sample(s, T(0), T(1), T(2), inf) +
       truncated_pareto_log_prob(x[i], T(1), T(3), T(2), T(5)) + truncated_log_normal_sample(s, T(0), T(1), T(1), T(2)) +
       truncated_half_normal_log_prob(x[i], T(1), T(0.5), T(2)) + truncated_half_cauchy_sample(s, T(1), T(0), T(3));
  r += truncated_beta_sample(s, T(2), T(5), T(0.1), T(0.4)) + truncated_beta_log_prob(x[i], T(2), T(5), T(0), T(0.5)) +
       truncated_kumaraswamy_sample(s, T(2), T(5), T(0.1), inf) +
       truncated_kumaraswamy_log_prob(x[i], T(2), T(5), T(0), T(0.5)) +
       truncated_uniform_sample(s, T(-1), T(3), T(0), T(1)) + truncated_log_uniform_log_prob(x[i], T(1), T(9), T(2), T(3)) +
       truncated_asymmetric_laplace_sample(s, T(1), T(0.5), T(2), T(0), inf) + truncated_chi2_sample(s, T(3), T(1), T(5)) +
       truncated_beta_proportion_log_prob(x[i], T(0.3), T(10), T(0.1), T(0.4)) +
       truncated_poisson_log_prob(x[i], T(4), T(1), inf) + truncated_negativebinomial2_log_prob(x[i], T(3), T(2), T(1), inf) +
       truncated_binomial_probs_log_prob(x[i], T(20), T(0.3), T(1), T(5)) +
       censored_poisson_log_prob(x[i], T(4), T(1), T(9)) + flagged_negativebinomial2_log_prob(x[i], T(3), T(2), T(0), T(1)) +
       truncated_binomial_logits_log_prob(x[i], T(20), T(-1), T(1), T(5));
  cnt[i] += truncated_poisson_sample(s, T(4), T(1), inf) + truncated_negativebinomial2_sample(s, T(3), T(2), T(2), T(9)) +
            truncated_binomial_probs_sample(s, T(20), T(0.3), T(1), T(5)) +
            truncated_geometric_probs_sample(s, T(0.2), T(2), inf) + censored_binomial_probs_sample(s, T(20), T(0.3), T(2), T(9)) +
            truncated_binomial_logits_sample(s, T(20), T(-1), T(1), T(5));
  r += truncated_polya_gamma_sample<T>(s, NoParam{}) + truncated_polya_gamma_log_prob(x[i], NoParam{});
  cnt[i] += geometric_sample(s, T(0.3)) + geometric_logits_sample(s, x[i]);
  // Count CDFs summed term by term, in closed form, and zero-inflated.
  cnt[i] += truncated_betabinomial_sample(s, T(2), T(3), T(10), T(1), inf) +
            truncated_discreteuniform_sample(s, T(1), T(9), T(3), inf) +
            truncated_zeroinflatedpoisson_gate_sample(s, T(0.3), T(4), T(0), T(5)) +
            truncated_zeroinflatednegativebinomial2_gate_logits_sample(s, T(3), T(2), T(-1), T(0), T(5)) +
            truncated_zeroinflatedbinomial_sample(s, T(0.7), T(10), T(0.4), T(0), T(2));
  r += truncated_betabinomial_log_prob(x[i], T(2), T(3), T(10), T(1), inf) +
       truncated_zeroinflatedpoisson_gate_logits_log_prob(x[i], T(4), T(-1), T(0), T(5));
  cnt[i] += hurdle_poisson_sample(s, T(0.3), x[i]) + hurdle_negative_binomial2_sample(s, T(0.3), x[i], T(0.5));
  {
    const T p0 = T(0.3), p1 = T(2);
    const EventView<const T> a{&p0, 0, 0}, b{&p1, 0, 0};
    T pair[2];
    const EventView<T> v{pair, 0, 1};
    sine_bivariate_von_mises_sample(s, 2, v, a, a, b, b, a);
    sine_bivariate_von_mises_weighted_sample(s, 2, v, a, a, b, b, a);
    r += sine_bivariate_von_mises_log_prob(v, 2, a, a, b, b, a) +
         sine_bivariate_von_mises_weighted_log_prob(v, 2, a, a, b, b, a);
    const T skew[2] = {T(0.2), T(-0.3)};
    const EventView<const T> sk{skew, 0, 1};
    sine_skewed_sine_bivariate_von_mises_sample(s, 2, v, a, a, b, b, a, sk);
    sine_skewed_sine_bivariate_von_mises_weighted_sample(s, 2, v, a, a, b, b, a, sk);
    r += sine_skewed_sine_bivariate_von_mises_log_prob(v, 2, a, a, b, b, a, sk) +
         sine_skewed_sine_bivariate_von_mises_weighted_log_prob(v, 2, a, a, b, b, a, sk);
  }
  {
    // MatrixNormal: a 2 x 2 value (its rows passed after K), unit factors.
    const T one[4] = {T(1), T(0), T(0), T(1)};
    const EventView<const T> loc{one, 2, 1}, f{one, 2, 1};
    T m[4];
    const EventView<T> v{m, 2, 1};
    matrix_normal_sample(s, 2, 2, v, loc, f, f);
    r += matrix_normal_log_prob(v, 2, 2, loc, f, f);
  }
  out[i] = r;
}
template __global__ void k<float>(float*, int*, const float*, unsigned long long, int);
template __global__ void k<double>(double*, int*, const double*, unsigned long long, int);
