// Data movement: gathers, all-to-alls, broadcast, barrier and point-to-point for every dtype,
// with uneven counts including zeros; every byte checked against a formula of its origin.
#include <numeric>
#include <vector>

#include "values.hpp"
#include "world.hpp"

namespace conformance {
namespace {

// The element that rank `src` contributes at its local index i (destined for `dst`).
void Put(const Type& t, char* p, int32_t src, int64_t i, int32_t dst = 0) {
  Encode(t, p, double((src * 31 + i * 7 + dst * 3) % 100), double(i % 5));
}

bool Is(const Type& t, const char* p, int32_t src, int64_t i, int32_t dst = 0) {
  weft::test::Buffer<char> want(t.bytes());
  Put(t, want.data(), src, i, dst);
  return std::memcmp(want.data(), p, t.bytes()) == 0;
}

TEST(Movement, AllgatherEveryDtype) {
  World& w = TheWorld();
  const int64_t n = 5;
  for (const Type& t : AllTypes()) {
    weft::test::Buffer<char> in(n * t.bytes()), out(n * w.size * t.bytes());
    for (int64_t i = 0; i < n; ++i) Put(t, in.data() + i * t.bytes(), w.rank, i);
    Tensor ti(in.data(), n, t.dl), to(out.data(), n * w.size, t.dl);
    WEFT_OK_OR_FAIL(
        weft_allgather(w.ctx, nullptr, 0, ti.get(), to.get(), nullptr, nullptr, nullptr));
    for (int32_t r = 0; r < w.size; ++r)
      for (int64_t i = 0; i < n; ++i)
        EXPECT_TRUE(Is(t, out.data() + (r * n + i) * t.bytes(), r, i)) << t.name << " r" << r;
  }
}

TEST(Movement, AllgathervUnevenZerosAndDisplacements) {
  World& w = TheWorld();
  std::vector<int64_t> counts(w.size), packed(w.size), reversed(w.size);
  for (int32_t r = 0; r < w.size; ++r) counts[r] = (r * 3) % 4;  // 0, 3, 2, 1, 0, ...
  std::exclusive_scan(counts.begin(), counts.end(), packed.begin(), int64_t{0});
  const int64_t total = packed.back() + counts.back();
  for (int32_t r = 0, at = 0; r < w.size; ++r)  // blocks placed in reverse member order
    reversed[w.size - 1 - r] = 0, (void)at;
  for (int32_t r = w.size - 1, at = 0; r >= 0; --r) {
    reversed[r] = at;
    at += static_cast<int32_t>(counts[r]);
  }
  for (const Type& t : AllTypes()) {
    for (const std::vector<int64_t>* displs : {&packed, &reversed}) {
      weft::test::Buffer<char> in(counts[w.rank] * t.bytes() + 1), out(total * t.bytes() + 1);
      for (int64_t i = 0; i < counts[w.rank]; ++i) Put(t, in.data() + i * t.bytes(), w.rank, i);
      Tensor ti(in.data(), counts[w.rank], t.dl), to(out.data(), total, t.dl);
      WEFT_OK_OR_FAIL(weft_allgatherv(w.ctx, nullptr, 0, ti.get(), to.get(), counts.data(),
                                      displs->data(), nullptr, nullptr, nullptr));
      for (int32_t r = 0; r < w.size; ++r)
        for (int64_t i = 0; i < counts[r]; ++i)
          EXPECT_TRUE(Is(t, out.data() + ((*displs)[r] + i) * t.bytes(), r, i)) << t.name;
    }
  }
}

TEST(Movement, AlltoallEveryDtype) {
  World& w = TheWorld();
  const int64_t per = 2;
  for (const Type& t : AllTypes()) {
    weft::test::Buffer<char> in(per * w.size * t.bytes()), out(in.size());
    for (int32_t d = 0; d < w.size; ++d)
      for (int64_t i = 0; i < per; ++i) Put(t, in.data() + (d * per + i) * t.bytes(), w.rank, i, d);
    Tensor ti(in.data(), per * w.size, t.dl), to(out.data(), per * w.size, t.dl);
    WEFT_OK_OR_FAIL(
        weft_alltoall(w.ctx, nullptr, 0, ti.get(), to.get(), nullptr, nullptr, nullptr));
    for (int32_t s = 0; s < w.size; ++s)
      for (int64_t i = 0; i < per; ++i)
        EXPECT_TRUE(Is(t, out.data() + (s * per + i) * t.bytes(), s, i, w.rank)) << t.name;
  }
}

TEST(Movement, AlltoallvUnevenWithZeros) {
  World& w = TheWorld();
  auto count = [](int32_t src, int32_t dst) { return int64_t((src + 2 * dst) % 3); };
  std::vector<int64_t> sc(w.size), rc(w.size), sd(w.size), rd(w.size);
  for (int32_t p = 0; p < w.size; ++p) {
    sc[p] = count(w.rank, p);
    rc[p] = count(p, w.rank);
  }
  std::exclusive_scan(sc.begin(), sc.end(), sd.begin(), int64_t{0});
  std::exclusive_scan(rc.begin(), rc.end(), rd.begin(), int64_t{0});
  const int64_t st = sd.back() + sc.back(), rt = rd.back() + rc.back();
  for (const Type& t : AllTypes()) {
    weft::test::Buffer<char> in(st * t.bytes() + 1), out(rt * t.bytes() + 1);
    for (int32_t d = 0; d < w.size; ++d)
      for (int64_t i = 0; i < sc[d]; ++i) Put(t, in.data() + (sd[d] + i) * t.bytes(), w.rank, i, d);
    Tensor ti(in.data(), st, t.dl), to(out.data(), rt, t.dl);
    WEFT_OK_OR_FAIL(weft_alltoallv(w.ctx, nullptr, 0, ti.get(), sc.data(), sd.data(), to.get(),
                                   rc.data(), rd.data(), nullptr, nullptr, nullptr));
    for (int32_t s = 0; s < w.size; ++s)
      for (int64_t i = 0; i < rc[s]; ++i)
        EXPECT_TRUE(Is(t, out.data() + (rd[s] + i) * t.bytes(), s, i, w.rank)) << t.name;
  }
}

TEST(Movement, BroadcastFromEveryRoot) {
  World& w = TheWorld();
  for (const Type& t : AllTypes()) {
    for (int32_t root = 0; root < w.size; ++root) {
      const int64_t n = 1 + root;
      weft::test::Buffer<char> buf(n * t.bytes());
      for (int64_t i = 0; i < n; ++i)
        Put(t, buf.data() + i * t.bytes(), w.rank == root ? root : 99, i);
      Tensor tb(buf.data(), n, t.dl);
      WEFT_OK_OR_FAIL(weft_broadcast(w.ctx, nullptr, 0, tb.get(), root, nullptr, nullptr, nullptr));
      for (int64_t i = 0; i < n; ++i)
        EXPECT_TRUE(Is(t, buf.data() + i * t.bytes(), root, i)) << t.name << " root " << root;
    }
  }
}

TEST(Movement, BarrierAndEmptyMessages) {
  World& w = TheWorld();
  for (int k = 0; k < 3; ++k)
    WEFT_OK_OR_FAIL(weft_barrier(w.ctx, nullptr, 0, nullptr, nullptr, nullptr));
  Tensor empty(nullptr, 0, AllTypes()[2].dl);
  WEFT_OK_OR_FAIL(weft_broadcast(w.ctx, nullptr, 0, empty.get(), 0, nullptr, nullptr, nullptr));
}

TEST(Movement, SendRecvRingWithTags) {
  World& w = TheWorld();
  // With one rank the ring closes on itself: rank 0 sends to and receives from itself.
  const Type& t = AllTypes()[3];  // int64
  const int32_t right = (w.rank + 1) % w.size, left = (w.rank + w.size - 1) % w.size;
  for (int64_t tag : {int64_t{7}, int64_t{0}, int64_t{7}}) {
    const int64_t n = 100 + tag;
    weft::test::Buffer<char> out(n * 8), in(n * 8);
    for (int64_t i = 0; i < n; ++i) Put(t, out.data() + i * 8, w.rank, i, int32_t(tag));
    Tensor to(out.data(), n, t.dl), ti(in.data(), n, t.dl);
    weft_work_t* recv_work = nullptr;
    WEFT_OK_OR_FAIL(
        weft_recv(w.ctx, nullptr, 0, ti.get(), left, tag, nullptr, nullptr, &recv_work));
    WEFT_OK_OR_FAIL(weft_send(w.ctx, nullptr, 0, to.get(), right, tag, nullptr, nullptr, nullptr));
    WEFT_OK_OR_FAIL(weft_work_wait(recv_work, -1));
    weft_work_release(recv_work);
    for (int64_t i = 0; i < n; ++i) EXPECT_TRUE(Is(t, in.data() + i * 8, left, i, int32_t(tag)));
  }
}

}  // namespace
}  // namespace conformance
