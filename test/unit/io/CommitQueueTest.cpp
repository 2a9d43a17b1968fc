//===- CommitQueueTest.cpp - Synced commits on background threads ---------===//

#include "CommitQueue.h"

#include "TestUtil.h"

#include "llvm/Support/FileSystem.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace aimz::io;
using namespace aimz::io::test;
using namespace std::chrono_literals;

namespace {

OutputFile written(const std::string &Path, const std::string &Bytes) {
  auto F = OutputFile::create(Path, ".tmp");
  EXPECT_TRUE(static_cast<bool>(F)) << errorText(F);
  EXPECT_FALSE(static_cast<bool>(F->write(Bytes)));
  return std::move(*F);
}

TEST(CommitQueue, CommitsEveryFileUnderItsName) {
  TempDir Tmp;
  auto Q = CommitQueue::create(/*Threads=*/3, /*MaxPending=*/4);
  ASSERT_EXPECTED(Q);
  std::atomic<int> Done{0};
  const int N = 40;
  for (int I = 0; I < N; ++I)
    ASSERT_OK((*Q)->submit(
        written(Tmp / std::to_string(I), "chunk " + std::to_string(I)),
        [&] { ++Done; }));
  ASSERT_OK((*Q)->drain());
  EXPECT_EQ(Done.load(), N);
  std::vector<std::string> Names = listTree(Tmp.path());
  ASSERT_EQ(Names.size(), size_t(N)) << "no temporary is left";
  for (int I = 0; I < N; ++I) {
    std::vector<uint8_t> B = readFile(Tmp / std::to_string(I));
    EXPECT_EQ(std::string(B.begin(), B.end()), "chunk " + std::to_string(I));
  }
}

TEST(CommitQueue, ReportsTheFirstFailureAndRefusesMore) {
  TempDir Tmp;
  auto Q = CommitQueue::create(1, 4);
  ASSERT_EXPECTED(Q);
  OutputFile F = written(Tmp / "taken", "bytes");
  // A non-empty directory where the file should go: the rename fails.
  ASSERT_FALSE(llvm::sys::fs::create_directory(Tmp / "taken"));
  writeFile(Tmp / "taken/inside", "x");
  bool Ran = false;
  ASSERT_OK((*Q)->submit(std::move(F), [&] { Ran = true; }));
  std::string Msg = errorText((*Q)->drain());
  EXPECT_NE(Msg.find("cannot rename"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("taken"), std::string::npos) << Msg;
  EXPECT_FALSE(Ran) << "a failed commit is not reported as done";
  std::string Again =
      errorText((*Q)->submit(written(Tmp / "next", "b"), nullptr));
  EXPECT_EQ(Again, Msg);
  EXPECT_FALSE(exists(Tmp / "next"));
  // Neither temporary survives.
  EXPECT_EQ(listTree(Tmp.path()),
            (std::vector<std::string>{"taken", "taken/inside"}));
}

TEST(CommitQueue, CancelDropsWhatIsQueued) {
  TempDir Tmp;
  auto Q = CommitQueue::create(1, 8);
  ASSERT_EXPECTED(Q);
  std::mutex M;
  std::condition_variable Cv;
  bool Release = false, Started = false;
  // The first commit's callback holds the only thread, so the next files
  // stay queued.
  ASSERT_OK((*Q)->submit(written(Tmp / "first", "1"), [&] {
    std::unique_lock<std::mutex> L(M);
    Started = true;
    Cv.notify_all();
    Cv.wait(L, [&] { return Release; });
  }));
  for (int I = 0; I < 3; ++I)
    ASSERT_OK((*Q)->submit(written(Tmp / ("queued" + std::to_string(I)), "q"),
                           nullptr));
  {
    std::unique_lock<std::mutex> L(M);
    Cv.wait(L, [&] { return Started; });
  }
  std::atomic<bool> Cancelled{false};
  std::thread T([&] {
    (*Q)->cancel();
    Cancelled = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(Cancelled) << "cancel waits for the commit under way";
  {
    std::lock_guard<std::mutex> L(M);
    Release = true;
  }
  Cv.notify_all();
  T.join();
  EXPECT_EQ(listTree(Tmp.path()), std::vector<std::string>{"first"});
  ASSERT_OK((*Q)->drain());
}

} // namespace
