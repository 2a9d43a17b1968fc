//===- CommitQueue.cpp - Durable commits off the compressing threads ------===//

#include "CommitQueue.h"

#include "Errors.h"

#include <system_error>

using namespace llvm;

namespace aimz::io {

Expected<std::unique_ptr<CommitQueue>> CommitQueue::create(unsigned Threads,
                                                           size_t MaxPending) {
  std::unique_ptr<CommitQueue> Q(
      new CommitQueue(std::max<size_t>(1, MaxPending)));
  try {
    for (unsigned I = 0; I < std::max(1u, Threads); ++I)
      Q->Workers.emplace_back([Raw = Q.get()] { Raw->work(); });
  } catch (const std::system_error &E) {
    return ioError("cannot start " + Twine(Threads) +
                   " threads to sync the output: " + E.what());
  }
  return Q;
}

CommitQueue::~CommitQueue() {
  cancel();
  {
    std::lock_guard<std::mutex> L(Mutex);
    Stopping = true;
  }
  NotEmpty.notify_all();
  for (std::thread &T : Workers)
    T.join();
}

Error CommitQueue::failure() const { return ioError(*FirstError); }

Error CommitQueue::submit(OutputFile F, Committed Done) {
  // Start the writeback now: by the time a queue thread syncs the file,
  // most of its bytes are on the disk.
  F.startWriteback();
  std::unique_lock<std::mutex> L(Mutex);
  NotFull.wait(
      L, [&] { return FirstError || Queue.size() + Running < MaxPending; });
  if (FirstError)
    return failure();
  Queue.push_back(Job{std::move(F), std::move(Done)});
  L.unlock();
  NotEmpty.notify_one();
  return Error::success();
}

Error CommitQueue::drain() {
  std::unique_lock<std::mutex> L(Mutex);
  Idle.wait(L, [&] { return Queue.empty() && Running == 0; });
  if (FirstError)
    return failure();
  return Error::success();
}

void CommitQueue::cancel() {
  std::deque<Job> Dropped;
  std::unique_lock<std::mutex> L(Mutex);
  Dropped.swap(Queue);
  NotFull.notify_all();
  Idle.wait(L, [&] { return Running == 0; });
  // L unlocks, then Dropped's files remove their temporaries.
}

void CommitQueue::work() {
  std::unique_lock<std::mutex> L(Mutex);
  while (true) {
    NotEmpty.wait(L, [&] { return Stopping || !Queue.empty(); });
    if (Queue.empty())
      return; // Stopping, and nothing left to do.
    Job J = std::move(Queue.front());
    Queue.pop_front();
    ++Running;
    L.unlock();

    Error E = J.File.commit(/*Sync=*/true);
    if (!E && J.Done)
      J.Done();

    L.lock();
    --Running;
    if (E) {
      std::string Msg = toString(std::move(E));
      if (!FirstError) {
        FirstError = std::move(Msg);
        // The store will not be finished: drop the rest.
        Queue.clear();
      }
    }
    NotFull.notify_all();
    if (Queue.empty() && Running == 0)
      Idle.notify_all();
  }
}

} // namespace aimz::io
