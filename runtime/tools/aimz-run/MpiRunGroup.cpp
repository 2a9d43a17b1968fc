//===- MpiRunGroup.cpp - MPI ranks sharing one run ------------------------===//
#include "MpiRunGroup.h"

// MPI's C interface only: the deprecated C++ bindings need a library of
// their own.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace aimz::run {
namespace {

class MpiRunGroup : public RunGroup {
public:
  MpiRunGroup() {
    int Provided = 0;
    // Only the run's main thread calls MPI.
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &Provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
    MPI_Comm_size(MPI_COMM_WORLD, &Size);
    // The batch counter: one int64 in rank 0's window.
    MPI_Win_allocate(Rank == 0 ? sizeof(int64_t) : 0, sizeof(int64_t),
                     MPI_INFO_NULL, MPI_COMM_WORLD, &Counter, &Win);
    if (Rank == 0) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, Win);
      *Counter = 0;
      MPI_Win_unlock(0, Win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~MpiRunGroup() override {
    MPI_Win_free(&Win);
    MPI_Finalize();
  }
  int rank() const override { return Rank; }
  int size() const override { return Size; }

  int64_t claimBatch() override {
    const int64_t One = 1;
    int64_t Got = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, Win);
    MPI_Fetch_and_op(&One, &Got, MPI_INT64_T, 0, 0, MPI_SUM, Win);
    MPI_Win_unlock(0, Win);
    return Got;
  }

  llvm::Error agree(llvm::Error Local) override {
    const bool Failed = static_cast<bool>(Local);
    std::string Msg = Failed ? llvm::toString(std::move(Local)) : "";
    // The lowest failing rank, or Size when none failed.
    int Mine = Failed ? Rank : Size, First = Size;
    MPI_Allreduce(&Mine, &First, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (First == Size)
      return llvm::Error::success();
    int Len = Rank == First ? static_cast<int>(Msg.size()) : 0;
    MPI_Bcast(&Len, 1, MPI_INT, First, MPI_COMM_WORLD);
    Msg.resize(Len);
    MPI_Bcast(Msg.data(), Len, MPI_CHAR, First, MPI_COMM_WORLD);
    if (First != 0)
      Msg = "rank " + std::to_string(First) + ": " + Msg;
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
  }

  void sumOverGroup(std::vector<int64_t> &V) override {
    MPI_Allreduce(MPI_IN_PLACE, V.data(), static_cast<int>(V.size()),
                  MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  }
  void minOverGroup(std::vector<int64_t> &V) override {
    MPI_Allreduce(MPI_IN_PLACE, V.data(), static_cast<int>(V.size()),
                  MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  }

  std::string fromRankZero(const std::string &Mine) override {
    std::string Text = Rank == 0 ? Mine : std::string();
    uint64_t Len = Text.size();
    MPI_Bcast(&Len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    Text.resize(Len);
    // MPI counts are ints: a long record goes in pieces.
    constexpr uint64_t Piece = uint64_t(1) << 30;
    for (uint64_t At = 0; At < Len; At += Piece)
      MPI_Bcast(Text.data() + At, static_cast<int>(std::min(Piece, Len - At)),
                MPI_CHAR, 0, MPI_COMM_WORLD);
    return Text;
  }

private:
  int Rank = 0, Size = 1;
  int64_t *Counter = nullptr;
  MPI_Win Win;
};

} // namespace

std::unique_ptr<RunGroup> joinMpiRun() {
  return std::make_unique<MpiRunGroup>();
}

} // namespace aimz::run
