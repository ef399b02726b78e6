#include "api/src/checkpoint_async.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "api/src/checkpoint_write.hpp"
#include "api/src/work.hpp"
#include "checkpoint/fs.hpp"

namespace weft::api::ckpt {
namespace {

namespace ck = weft::checkpoint;
using Clock = std::chrono::steady_clock;

constexpr const char* kFailedName = "FAILED";
constexpr size_t kPoolBuffers = 2;
constexpr int64_t kDefaultTimeoutMs = 600000;

std::mutex g_pool_mu;
std::vector<std::vector<char>>& Pool() {
  static std::vector<std::vector<char>> pool;
  return pool;
}

std::string Marker(int32_t rank, const char* what) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "rank-%05d.%s", rank, what);
  return buf;
}

// Polls `done` (OK: finished, kInProgress: not yet, an error: failed) until the deadline.
template <class Fn>
Status PollUntil(Clock::time_point deadline, const std::string& what, Fn done) {
  auto nap = std::chrono::microseconds(200);
  while (true) {
    Status s = done();
    if (s.code() != Code::kInProgress) return s;
    if (Clock::now() > deadline) return Status(Code::kTimeout, "timed out waiting for " + what);
    std::this_thread::sleep_for(nap);
    nap = std::min<std::chrono::microseconds>(nap * 2, std::chrono::milliseconds(20));
  }
}

Status WriteFile(const BackgroundSave& j) {
  if (j.header.empty()) return Status::Ok();
  WEFT_ASSIGN_OR_RETURN(ck::File f, ck::File::Create(j.tmp + "/" + FileName(j.rank)));
  WEFT_RETURN_IF_ERROR(f.WriteAll(j.header.data(), j.header.size()));
  WEFT_RETURN_IF_ERROR(f.WriteAll(j.data.data(), j.data_bytes));
  WEFT_RETURN_IF_ERROR(f.Sync());
  return ck::WriteWholeFile(j.tmp + "/" + Marker(j.rank, "ok"), "");
}

// Rank 0: waits for every writer's marker, then publishes.
Status Publish(const BackgroundSave& j, Clock::time_point deadline) {
  for (int32_t r : j.writers) {
    WEFT_RETURN_IF_ERROR(PollUntil(deadline, "rank " + std::to_string(r) + "'s file", [&] {
      if (ck::Exists(j.tmp + "/" + Marker(r, "ok"))) return Status::Ok();
      const auto note = ck::ReadWholeFile(j.tmp + "/" + Marker(r, "failed"));
      if (note.ok()) return Status(Code::kSystem, "rank " + std::to_string(r) + ": " + *note);
      return Status(Code::kInProgress, "");
    }));
  }
  for (int32_t r : j.writers) WEFT_RETURN_IF_ERROR(ck::RemoveTree(j.tmp + "/" + Marker(r, "ok")));
  return Commit(j.tmp, j.path, j.overwrite, j.index);
}

// The other ranks: the checkpoint is durable once the published index carries our id.
Status AwaitPublished(const BackgroundSave& j, Clock::time_point deadline) {
  const std::string id = "\"save_id\": \"" + j.save_id + "\"";
  return PollUntil(deadline, "rank 0 to publish " + j.path, [&] {
    const auto note = ck::ReadWholeFile(j.tmp + "/" + kFailedName);
    if (note.ok()) return Status(Code::kSystem, "rank 0 failed: " + *note);
    const auto index = ck::ReadWholeFile(j.path + "/" + ck::kIndexName);
    if (index.ok() && index->find(id) != std::string::npos) return Status::Ok();
    return Status(Code::kInProgress, "");
  });
}

Status Run(const BackgroundSave& j) {
  const int64_t ms = j.timeout_ms == 0 ? kDefaultTimeoutMs : j.timeout_ms;
  const auto deadline =
      ms < 0 ? Clock::time_point::max() : Clock::now() + std::chrono::milliseconds(ms);
  Status s = WriteFile(j);
  if (!s.ok()) {
    // Best effort: rank 0 gives up at once instead of at its deadline.
    (void)ck::WriteWholeFile(j.tmp + "/" + (j.rank == 0 ? kFailedName : Marker(j.rank, "failed")),
                             s.message());
    return s;
  }
  if (j.rank != 0) return AwaitPublished(j, deadline);
  s = Publish(j, deadline);
  if (!s.ok() && ck::Exists(j.tmp))
    (void)ck::WriteWholeFile(j.tmp + "/" + kFailedName, s.message());
  return s;
}

}  // namespace

Staging::Staging(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(g_pool_mu);
    auto& pool = Pool();
    // The smallest buffer that fits, else the largest (then grown): reuse, not reallocation.
    auto pick = pool.end();
    for (auto it = pool.begin(); it != pool.end(); ++it) {
      if (pick == pool.end()) {
        pick = it;
        continue;
      }
      const bool fits = it->capacity() >= bytes, pick_fits = pick->capacity() >= bytes;
      if (fits ? (!pick_fits || it->capacity() < pick->capacity())
               : (!pick_fits && it->capacity() > pick->capacity()))
        pick = it;
    }
    if (pick != pool.end()) {
      buf_ = std::move(*pick);
      pool.erase(pick);
    }
  }
  buf_.resize(bytes);
}

Staging::~Staging() {
  if (buf_.capacity() == 0) return;
  std::lock_guard<std::mutex> lock(g_pool_mu);
  auto& pool = Pool();
  pool.push_back(std::move(buf_));
  if (pool.size() > kPoolBuffers) {
    auto smallest = std::min_element(pool.begin(), pool.end(), [](const auto& a, const auto& b) {
      return a.capacity() < b.capacity();
    });
    pool.erase(smallest);
  }
}

Status Launch(BackgroundSave job, weft_work_t** work) {
  auto state = std::make_shared<WorkState>();
  WEFT_RETURN_IF_ERROR(PublishWork(state, work));
  auto shared = std::make_shared<BackgroundSave>(std::move(job));
  // Detached: the thread owns the job and completes the work; weft_work_wait says when the
  // checkpoint is durable (see weft/checkpoint.h on exiting before that).
  try {
    std::thread([shared, state] { state->Complete(Run(*shared)); }).detach();
  } catch (const std::system_error& e) {
    state->Complete(
        Status(Code::kSystem, std::string("cannot start the save's thread: ") + e.what()));
  }
  return Status::Ok();
}

}  // namespace weft::api::ckpt
