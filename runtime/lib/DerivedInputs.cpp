//===- DerivedInputs.cpp - Statistics of the data, before the run ---------===//
//
// Transformed data's reductions along the observation axis (`mean(X,
// axis=0)`, `sd(t)`, `max(t)`) are computed here once, from every row of the
// input, and passed to the model after the inputs. One thread, one order
// (row by row), compensated sums in double: the same bits whatever the
// devices, batch size or MPI ranks, since every rank computes them from the
// same whole input. Inputs are memory-mapped, so a pass reads a file larger
// than memory page by page. A statistic of another expression of the data
// reduces the rows the compiled pre-pass writes (PrepassRows), in rounds:
// `sd(x - mean(x))` needs mean(x) first.
//
//===----------------------------------------------------------------------===//
#include "aimz/run/Data.h"

#include "PrepassRows.h"
#include "RunError.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

namespace aimz::run {
namespace {

/// Neumaier's compensated sum: exact to a few ulps whatever the count.
struct CompensatedSum {
  double Sum = 0, Carry = 0;
  void add(double X) {
    double T = Sum + X;
    Carry += std::fabs(Sum) >= std::fabs(X) ? (Sum - T) + X : (X - T) + Sum;
    Sum = T;
  }
  double value() const { return Sum + Carry; }
};

/// Reduces `Count` rows of `Inner` values each (C order) into Inner results.
/// `At(I)` reads element I as double.
template <typename ReadFn>
llvm::Expected<std::vector<double>>
reduce(const std::string &Op, uint64_t Count, uint64_t Inner, ReadFn At,
       const std::string &What) {
  std::vector<double> R(Inner);
  if (Count == 0)
    return error("transformed data: " + What + " reduces no element");
  auto ForEach = [&](auto Fn) {
    for (uint64_t I = 0; I < Count; ++I)
      for (uint64_t J = 0; J < Inner; ++J)
        Fn(J, At(I * Inner + J));
  };
  if (Op == "min" || Op == "max") {
    const bool Min = Op == "min";
    std::vector<bool> Seen(Inner, false);
    ForEach([&](uint64_t J, double X) {
      if (!Seen[J] || std::isnan(X) ||
          (!std::isnan(R[J]) && (Min ? X < R[J] : X > R[J])))
        R[J] = X;
      Seen[J] = true;
    });
    return R;
  }
  std::vector<CompensatedSum> S(Inner);
  if (Op == "sum" || Op == "mean" || Op == "sd") {
    ForEach([&](uint64_t J, double X) { S[J].add(X); });
    for (uint64_t J = 0; J < Inner; ++J)
      R[J] = Op == "sum" ? S[J].value() : S[J].value() / double(Count);
    if (Op != "sd")
      return R;
    // The second pass: squared deviations from the mean (no cancellation).
    if (Count < 2)
      return error("transformed data: " + What + " needs at least two "
                   "observations (the sample standard deviation divides by "
                   "N - 1)");
    std::vector<CompensatedSum> Q(Inner);
    ForEach([&](uint64_t J, double X) {
      double D = X - R[J];
      Q[J].add(D * D);
    });
    for (uint64_t J = 0; J < Inner; ++J)
      R[J] = std::sqrt(Q[J].value() / double(Count - 1));
    return R;
  }
  if (Op == "logsumexp") {
    std::vector<double> Max(Inner, -std::numeric_limits<double>::infinity());
    ForEach([&](uint64_t J, double X) {
      if (std::isnan(X) || (!std::isnan(Max[J]) && X > Max[J]))
        Max[J] = X; // NaN stays
    });
    ForEach([&](uint64_t J, double X) {
      if (std::isfinite(Max[J]))
        S[J].add(std::exp(X - Max[J]));
    });
    for (uint64_t J = 0; J < Inner; ++J)
      R[J] = std::isfinite(Max[J]) ? Max[J] + std::log(S[J].value()) : Max[J];
    return R;
  }
  return error("transformed data: unknown statistic '" + Op + "' in the "
               "model's manifest (recompile the model with this aimzc)");
}

/// An integer statistic (sum, min or max of integers, bool counting as
/// 0/1) exactly: 64-bit accumulators, an overflow refused, never through
/// double (an i64 timestamp's minimum is a value of the data).
llvm::Expected<std::vector<int64_t>>
reduceIntegers(const std::string &Op, uint64_t Count, uint64_t Inner,
               llvm::function_ref<int64_t(uint64_t)> At,
               const std::string &What, bool Wide) {
  if (Count == 0)
    return error("transformed data: " + What + " reduces no element");
  std::vector<int64_t> R(Inner, 0);
  const int64_t Lo = Wide ? std::numeric_limits<int64_t>::min() : INT32_MIN;
  const int64_t Hi = Wide ? std::numeric_limits<int64_t>::max() : INT32_MAX;
  for (uint64_t I = 0; I < Count; ++I)
    for (uint64_t J = 0; J < Inner; ++J) {
      const int64_t X = At(I * Inner + J);
      if (Op == "sum") {
        if (__builtin_add_overflow(R[J], X, &R[J]) || R[J] < Lo || R[J] > Hi)
          return error("transformed data " + What + " overflows " +
                       (Wide ? "i64" : "i32") + " (at observation " +
                       std::to_string(I) + "); declare the input as " +
                       (Wide ? "f64 to sum it as a real" : "i64"));
      } else if (I == 0 || (Op == "min" ? X < R[J] : X > R[J])) {
        R[J] = X;
      }
    }
  return R;
}

bool isIntegerType(io::DType T) {
  return T == io::DType::Int32 || T == io::DType::Int64;
}

/// The elements a statistic reduces, in row order: Count rows of Inner
/// values each (Inner = 1 over every axis), read as double or, for the
/// exact integer statistics, as integers.
struct StatisticSource {
  uint64_t Count = 0, Inner = 1;
  llvm::function_ref<double(uint64_t)> AsDouble;
  llvm::function_ref<int64_t(uint64_t)> AsInt;
};

/// Writes statistic value X as element J of P in Dv's dtype; an integer
/// beyond its dtype is an error, a non-finite float is counted.
llvm::Error storeValue(const Manifest::DerivedInput &Dv, double X,
                       uint64_t J, uint8_t *P, uint64_t &NonFinite) {
  switch (Dv.Type) {
  case io::DType::Float32: {
    float F = static_cast<float>(X);
    NonFinite += !std::isfinite(F);
    std::memcpy(P + 4 * J, &F, 4);
    return llvm::Error::success();
  }
  case io::DType::Float64:
    NonFinite += !std::isfinite(X);
    std::memcpy(P + 8 * J, &X, 8);
    return llvm::Error::success();
  case io::DType::Int32:
  case io::DType::Int64: {
    const bool Wide = Dv.Type == io::DType::Int64;
    const double Lim = Wide ? 9223372036854775807.0 : 2147483647.0;
    if (!(X >= -Lim - 1 && X <= Lim))
      return error("transformed data '" + Dv.Name + "' is " +
                   std::to_string(X) + ", beyond " + (Wide ? "i64" : "i32") +
                   "; declare the input as f64 to sum it as a real");
    if (Wide) {
      int64_t V = static_cast<int64_t>(X);
      std::memcpy(P + 8 * J, &V, 8);
    } else {
      int32_t V = static_cast<int32_t>(X);
      std::memcpy(P + 4 * J, &V, 4);
    }
    return llvm::Error::success();
  }
  default:
    return error("transformed data '" + Dv.Name + "' has an unsupported "
                 "dtype in the manifest");
  }
}

/// Dv of the elements Src gives, as an array of Dv's dtype and Shape.
llvm::Expected<HostArray> statistic(const Manifest::DerivedInput &Dv,
                                    const StatisticSource &Src,
                                    std::vector<uint64_t> Shape,
                                    DataSet &D) {
  const uint64_t Count = Src.Count, Out = Src.Inner;
  const std::string What = "'" + Dv.Name + "'";
  std::vector<double> R(Out);
  std::optional<std::vector<int64_t>> Exact;
  if (isIntegerType(Dv.Type) &&
      (Dv.Op == "sum" || Dv.Op == "min" || Dv.Op == "max")) {
    auto E = reduceIntegers(Dv.Op, Count, Out, Src.AsInt, What,
                            Dv.Type == io::DType::Int64);
    if (!E)
      return E.takeError();
    Exact = std::move(*E);
  } else {
    auto E = reduce(Dv.Op, Count, Out, Src.AsDouble, What);
    if (!E)
      return E.takeError();
    R = std::move(*E);
  }
  HostArray H;
  H.Name = Dv.Name;
  H.Type = Dv.Type;
  H.Shape = std::move(Shape);
  auto Bytes = std::make_shared<std::vector<uint8_t>>(
      std::max<uint64_t>(1, Out) * io::dtypeSize(Dv.Type));
  uint8_t *P = Bytes->data();
  uint64_t NonFinite = 0;
  for (uint64_t J = 0; J < Out; ++J) {
    if (Exact && Dv.Type == io::DType::Int64) {
      std::memcpy(P + 8 * J, &(*Exact)[J], 8);
    } else if (Exact) {
      int32_t V = static_cast<int32_t>((*Exact)[J]);
      std::memcpy(P + 4 * J, &V, 4);
    } else if (llvm::Error E = storeValue(Dv, R[J], J, P, NonFinite)) {
      return std::move(E);
    }
  }
  if (NonFinite)
    D.NonFiniteStatistics.push_back(
        "transformed data " + What + " is NaN or infinite in " +
        std::to_string(NonFinite) + " of its " + std::to_string(Out) +
        " values in " + (Dv.Type == io::DType::Float32 ? "f32" : "f64") +
        (Dv.Type == io::DType::Float32
             ? " (beyond 3.4e38: compile the model in f64)"
             : ""));
  H.Data = Bytes->data();
  H.Keep = std::shared_ptr<const void>(Bytes, Bytes->data());
  return std::move(H);
}

/// Dv, a statistic of an input (or of a view of one): read from the input.
llvm::Expected<HostArray> statisticOfInput(const Manifest &M,
                                           const Manifest::DerivedInput &Dv,
                                           DataSet &D) {
  auto It = std::find_if(M.Inputs.begin(), M.Inputs.end(),
                         [&](const ManifestArray &I) {
                           return I.Name == Dv.Input;
                         });
  if (It == M.Inputs.end())
    return error("transformed data '" + Dv.Name + "' reduces '" + Dv.Input +
                 "', which is not an input of the model");
  const HostArray &In = D.Inputs[It - M.Inputs.begin()];
  uint64_t Rows = In.Shape.empty() ? 1 : In.Shape[0];
  uint64_t Inner = 1;
  for (size_t I = 1; I < In.Shape.size(); ++I)
    Inner *= In.Shape[I];
  StatisticSource Src;
  Src.Count = Dv.AllAxes ? Rows * Inner : Rows;
  Src.Inner = Dv.AllAxes ? 1 : Inner;
  auto AsDouble = [&](uint64_t I) { return readAsDouble(In.Data, In.Type, I); };
  auto AsInt = [&](uint64_t I) { return readAsInt(In.Data, In.Type, I); };
  Src.AsDouble = AsDouble;
  Src.AsInt = AsInt;
  std::vector<uint64_t> Shape;
  if (!Dv.AllAxes && !In.Shape.empty())
    Shape.assign(In.Shape.begin() + 1, In.Shape.end());
  return statistic(Dv, Src, std::move(Shape), D);
}

/// The statistics of expressions of round Round, from the rows the
/// pre-pass computes (with every statistic of the earlier rounds known).
llvm::Error runPrepassRound(const Manifest &M, int Round, DataSet &D,
                            std::vector<std::optional<HostArray>> &Done) {
  std::vector<std::optional<HostArray>> New(Done.size());
  for (size_t I = 0; I < M.DerivedInputs.size(); ++I) {
    const Manifest::DerivedInput &Dv = M.DerivedInputs[I];
    if (Dv.ArgumentSlot < 0 || Dv.Round != Round)
      continue;
    auto Rows = PrepassRows::create(M, D, Done, Dv);
    if (!Rows)
      return Rows.takeError();
    PrepassRows &R = **Rows;
    StatisticSource Src;
    Src.Count = Dv.AllAxes ? R.rows() * R.inner() : R.rows();
    Src.Inner = Dv.AllAxes ? 1 : R.inner();
    auto AsDouble = [&](uint64_t K) { return R.asDouble(K); };
    auto AsInt = [&](uint64_t K) { return R.asInt(K); };
    Src.AsDouble = AsDouble;
    Src.AsInt = AsInt;
    std::vector<uint64_t> Shape;
    if (!Dv.AllAxes)
      Shape.assign(R.shape().begin() + 1, R.shape().end());
    auto H = statistic(Dv, Src, std::move(Shape), D);
    if (llvm::Error E = R.failure()) {
      if (!H)
        llvm::consumeError(H.takeError());
      return E;
    }
    if (!H)
      return H.takeError();
    New[I] = std::move(*H);
  }
  for (size_t I = 0; I < New.size(); ++I)
    if (New[I])
      Done[I] = std::move(New[I]);
  return llvm::Error::success();
}

} // namespace

llvm::Error addDerivedInputs(const Manifest &M, DataSet &D) {
  std::vector<std::optional<HostArray>> Done(M.DerivedInputs.size());
  int Rounds = 0;
  for (size_t I = 0; I < M.DerivedInputs.size(); ++I) {
    const Manifest::DerivedInput &Dv = M.DerivedInputs[I];
    if (Dv.ArgumentSlot >= 0) {
      Rounds = std::max(Rounds, Dv.Round + 1);
      continue;
    }
    auto H = statisticOfInput(M, Dv, D);
    if (!H)
      return H.takeError();
    Done[I] = std::move(*H);
  }
  for (int Round = 0; Round < Rounds; ++Round)
    if (llvm::Error E = runPrepassRound(M, Round, D, Done))
      return E;
  for (std::optional<HostArray> &H : Done)
    D.Inputs.push_back(std::move(*H));
  return llvm::Error::success();
}

} // namespace aimz::run
