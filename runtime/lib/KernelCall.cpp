//===- KernelCall.cpp - One CPU call of a model's entry point -------------===//
#include "KernelCall.h"
#include "RunError.h"
#include "aimz/run/RunPlan.h"

#include <algorithm>
#include <new>
#include <string>

namespace aimz::run {

namespace {

/// Grows a device's scratch to what the kernel asked for; a size no
/// machine has (a dimension set far too large) is an error, not an
/// exception in a worker thread.
llvm::Error growScratch(std::vector<uint8_t> &Scratch, int64_t Needed,
                        unsigned Threads) {
  // Past half the memory the allocation may succeed and the first touch
  // summon the OOM killer (a joint site's N x N kernel with a large N).
  // Every device thread holds its own: the total counts, against the
  // tightest limit (a cgroup's or ulimit -v's, not only the machine's).
  const MemoryLimit Limit = memoryLimit();
  uint64_t Total = 0;
  const bool Over = Needed > 0 && __builtin_mul_overflow(
                                      static_cast<uint64_t>(Needed),
                                      uint64_t(std::max(Threads, 1u)), &Total);
  if (Needed > 0 && Limit.Bytes && (Over || Total > Limit.Bytes / 2)) {
    const uint64_t Fit = Limit.Bytes / 2 / static_cast<uint64_t>(Needed);
    return error(
        "the model's kernel needs " + std::to_string(Needed) +
        " bytes of scratch memory per device thread, " +
        std::to_string(Threads) + " thread" + (Threads == 1 ? "" : "s") +
        (Over ? " more than 2^64 bytes" : " " + std::to_string(Total) +
                                              " bytes") +
        " in all, more than half of " + Limit.What + "; " +
        (Fit >= 1 ? "--devices " + std::to_string(Fit) + " fits, or "
                  : std::string()) +
        "check the dimensions (--dim, the data, the posterior), or for a "
        "joint site (an N x N covariance) use fewer observations");
  }
  try {
    if (Needed < 0 || static_cast<uint64_t>(Needed) > Scratch.max_size())
      throw std::bad_alloc();
    Scratch.resize(static_cast<size_t>(Needed));
  } catch (const std::bad_alloc &) {
    return error("the model's kernel needs " + std::to_string(Needed) +
                 " bytes of scratch memory per device, more than can be "
                 "allocated; check the dimensions (--dim, the data, the "
                 "posterior)");
  }
  return llvm::Error::success();
}

/// The message of a kernel's status other than AIMZ_OK.
llvm::Error kernelFailure(int32_t RC, const aimz_call &C,
                          int64_t Observations) {
  const int64_t Ob0 = C.obs_begin, Ob1 = C.obs_end;
  if (RC == AIMZ_INDEX_OUT_OF_RANGE)
    return error("an index computed by the model is outside its "
                 "dimension (observations " + std::to_string(Ob0) +
                 ".." + std::to_string(Ob1 - 1) +
                 "; indices count from 0 and negative ones are not "
                 "wrapped around); check the index expressions and "
                 "their inputs");
  if (RC == AIMZ_NEEDS_ALL_OBSERVATIONS)
    return error("internal error: the model has a joint site but was "
                 "called over observations " + std::to_string(Ob0) +
                 ".." + std::to_string(Ob1 - 1) + " of " +
                 std::to_string(Observations));
  return error("the model's kernel failed with status " +
               std::to_string(RC));
}

} // namespace

llvm::Error callKernel(EntryFn Entry, aimz_call &C,
                       std::vector<uint8_t> &Scratch, int64_t Observations,
                       unsigned Threads) {
  C.scratch = Scratch.data();
  C.scratch_bytes = static_cast<int64_t>(Scratch.size());
  int32_t RC = Entry(&C);
  if (RC == AIMZ_SCRATCH_TOO_SMALL) {
    if (llvm::Error E = growScratch(Scratch, C.scratch_needed, Threads))
      return E;
    C.scratch = Scratch.data();
    C.scratch_bytes = C.scratch_needed;
    RC = Entry(&C);
  }
  if (RC != AIMZ_OK)
    return kernelFailure(RC, C, Observations);
  return llvm::Error::success();
}

} // namespace aimz::run
