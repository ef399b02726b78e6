// Pipes (backends/ucx/transport/pipes.hpp): messages of single-copy size between ranks of one host
// copied through a ring of shared memory. Values are formulas of (sender, message, index);
// faults are real (a rank stops progressing, cancels, or kills itself).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "file_store.hpp"
#include "forked_ranks.hpp"
#include "helpers.hpp"

namespace weft::test::ucx {
namespace {

constexpr uint64_t kRing = 1 << 20;     // pipes.hpp's kPipeRingBytes
constexpr uint64_t kChunk = 128 << 10;  // pipes.hpp's kPipeChunkBytes

// A token each way: afterwards each rank knows the other one connected to it, and so mapped
// its pipes (a sender uses pipes only towards receivers that did; before, single copy).
std::string Handshake(Rank& r) {
  const weft_backend_plugin_t& t = *r.plugin;
  const weft_bk_op_t op = r.Op();
  int32_t out = r.rank, in = -1;
  weft_bk_request_t* q = nullptr;
  weft_status_t s;
  if ((s = t.recv(r.comm, &in, 1, kI32, 1 - r.rank, 20, &op, &q))) return Err("recv", s);
  if ((s = t.send(r.comm, &out, 1, kI32, 1 - r.rank, 20, &op, nullptr))) return Err("send", s);
  if ((s = t.request_wait(q, -1))) return Err("handshake", s);
  t.request_free(q);
  return in == 1 - r.rank ? "" : "the handshake's token is wrong";
}

// Rank 0 says it posted its send (whose first ring-full is in the pipe by then); rank 1 waits
// for that before posting its receive, so nothing drains while rank 0 posts.
std::string Posted(Rank& r, int64_t tag) {
  const weft_bk_op_t op = r.Op();
  int32_t token = 7;
  const weft_status_t s = r.rank == 0
                              ? r.plugin->send(r.comm, &token, 1, kI32, 1, tag, &op, nullptr)
                              : r.plugin->recv(r.comm, &token, 1, kI32, 0, tag, &op, nullptr);
  return s == WEFT_OK ? "" : Err("the posted token", s);
}

// More than a pipe's ring: such a send needs both sides running (pipes.hpp).
constexpr size_t kLargerThanRing = 3 << 20;

// Rank 0's opening of the tests of a send that ends early: a message of 'a's larger than the
// ring, sent to rank 1 under `tag` as a request (*q), then announced under `posted_tag` once
// the call returned (the ring is full by then).
std::string PostLargeSend(Rank& r, std::vector<char>* a, int64_t tag, int64_t posted_tag,
                          weft_bk_request_t** q) {
  const weft_bk_op_t op = r.Op();
  a->assign(kLargerThanRing, 'a');
  const weft_status_t s = r.plugin->send(r.comm, a->data(), a->size(), kU8, 1, tag, &op, q);
  if (s != WEFT_OK) return Err("send", s);
  return Posted(r, posted_tag);
}

char Value(int32_t from, size_t k, size_t i) {
  return static_cast<char>((k * 131 + i * 7 + static_cast<size_t>(from) * 3) % 251);
}

// One message of every interesting size each way at once (around the chunk and the ring, over
// the pipes' limit: single copy), then a strided one each way (rows of a matrix into columns of
// another), then more messages in flight than a rank has channels (the rest go by single
// copy), all on one tag: every byte lands, in order, and the bytes around a strided receive
// keep their value.
std::string BothWays(Rank& r) {
  const weft_backend_plugin_t& t = *r.plugin;
  const weft_bk_op_t op = r.Op();
  const int32_t peer = 1 - r.rank;
  weft_status_t s;
  if (std::string e = Handshake(r); !e.empty()) return e;
  std::vector<size_t> sizes = {8 << 10, kChunk - 1, kChunk + 1,    100000,    kRing - 1,
                               kRing,   kRing + 1,  (2 << 20) + 3, (4 << 20), (4 << 20) + 1};
  for (int i = 0; i < 40; ++i) sizes.push_back(64 << 10);
  std::vector<std::vector<char>> out(sizes.size()), in(sizes.size());
  std::vector<weft_bk_request_t*> q;
  for (size_t k = 0; k < sizes.size(); ++k) {
    out[k].resize(sizes[k]);
    in[k].assign(sizes[k], 0);
    for (size_t i = 0; i < sizes[k]; ++i) out[k][i] = Value(r.rank, k, i);
  }
  for (size_t k = 0; k < sizes.size(); ++k) {
    weft_bk_request_t* x = nullptr;
    if ((s = t.recv(r.comm, in[k].data(), sizes[k], kU8, peer, 21, &op, &x)))
      return Err("receive", s);
    q.push_back(x);
    if ((s = t.send(r.comm, out[k].data(), sizes[k], kU8, peer, 21, &op, &x)))
      return Err("send", s);
    q.push_back(x);
  }
  for (weft_bk_request_t* x : q) {
    if ((s = t.request_wait(x, -1))) return Err("wait", s);
    t.request_free(x);
  }
  for (size_t k = 0; k < sizes.size(); ++k)
    for (size_t i = 0; i < sizes[k]; ++i)
      if (in[k][i] != Value(peer, k, i))
        return "message " + std::to_string(k) + " (" + std::to_string(sizes[k]) + " bytes) byte " +
               std::to_string(i) + " is wrong";
  // Strided both sides: 600 rows of 1 KiB + 4 bytes out of rows of 2 KiB, into rows of 3 KiB.
  const uint64_t rows = 600, cols = 257;
  auto element = [](int32_t from, uint64_t i, uint64_t j) {
    return static_cast<int32_t>(from * 1000003 + i * 997 + j);
  };
  std::vector<int32_t> a(rows * 512), b(rows * 768, -1);
  for (uint64_t i = 0; i < rows; ++i)
    for (uint64_t j = 0; j < cols; ++j) a[i * 512 + 3 + j] = element(r.rank, i, j);
  const weft_bk_strided_t src = Int32Rows(rows, cols, 512), dst = Int32Rows(rows, cols, 768);
  weft_bk_request_t *rq = nullptr, *sq = nullptr;
  if ((s = t.recv_strided(r.comm, b.data() + 5, &dst, peer, 22, &op, &rq)))
    return Err("strided receive", s);
  if ((s = t.send_strided(r.comm, a.data() + 3, &src, peer, 22, &op, &sq)))
    return Err("strided send", s);
  if ((s = t.request_wait(rq, -1))) return Err("wait for the strided receive", s);
  if ((s = t.request_wait(sq, -1))) return Err("wait for the strided send", s);
  t.request_free(rq);
  t.request_free(sq);
  for (uint64_t i = 0; i < rows; ++i)
    for (uint64_t j = 0; j < 768; ++j) {
      const int32_t want = j >= 5 && j < 5 + cols ? element(peer, i, j - 5) : -1;
      if (b[i * 768 + j] != want)
        return "strided: row " + std::to_string(i) + " col " + std::to_string(j) + " is wrong";
    }
  if (!FileStoreHost::Logged("through pipes")) return "no message went through a pipe";
  return "";
}

TEST(UcxPipes, MessagesCrossBothWaysAtOnceExactly) { ExpectAllOk(RunRanks(2, BothWays)); }

// With more ranks than CPUs (no polling budget) only messages that fit the ring take a pipe:
// the sender fills it at once and nobody waits for a partner to run.
TEST(UcxPipes, WithoutACpuPerRankOnlyMessagesThatFitTheRingTakeAPipe) {
  ScopedEnv spin("WEFT_UCX_SPIN_US", "0");
  ExpectAllOk(RunRanks(2, BothWays));
}

// With the way measured (the default outside these tests: backends/ucx/transport/path_choice.hpp),
// messages of one kind go by single copy and through pipes in turn while both ways are
// measured, and afterwards by whichever cost less: both ways are used whatever this machine
// is like, and every message arrives exactly.
TEST(UcxPipes, MeasuredWaysUseBothAndMessagesStillArrive) {
  ScopedEnv adapt("WEFT_UCX_PIPE_ADAPT", "1");
  ExpectAllOk(RunRanks(2, [](Rank& r) -> std::string {
    if (std::string e = Handshake(r); !e.empty()) return e;  // pipes mapped both ways
    const weft_backend_plugin_t& t = *r.plugin;
    const weft_bk_op_t op = r.Op();
    const int32_t peer = 1 - r.rank;
    const size_t n = 96 << 10;
    std::vector<char> out(n), in(n);
    for (size_t k = 0; k < 64; ++k) {  // one at a time each way: each sample back before the next
      for (size_t i = 0; i < n; ++i) out[i] = Value(r.rank, k, i);
      weft_bk_request_t* q = nullptr;
      weft_status_t s;
      if ((s = t.recv(r.comm, in.data(), n, kU8, peer, 23, &op, &q))) return Err("receive", s);
      if ((s = t.send(r.comm, out.data(), n, kU8, peer, 23, &op, nullptr))) return Err("send", s);
      if ((s = t.request_wait(q, -1))) return Err("wait", s);
      t.request_free(q);
      for (size_t i = 0; i < n; ++i)
        if (in[i] != Value(peer, k, i))
          return "message " + std::to_string(k) + " byte " + std::to_string(i) + " is wrong";
    }
    const std::string me = std::to_string(r.rank), other = std::to_string(peer);
    if (!FileStoreHost::Logged("rank " + me + " sends messages to rank " + other +
                               " through pipes"))
      return "no message went through a pipe";
    if (!FileStoreHost::Logged("rank " + me + " reads messages of rank " + other))
      return "no message went by single copy";
    // Both ways measured (the Acks' read times and the pipes' copy times came back), so the
    // choice for these messages was made.
    if (!FileStoreHost::Logged("rank " + me + " now sends messages like this one of " +
                               std::to_string(n) + " bytes to rank " + other))
      return "the way of " + std::to_string(n) + "-byte messages was never decided";
    return BothWays(r);  // every size, strided, more in flight than channels
  }));
}

// Strided messages with a CPU per rank skip the measured choice: every one goes through a pipe
// (state_pipes.cpp says why), none by single copy, and each lands exactly.
TEST(UcxPipes, StridedMessagesWithACpuPerRankAlwaysTakeAPipe) {
  ScopedEnv adapt("WEFT_UCX_PIPE_ADAPT", "1");
  ExpectAllOk(RunRanks(2, [](Rank& r) -> std::string {
    if (std::string e = Handshake(r); !e.empty()) return e;  // pipes mapped both ways
    const weft_backend_plugin_t& t = *r.plugin;
    const weft_bk_op_t op = r.Op();
    const int32_t peer = 1 - r.rank;
    const uint64_t rows = 300, cols = 256;  // 300 KiB in 1 KiB rows out of 2 KiB ones
    const weft_bk_strided_t src = Int32Rows(rows, cols, 512);
    std::vector<int32_t> a(rows * 512), b(rows * cols);
    for (size_t k = 0; k < 24; ++k) {
      for (uint64_t i = 0; i < rows * 512; ++i) a[i] = static_cast<int32_t>(Value(r.rank, k, i));
      weft_bk_request_t* q = nullptr;
      weft_status_t s;
      if ((s = t.recv(r.comm, b.data(), rows * cols, kI32, peer, 24, &op, &q)))
        return Err("receive", s);
      if ((s = t.send_strided(r.comm, a.data(), &src, peer, 24, &op, nullptr)))
        return Err("strided send", s);
      if ((s = t.request_wait(q, -1))) return Err("wait", s);
      t.request_free(q);
      for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t j = 0; j < cols; ++j)
          if (b[i * cols + j] != static_cast<int32_t>(Value(peer, k, i * 512 + j)))
            return "message " + std::to_string(k) + " row " + std::to_string(i) + " col " +
                   std::to_string(j) + " is wrong";
    }
    const std::string me = std::to_string(r.rank), other = std::to_string(peer);
    if (!FileStoreHost::Logged("rank " + me + " sends messages to rank " + other +
                               " through pipes"))
      return "no message went through a pipe";
    if (FileStoreHost::Logged("rank " + other + " reads messages of rank " + me) ||
        FileStoreHost::Logged("rank " + me + " writes messages into buffers rank " + other))
      return "a strided message went by single copy";
    return "";
  }));
}

// A receive that ends (its deadline) while attached to a pipe whose sender does not progress:
// nothing lands in its buffer afterwards, the sender's send fails, and the channels work on.
TEST(UcxPipes, AReceiveThatEndsWhileAttachedFailsTheSenderAndWritesNothingLater) {
  ExpectAllOk(RunRanks(2, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    const weft_bk_op_t op = r.Op();
    weft_status_t s;
    if (std::string e = Handshake(r); !e.empty()) return e;
    const size_t n = kLargerThanRing;
    if (r.rank == 0) {
      std::vector<char> a;
      weft_bk_request_t* q = nullptr;
      if (std::string e = PostLargeSend(r, &a, 31, 36, &q); !e.empty()) return e;
      std::this_thread::sleep_for(std::chrono::milliseconds(800));  // the receive gives up
      s = t.request_wait(q, -1);
      t.request_free(q);
      if (s == WEFT_OK) return "the send succeeded although the receive timed out";
    }
    if (r.rank == 1) {
      std::vector<char> b(n, 0);
      // Posted once rank 0's send filled the ring and returned (a receiver draining while the
      // sender posts would take the whole message then).
      if (std::string e = Posted(r, 36); !e.empty()) return e;
      const weft_bk_op_t short_op = r.Op(300);
      s = t.recv(r.comm, b.data(), n, kU8, 0, 31, &short_op, nullptr);
      if (s != WEFT_ERR_TIMEOUT) return Err("receive with a 300 ms deadline", s);
      const std::vector<char> seen = b;
      std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // rank 0 progresses
      int32_t token = 0;
      if ((s = t.recv(r.comm, &token, 1, kI32, 0, 32, &op, nullptr))) return Err("recv", s);
      if (b != seen) return "the buffer changed after the receive ended";
      size_t landed = 0;
      for (char c : b) landed += c == 'a';
      if (landed == 0) return "the receive never attached (nothing arrived before the deadline)";
    } else {
      int32_t token = 1;
      if ((s = t.send(r.comm, &token, 1, kI32, 1, 32, &op, nullptr))) return Err("send", s);
    }
    return BothWays(r);
  }));
}

// A send through a pipe whose deadline passes before its receive is posted withdraws the
// message with how it ended: the receive that matches its descriptor later finds the channel
// taken back and fails with TIMEOUT too (the same call timed out on the other side, SPEC §10),
// not with an ABORTED that would hide the deadline.
TEST(UcxPipes, ASendPastItsDeadlineFailsTheLateReceiveWithTimeout) {
  ExpectAllOk(RunRanks(2, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    weft_status_t s;
    if (std::string e = Handshake(r); !e.empty()) return e;
    const size_t n = 64 << 10;  // fits the ring: in the pipe when the send returns
    if (r.rank == 0) {
      std::vector<char> a(n, 'a');
      const weft_bk_op_t short_op = r.Op(200);
      s = t.send(r.comm, a.data(), n, kU8, 1, 35, &short_op, nullptr);
      if (s != WEFT_ERR_TIMEOUT) return Err("send with a 200 ms deadline", s);
      return Posted(r, 38);  // rank 1 posts its receive only now
    }
    if (std::string e = Posted(r, 38); !e.empty()) return e;
    std::vector<char> b(n, 0);
    const weft_bk_op_t op = r.Op();
    s = t.recv(r.comm, b.data(), n, kU8, 0, 35, &op, nullptr);
    if (s != WEFT_ERR_TIMEOUT) return Err("receive of the withdrawn message", s);
    if (FileStoreHost::LastError().find("withdrew") == std::string::npos)
      return "unexpected message: " + FileStoreHost::LastError();
    return "";
  }));
}

// A sender that cancels its send while the receiver is attached: the receive fails with
// ABORTED saying so, and the next message goes through.
TEST(UcxPipes, ASenderThatCancelsFailsTheAttachedReceive) {
  ExpectAllOk(RunRanks(2, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    const weft_bk_op_t op = r.Op();
    weft_status_t s;
    if (std::string e = Handshake(r); !e.empty()) return e;
    const size_t n = kLargerThanRing;
    if (r.rank == 0) {
      std::vector<char> a;
      weft_bk_request_t* q = nullptr;
      if (std::string e = PostLargeSend(r, &a, 33, 37, &q); !e.empty()) return e;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // rank 1 attaches, drains
      if ((s = t.request_cancel(q))) return Err("cancel", s);
      s = t.request_wait(q, -1);
      t.request_free(q);
      if (s != WEFT_ERR_ABORTED) return Err("the cancelled send", s);
      std::vector<char> next(n, 'n');
      if ((s = t.send(r.comm, next.data(), n, kU8, 1, 34, &op, nullptr))) return Err("send", s);
      return "";
    }
    std::vector<char> b(n, 0);
    if (std::string e = Posted(r, 37); !e.empty()) return e;
    const auto t0 = Clock::now();
    s = t.recv(r.comm, b.data(), n, kU8, 0, 33, &op, nullptr);
    if (s != WEFT_ERR_ABORTED) return Err("receive of the cancelled message", s);
    if (FileStoreHost::LastError().find("withdrew") == std::string::npos)
      return "unexpected message: " + FileStoreHost::LastError();
    if (Since(t0) > 2.0) return "noticed after " + std::to_string(Since(t0)) + " s";
    if ((s = t.recv(r.comm, b.data(), n, kU8, 0, 34, &op, nullptr))) return Err("receive", s);
    for (size_t i = 0; i < n; ++i)
      if (b[i] != 'n') return "byte " + std::to_string(i) + " of the next message is wrong";
    return "";
  }));
}

// A receiver that dies while attached: the sender, whose ring is full, fails with
// PEER_FAILURE naming it within the keepalive's time.
TEST(UcxPipes, AReceiverKilledWhileAttachedFailsTheSender) {
  const auto results = RunRanks(2, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    const weft_bk_op_t op = r.Op(15000);
    weft_status_t s;
    if (std::string e = Handshake(r); !e.empty()) return e;
    const size_t n = 4 << 20;
    if (r.rank == 1) {
      std::vector<char> b(n, 0);
      weft_bk_request_t* q = nullptr;
      if (std::string e = Posted(r, 38); !e.empty()) return e;
      if ((s = t.recv(r.comm, b.data(), n, kU8, 0, 35, &op, &q))) return Err("recv", s);
      const auto t0 = Clock::now();
      int32_t done = 0;
      while (Since(t0) < 0.3) (void)t.request_test(q, &done);  // attach and drain
      if (done) return "the receive completed although rank 0 stopped progressing";
      raise(SIGKILL);
    }
    std::vector<char> a(n, 'a');
    weft_bk_request_t* q = nullptr;
    if ((s = t.send(r.comm, a.data(), n, kU8, 1, 35, &op, &q))) return Err("send", s);
    if (std::string e = Posted(r, 38); !e.empty()) return e;
    return SendFailsWhenRankOneDies(t, q, 600);  // rank 1 drains, then dies
  });
  ExpectRankOneKilled(results);
}

}  // namespace
}  // namespace weft::test::ucx
