//===- PrepassRows.h - The rows of a statistic's argument --------*- C++ -*-===//
//
// Transformed data's statistics of expressions (`mean(log(x))`, `X.T @ X`)
// reduce rows that the compiled pre-pass (aimz_prepass) computes from the
// data. The rows are made a block at a time, on demand, in row order, so
// a reduction streams over an input larger than memory as the statistics
// of inputs do; a second pass (sd, logsumexp) recomputes them.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_PREPASSROWS_H
#define AIMZ_RUN_PREPASSROWS_H

#include "aimz/abi.h"
#include "aimz/run/Data.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace aimz::run {

class PrepassRows {
public:
  /// The rows of Dv's argument over every observation of D; Derived holds
  /// the statistics computed so far (the others read as zeros: the pre-pass
  /// computes every argument, and a later round's are not read).
  static llvm::Expected<std::unique_ptr<PrepassRows>>
  create(const Manifest &M, const DataSet &D,
         const std::vector<std::optional<HostArray>> &Derived,
         const Manifest::DerivedInput &Dv);

  uint64_t rows() const { return Shape[0]; }
  /// Elements per row.
  uint64_t inner() const { return Inner; }
  const std::vector<uint64_t> &shape() const { return Shape; }
  /// Element I of the rows (C order), computing its block when needed;
  /// after a failed block, 0 (failure() says why).
  double asDouble(uint64_t I);
  int64_t asInt(uint64_t I);
  /// The first failure of the pre-pass, if any.
  llvm::Error failure();

private:
  PrepassRows() = default;
  const uint8_t *element(uint64_t I);
  llvm::Error compute(uint64_t Row0);

  const Manifest *M = nullptr;
  const Manifest::DerivedInput *Dv = nullptr;
  std::vector<uint64_t> Shape;
  uint64_t Inner = 1, BlockRows = 1;
  std::vector<int64_t> Dims, ResultStrides;
  std::vector<std::vector<int64_t>> InStrides;
  std::vector<HostArray> Placeholders;
  std::vector<aimz_view> Inputs, Observed, Posterior, Results;
  std::vector<uint8_t> Block, Scratch;
  uint64_t Row0 = 0, Row1 = 0; // the rows Block holds
  std::optional<llvm::Error> Failed;
};

} // namespace aimz::run

#endif // AIMZ_RUN_PREPASSROWS_H
