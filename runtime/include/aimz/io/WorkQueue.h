//===- WorkQueue.h - Bounded job queue served by worker threads -*- C++ -*-===//
//
// The pattern both background stages of the output share (compressing
// chunks, syncing them): producers submit jobs to a bounded queue, so a
// producer that outpaces the workers blocks rather than growing memory;
// worker threads run a handler on each. The first failure is kept: queued
// jobs are dropped (their destructors run), later submits fail fast, and
// drain() reports it, every time it is called.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_WORKQUEUE_H
#define AIMZ_IO_WORKQUEUE_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace aimz::io {

template <class Job> class WorkQueue {
public:
  /// Runs one job on a worker thread, concurrently with other jobs.
  using Handler = std::function<llvm::Error(Job &)>;

  /// How full the queue may get before submit() blocks.
  struct Bound {
    size_t Jobs;
    /// Whether jobs being run count against Jobs (bounding everything in
    /// flight) or only the waiting ones.
    bool CountsRunning;
  };

  explicit WorkQueue(Bound B) : Limit(B) {}
  WorkQueue(const WorkQueue &) = delete;
  WorkQueue &operator=(const WorkQueue &) = delete;
  /// Runs what is still queued (unless cancel() dropped it) and joins.
  ~WorkQueue() { stop(); }

  /// Starts Threads workers running Handle; Name says what they are for in
  /// the error when a thread cannot be started.
  llvm::Error start(unsigned Threads, Handler Handle, const llvm::Twine &Name) {
    Handle_ = std::move(Handle);
    try {
      for (unsigned I = 0; I < Threads; ++I)
        Workers.emplace_back([this] { work(); });
    } catch (const std::system_error &E) {
      stop();
      return error("cannot start " + llvm::Twine(Threads) + " " + Name +
                   " threads: " + E.what());
    }
    return llvm::Error::success();
  }

  /// Queues J, blocking while the queue is full. Fails at once, dropping J,
  /// if an earlier job failed.
  llvm::Error submit(Job J) {
    std::unique_lock<std::mutex> L(Mutex);
    NotFull.wait(L, [&] { return FirstError || !full(); });
    if (FirstError)
      return error(*FirstError);
    Queue.push_back(std::move(J));
    L.unlock();
    NotEmpty.notify_one();
    return llvm::Error::success();
  }

  /// Waits until every submitted job is done; the first failure, if any.
  llvm::Error drain() {
    std::unique_lock<std::mutex> L(Mutex);
    Idle.wait(L, [&] { return Queue.empty() && Running == 0; });
    return FirstError ? error(*FirstError) : llvm::Error::success();
  }

  /// Drops the jobs not yet started and waits for those running.
  void cancel() {
    std::deque<Job> Dropped;
    std::unique_lock<std::mutex> L(Mutex);
    Dropped.swap(Queue);
    NotFull.notify_all();
    Idle.wait(L, [&] { return Running == 0; });
    // L unlocks, then the dropped jobs are destroyed.
  }

  /// The first failure so far.
  std::optional<std::string> firstError() {
    std::lock_guard<std::mutex> L(Mutex);
    return FirstError;
  }

  unsigned threads() const { return static_cast<unsigned>(Workers.size()); }

private:
  static llvm::Error error(const llvm::Twine &Msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
  }

  bool full() const {
    return Queue.size() + (Limit.CountsRunning ? Running : 0) >= Limit.Jobs;
  }

  void stop() {
    {
      std::lock_guard<std::mutex> L(Mutex);
      Stopping = true;
    }
    NotEmpty.notify_all();
    for (std::thread &T : Workers)
      T.join();
    Workers.clear();
  }

  void work() {
    std::unique_lock<std::mutex> L(Mutex);
    while (true) {
      NotEmpty.wait(L, [&] { return Stopping || !Queue.empty(); });
      if (Queue.empty())
        return; // Stopping, and nothing left to do.
      std::optional<Job> J(std::move(Queue.front()));
      Queue.pop_front();
      ++Running;
      L.unlock();
      NotFull.notify_one();

      llvm::Error E = llvm::Error::success();
      try {
        E = Handle_(*J);
      } catch (const std::exception &X) {
        // A throwing handler (std::bad_alloc, say) must not take the
        // process down.
        E = error(llvm::Twine("a background job failed: ") + X.what());
      }
      J.reset(); // Its resources go back before anyone is woken.

      L.lock();
      --Running;
      if (E) {
        std::string Msg = llvm::toString(std::move(E));
        if (!FirstError) {
          FirstError = std::move(Msg);
          // Stop early: what is queued will not be needed.
          Queue.clear();
        }
      }
      NotFull.notify_all();
      if (Queue.empty() && Running == 0)
        Idle.notify_all();
    }
  }

  const Bound Limit;
  Handler Handle_;
  std::mutex Mutex;
  std::condition_variable NotEmpty, NotFull, Idle;
  std::deque<Job> Queue;
  size_t Running = 0;
  bool Stopping = false;
  std::optional<std::string> FirstError;
  std::vector<std::thread> Workers;
};

} // namespace aimz::io

#endif // AIMZ_IO_WORKQUEUE_H
