//===- ExampleData.h - Synthetic inputs and posteriors for models ---------===//
//
// Deterministic (seeded std::mt19937_64) data for any compiled model, read
// from its manifest: floating inputs ~ N(0, 1) (positive inputs named
// "exposure" ~ U(0.5, 2)), integer inputs uniform in [0, IntHigh), and
// posterior draws for every latent site except those named in `Missing`
// (values in the site distribution's support, scaled by `Scale`).
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_TEST_MODELS_EXAMPLEDATA_H
#define AIMZ_TEST_MODELS_EXAMPLEDATA_H

#include "TestModel.h"

#include <random>
#include <set>

namespace aimz::test {

inline void fillNormal(const Array &A, std::mt19937_64 &Rng, double Scale = 1,
                       double Shift = 0) {
  std::normal_distribution<double> D(0, 1);
  for (int64_t I = 0, N = A.size(); I < N; ++I)
    A.set(I, Shift + Scale * D(Rng));
}

/// Inputs for `N` observations (C-contiguous, row 0 = observation 0).
inline std::map<std::string, Array>
makeInputs(const CompiledModel &M, const std::map<std::string, int64_t> &Dims,
           int64_t N, std::mt19937_64 &Rng, int64_t IntHigh = 8) {
  std::map<std::string, Array> In;
  for (const auto &I : M.inputs()) {
    DType T = parseDType(I.at("dtype"));
    Array A = Array::make(T, M.resolve(I.at("shape"), Dims, N));
    if (T == DType::F32 || T == DType::F64) {
      if (I.at("name") == "exposure") {
        std::uniform_real_distribution<double> U(0.5, 2);
        for (int64_t K = 0; K < A.size(); ++K)
          A.set(K, U(Rng));
      } else {
        fillNormal(A, Rng);
      }
    } else {
      std::uniform_int_distribution<int64_t> U(0, IntHigh - 1);
      for (int64_t K = 0; K < A.size(); ++K)
        A.set(K, static_cast<double>(U(Rng)));
    }
    In[I.at("name")] = A;
  }
  return In;
}

/// Posterior draws [Draws, ...site shape] for the latent sites not in
/// `Missing`.
inline std::map<std::string, Array>
makePosterior(const CompiledModel &M, const std::map<std::string, int64_t> &Dims,
              int64_t N, int64_t Draws, std::mt19937_64 &Rng,
              const std::set<std::string> &Missing, double Scale = 1) {
  std::map<std::string, Array> P;
  for (const auto &S : M.sites()) {
    if (S.at("kind") != "latent" || Missing.count(S.at("name")))
      continue;
    std::vector<int64_t> Shape = {Draws};
    for (int64_t D : M.resolve(S.at("shape"), Dims, N))
      Shape.push_back(D);
    Array A = Array::make(parseDType(S.at("dtype")), Shape);
    std::string Dist = S.value("dist", "");
    bool Positive = Dist == "HalfNormal" || Dist == "HalfCauchy" ||
                    Dist == "Exponential" || Dist == "Gamma" ||
                    Dist == "LogNormal";
    std::normal_distribution<double> D(0, 1);
    for (int64_t K = 0; K < A.size(); ++K) {
      double V = Scale * D(Rng);
      A.set(K, Positive ? 0.2 + std::fabs(V) : V);
    }
    P[S.at("name")] = A;
  }
  return P;
}

} // namespace aimz::test

#endif // AIMZ_TEST_MODELS_EXAMPLEDATA_H
