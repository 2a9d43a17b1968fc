//===- ProgressBar.h - Batches done, throughput, ETA on stderr --*- C++ -*-===//
#ifndef AIMZ_RUN_PROGRESSBAR_H
#define AIMZ_RUN_PROGRESSBAR_H

#include <chrono>
#include <cstdint>

namespace aimz::run {

/// Draws `[#####     ] 12/40 batches  3.1e+07 pairs/s  ETA 4s` on stderr,
/// redrawn in place; silent when disabled (not a terminal, --quiet, ...).
class ProgressBar {
public:
  ProgressBar(bool Enabled, int64_t Batches, double TotalPairs);
  /// `Done` batches finished; `Pairs` draw-observation pairs in the last.
  void update(int64_t Done, double Pairs);
  void finish();

private:
  bool Enabled;
  int64_t Batches;
  double TotalPairs, PairsDone = 0;
  std::chrono::steady_clock::time_point Start;
};

} // namespace aimz::run

#endif // AIMZ_RUN_PROGRESSBAR_H
