// Cross-rank mistakes (SPEC §6.4, §10; docs/collective_checks.md): rank 1 passes another
// count, dtype, op or root than the others, or skips a call. Every rank must get
// WEFT_ERR_INVALID_USAGE (not a signal, not a hang: each call has a 20 s deadline) with a
// message naming rank 0's and rank 1's arguments, a collective's output untouched, and the
// world usable afterwards.
//
// Which sizes are checked is the documented policy: gloo checks every call (its plugin could
// terminate on a disagreement); other backends check collectives of at least 1 MiB, and every
// call with WEFT_CHECK_COLLECTIVES=1 (the *_checked_* launches).
#include <cstdlib>
#include <string>
#include <vector>

#include "world.hpp"

namespace conformance {
namespace {

const DLDataType kF32{kDLFloat, 32, 1}, kI32{kDLInt, 32, 1}, kI64{kDLInt, 64, 1};
constexpr int64_t kMiBFloats = (1 << 20) / 4;

std::string Env() {
  const char* v = std::getenv("WEFT_CHECK_COLLECTIVES");
  return v ? v : "";
}

std::string Backend() {
  char name[64] = {};
  size_t needed = 0;
  weft_context_backend_name(TheWorld().ctx, name, sizeof(name), &needed);
  return name;
}

bool Gloo() { return Backend() == "gloo"; }

// The element counts at which this world checks collectives: 8 (small) and 1 MiB of float32.
std::vector<int64_t> CheckedBases() {
  std::vector<int64_t> bases;
  if (Gloo() || Env() == "1") bases.push_back(8);
  if (Gloo() || Env() != "0") bases.push_back(kMiBFloats);
  return bases;
}

// NCCL matches messages in posting order, without tags: no records beside them
// (WEFT_BK_CAP_UNTAGGED_P2P).
bool PointToPointChecked() { return Gloo() || (Env() == "1" && Backend() != "nccl"); }

bool Odd() { return TheWorld().rank == 1; }

// A world of one has nobody to disagree with.
#define NEEDS_TWO_RANKS() \
  if (TheWorld().size < 2) GTEST_SKIP() << "a cross-rank mistake needs two ranks"

const weft_call_options_t* Opts() {
  static const weft_call_options_t opts = {sizeof(weft_call_options_t), 0, 20000};
  return &opts;
}

std::string N(int64_t v) { return std::to_string(v); }

// Float32 or int32 buffer of `count` elements, filled with a sentinel byte.
struct Buf {
  weft::test::Buffer<char> bytes;
  Tensor t;
  Buf(int64_t count, DLDataType dt = kF32)
      : bytes(count * dt.bits / 8 + 1, '\x5a'), t(bytes.data(), count, dt) {}
  DLTensor* get() { return t.get(); }
  bool Untouched() const {
    for (char c : bytes)
      if (c != '\x5a') return false;
    return true;
  }
};

void ExpectMismatch(weft_status_t s, const std::vector<std::string>& parts) {
  const std::string m = weft_last_error();
  ASSERT_EQ(s, WEFT_ERR_INVALID_USAGE) << weft_status_string(s) << ": " << m;
  for (const std::string& p : parts) EXPECT_NE(m.find(p), std::string::npos) << m;
}

// The world goes on after a caught mistake: an all-reduce of rank + 1 over everyone.
void ExpectUsable() {
  World& w = TheWorld();
  int64_t in = w.rank + 1, out = 0;
  Tensor ti(&in, 1, kI64), to(&out, 1, kI64);
  WEFT_OK_OR_FAIL(weft_allreduce(w.ctx, nullptr, 0, ti.get(), to.get(), WEFT_REDUCE_SUM, nullptr,
                                 Opts(), nullptr));
  EXPECT_EQ(out, int64_t{w.size} * (w.size + 1) / 2);
}

TEST(Mismatch, AllreduceCountDtypeOp) {
  NEEDS_TWO_RANKS();
  World& w = TheWorld();
  for (int64_t b : CheckedBases()) {
    const std::string head = "allreduce #";
    {
      const int64_t n = Odd() ? b + 1 : b;
      Buf in(n), out(n);
      ExpectMismatch(weft_allreduce(w.ctx, nullptr, 0, in.get(), out.get(), WEFT_REDUCE_SUM,
                                    nullptr, Opts(), nullptr),
                     {head, "rank 0 passed count " + N(b) + " float32 sum",
                      "rank 1 passed count " + N(b + 1) + " float32 sum"});
      EXPECT_TRUE(out.Untouched());
    }
    {
      Buf in(b, Odd() ? kI32 : kF32), out(b, Odd() ? kI32 : kF32);
      ExpectMismatch(weft_allreduce(w.ctx, nullptr, 0, in.get(), out.get(), WEFT_REDUCE_SUM,
                                    nullptr, Opts(), nullptr),
                     {"rank 0 passed count " + N(b) + " float32 sum",
                      "rank 1 passed count " + N(b) + " int32 sum"});
      EXPECT_TRUE(out.Untouched());
    }
    {
      Buf in(b), out(b);
      ExpectMismatch(
          weft_allreduce(w.ctx, nullptr, 0, in.get(), out.get(),
                         Odd() ? WEFT_REDUCE_MAX : WEFT_REDUCE_SUM, nullptr, Opts(), nullptr),
          {"float32 sum", "rank 1 passed count " + N(b) + " float32 max"});
      EXPECT_TRUE(out.Untouched());
    }
    ExpectUsable();
  }
}

// The same mistake through a work handle: the work fails the same way.
TEST(Mismatch, AllreduceCountAsWork) {
  NEEDS_TWO_RANKS();
  World& w = TheWorld();
  for (int64_t b : CheckedBases()) {
    const int64_t n = Odd() ? b + 1 : b;
    Buf in(n), out(n);
    weft_work_t* work = nullptr;
    WEFT_OK_OR_FAIL(weft_allreduce(w.ctx, nullptr, 0, in.get(), out.get(), WEFT_REDUCE_SUM, nullptr,
                                   Opts(), &work));
    ExpectMismatch(weft_work_wait(work, 30000), {"rank 1 passed count " + N(b + 1)});
    weft_work_release(work);
    EXPECT_TRUE(out.Untouched());
    ExpectUsable();
  }
}

TEST(Mismatch, AllgatherCountDtype) {
  NEEDS_TWO_RANKS();
  World& w = TheWorld();
  for (int64_t b : CheckedBases()) {
    {
      const int64_t n = Odd() ? b + 1 : b;
      Buf in(n), out(n * w.size);
      ExpectMismatch(
          weft_allgather(w.ctx, nullptr, 0, in.get(), out.get(), nullptr, Opts(), nullptr),
          {"allgather #", "rank 0 passed count " + N(b) + " float32",
           "rank 1 passed count " + N(b + 1) + " float32"});
      EXPECT_TRUE(out.Untouched());
    }
    {
      const DLDataType dt = Odd() ? kI32 : kF32;
      Buf in(b, dt), out(b * w.size, dt);
      ExpectMismatch(
          weft_allgather(w.ctx, nullptr, 0, in.get(), out.get(), nullptr, Opts(), nullptr),
          {"rank 0 passed count " + N(b) + " float32", "rank 1 passed count " + N(b) + " int32"});
    }
    ExpectUsable();
  }
}

// Rank 1 believes member 0 contributes one element more than member 0 says.
TEST(Mismatch, AllgathervCounts) {
  NEEDS_TWO_RANKS();
  World& w = TheWorld();
  for (int64_t b : CheckedBases()) {
    std::vector<int64_t> counts(w.size, b);
    if (Odd()) counts[0] = b + 1;
    int64_t total = 0;
    for (int64_t c : counts) total += c;
    Buf in(counts[w.rank]), out(total);
    ExpectMismatch(weft_allgatherv(w.ctx, nullptr, 0, in.get(), out.get(), counts.data(), nullptr,
                                   nullptr, Opts(), nullptr),
                   {"allgatherv #", "rank 0 passed recv_counts[0] = " + N(b),
                    "rank 1 passed recv_counts[0] = " + N(b + 1)});
    EXPECT_TRUE(out.Untouched());
    ExpectUsable();
  }
}

TEST(Mismatch, ReduceScatterCountOp) {
  NEEDS_TWO_RANKS();
  World& w = TheWorld();
  for (int64_t b : CheckedBases()) {
    {
      const int64_t n = Odd() ? b + 1 : b;
      Buf in(n * w.size), out(n);
      ExpectMismatch(weft_reduce_scatter(w.ctx, nullptr, 0, in.get(), out.get(), WEFT_REDUCE_SUM,
                                         nullptr, Opts(), nullptr),
                     {"reduce_scatter #", "rank 0 passed recv count " + N(b) + " float32 sum",
                      "rank 1 passed recv count " + N(b + 1) + " float32 sum"});
      EXPECT_TRUE(out.Untouched());
    }
    {
      Buf in(b * w.size), out(b);
      ExpectMismatch(
          weft_reduce_scatter(w.ctx, nullptr, 0, in.get(), out.get(),
                              Odd() ? WEFT_REDUCE_MIN : WEFT_REDUCE_SUM, nullptr, Opts(), nullptr),
          {"rank 1 passed recv count " + N(b) + " float32 min"});
    }
    ExpectUsable();
  }
}

TEST(Mismatch, ReduceScattervCounts) {
  NEEDS_TWO_RANKS();
  World& w = TheWorld();
  for (int64_t b : CheckedBases()) {
    std::vector<int64_t> counts(w.size, b);
    if (Odd()) counts[0] = b + 1;
    int64_t total = 0;
    for (int64_t c : counts) total += c;
    Buf in(total), out(counts[w.rank]);
    ExpectMismatch(weft_reduce_scatterv(w.ctx, nullptr, 0, in.get(), out.get(), counts.data(),
                                        WEFT_REDUCE_SUM, nullptr, Opts(), nullptr),
                   {"reduce_scatterv #", "rank 0 passed counts[0] = " + N(b),
                    "rank 1 passed counts[0] = " + N(b + 1)});
    EXPECT_TRUE(out.Untouched());
    ExpectUsable();
  }
}

TEST(Mismatch, AlltoallCountDtype) {
  NEEDS_TWO_RANKS();
  World& w = TheWorld();
  for (int64_t b : CheckedBases()) {
    {
      const int64_t n = (Odd() ? b + 1 : b) * w.size;
      Buf in(n), out(n);
      ExpectMismatch(
          weft_alltoall(w.ctx, nullptr, 0, in.get(), out.get(), nullptr, Opts(), nullptr),
          {"alltoall #", "rank 0 passed count " + N(b) + " per member float32",
           "rank 1 passed count " + N(b + 1) + " per member float32"});
      EXPECT_TRUE(out.Untouched());
    }
    {
      const DLDataType dt = Odd() ? kI32 : kF32;
      Buf in(b * w.size, dt), out(b * w.size, dt);
      ExpectMismatch(
          weft_alltoall(w.ctx, nullptr, 0, in.get(), out.get(), nullptr, Opts(), nullptr),
          {"rank 1 passed count " + N(b) + " per member int32"});
    }
    ExpectUsable();
  }
}

// Rank 0 sends one element more to rank 1 than rank 1 expects from it.
TEST(Mismatch, AlltoallvCounts) {
  NEEDS_TWO_RANKS();
  World& w = TheWorld();
  for (int64_t b : CheckedBases()) {
    std::vector<int64_t> send(w.size, b), recv(w.size, b);
    if (w.rank == 0) send[1] = b + 1;
    int64_t ns = 0;
    for (int64_t c : send) ns += c;
    Buf in(ns), out(b * w.size);
    ExpectMismatch(weft_alltoallv(w.ctx, nullptr, 0, in.get(), send.data(), nullptr, out.get(),
                                  recv.data(), nullptr, nullptr, Opts(), nullptr),
                   {"alltoallv #", "rank 0 passed send_counts[1] = " + N(b + 1),
                    "rank 1 passed recv_counts[0] = " + N(b)});
    EXPECT_TRUE(out.Untouched());
    ExpectUsable();
  }
}

TEST(Mismatch, BroadcastRootCount) {
  NEEDS_TWO_RANKS();
  World& w = TheWorld();
  for (int64_t b : CheckedBases()) {
    {
      Buf buf(b);
      ExpectMismatch(
          weft_broadcast(w.ctx, nullptr, 0, buf.get(), Odd() ? 1 : 0, nullptr, Opts(), nullptr),
          {"broadcast #", "rank 0 passed count " + N(b) + " float32 root 0",
           "rank 1 passed count " + N(b) + " float32 root 1"});
      EXPECT_TRUE(buf.Untouched());
    }
    {
      Buf buf(Odd() ? b + 1 : b);
      ExpectMismatch(weft_broadcast(w.ctx, nullptr, 0, buf.get(), 0, nullptr, Opts(), nullptr),
                     {"rank 1 passed count " + N(b + 1) + " float32 root 0"});
      EXPECT_TRUE(buf.Untouched());
    }
    ExpectUsable();
  }
}

// Rank 1 skips an all-reduce and calls the all-gather that follows it: the two calls meet
// and both fail; the program then goes on in step.
TEST(Mismatch, SkippedCall) {
  NEEDS_TWO_RANKS();
  World& w = TheWorld();
  for (int64_t b : CheckedBases()) {
    Buf in(b), gathered(b * w.size), reduced(b);
    const weft_status_t s = Odd() ? weft_allgather(w.ctx, nullptr, 0, in.get(), gathered.get(),
                                                   nullptr, Opts(), nullptr)
                                  : weft_allreduce(w.ctx, nullptr, 0, in.get(), reduced.get(),
                                                   WEFT_REDUCE_SUM, nullptr, Opts(), nullptr);
    ExpectMismatch(
        s, {"collective calls on group", "rank 0 called allreduce #", "rank 1 called allgather #"});
    EXPECT_TRUE(gathered.Untouched() && reduced.Untouched());
    ExpectUsable();
  }
}

// Rank 0 sends to rank 1, which receives another count or dtype; blocking and as work.
TEST(Mismatch, SendRecvCountDtype) {
  NEEDS_TWO_RANKS();
  World& w = TheWorld();
  if (!PointToPointChecked()) return;
  const int64_t b = 8;
  for (bool as_work : {false, true}) {
    for (bool dtype : {false, true}) {
      if (w.rank < 2) {
        const int64_t rn = dtype ? b : b + 1;  // what rank 1 receives
        const int64_t n = Odd() ? rn : b;
        Buf buf(n, Odd() && dtype ? kI32 : kF32);
        weft_work_t* work = nullptr;
        weft_work_t** wp = as_work ? &work : nullptr;
        weft_status_t s = w.rank == 0
                              ? weft_send(w.ctx, nullptr, 0, buf.get(), 1, 7, nullptr, Opts(), wp)
                              : weft_recv(w.ctx, nullptr, 0, buf.get(), 0, 7, nullptr, Opts(), wp);
        if (as_work) {
          ASSERT_EQ(s, WEFT_OK) << weft_last_error();
          s = weft_work_wait(work, 30000);
        }
        ExpectMismatch(
            s, {"message on tag 7 from rank 0 to rank 1", "rank 0 sends count " + N(b) + " float32",
                "rank 1 receives count " + N(rn) + (dtype ? " int32" : " float32")});
        if (work) weft_work_release(work);
      }
      ExpectUsable();
    }
  }
}

// A checked receive whose work is released while its records are still in flight: the
// records' memory must outlive the requests (AddressSanitizer reports it otherwise), and the
// pair's next checked messages still meet.
TEST(Mismatch, ReleasedWorkKeepsItsRecordsAlive) {
  NEEDS_TWO_RANKS();
  World& w = TheWorld();
  if (!PointToPointChecked()) return;
  static float landing[4];  // must outlive the work, as the ABI requires of user buffers
  float msg[4] = {1, 2, 3, 4}, again[4] = {};
  Tensor tl(landing, 4, kF32), tm(msg, 4, kF32), ta(again, 4, kF32);
  if (w.rank == 0) {
    weft_work_t* work = nullptr;
    WEFT_OK_OR_FAIL(weft_recv(w.ctx, nullptr, 0, tl.get(), 1, 9, nullptr, Opts(), &work));
    WEFT_OK_OR_FAIL(weft_work_release(work));
  }
  WEFT_OK_OR_FAIL(weft_barrier(w.ctx, nullptr, 0, nullptr, Opts(), nullptr));
  // The first message meets the released receive, the second the blocking one.
  for (int k = 0; k < 2 && w.rank == 1; ++k)
    WEFT_OK_OR_FAIL(weft_send(w.ctx, nullptr, 0, tm.get(), 0, 9, nullptr, Opts(), nullptr));
  if (w.rank == 0) {
    WEFT_OK_OR_FAIL(weft_recv(w.ctx, nullptr, 0, ta.get(), 1, 9, nullptr, Opts(), nullptr));
    EXPECT_EQ(again[3], 4.0f);
  }
  ExpectUsable();
}

}  // namespace
}  // namespace conformance
