//===- ProgressBar.cpp - Batches done, throughput, ETA on stderr ----------===//
#include "aimz/run/ProgressBar.h"

#include <cstdio>
#include <string>

namespace aimz::run {

ProgressBar::ProgressBar(bool Enabled, int64_t Batches, double TotalPairs)
    : Enabled(Enabled), Batches(Batches), TotalPairs(TotalPairs),
      Start(std::chrono::steady_clock::now()) {}

void ProgressBar::update(int64_t Done, double Pairs) {
  PairsDone += Pairs;
  if (!Enabled)
    return;
  double Secs = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - Start)
                    .count();
  double Rate = Secs > 0 ? PairsDone / Secs : 0;
  double Eta = Rate > 0 ? (TotalPairs - PairsDone) / Rate : 0;
  const int Width = 30;
  int Filled = Batches ? static_cast<int>(Width * Done / Batches) : Width;
  std::string Bar(Filled, '#');
  Bar.resize(Width, ' ');
  std::fprintf(stderr, "\r[%s] %lld/%lld batches  %.3g pairs/s  ETA %.0fs ",
               Bar.c_str(), static_cast<long long>(Done),
               static_cast<long long>(Batches), Rate, Eta);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (Enabled)
    std::fprintf(stderr, "\n");
}

} // namespace aimz::run
