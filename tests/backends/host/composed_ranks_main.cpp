// Run by weftrun with the fakeok plugin (only send/recv over the host's store): every
// collective is composed by the host across real processes and checked against values each
// rank computes on its own. Exits non-zero on the first mismatch or error.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/backends/host/tensor.hpp"

using loader_test::Tensor;

namespace {

int32_t g_rank = 0, g_size = 1;

void Check(weft_status_t s, const char* what) {
  if (s == WEFT_OK) return;
  std::fprintf(stderr, "rank %d: %s failed: %s | %s\n", g_rank, what, weft_status_string(s),
               weft_last_error());
  std::exit(1);
}

template <class T>
void Expect(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  if (got == want) return;
  std::string g, w;
  for (const T& x : got) g += std::to_string(x) + " ";
  for (const T& x : want) w += std::to_string(x) + " ";
  std::fprintf(stderr, "rank %d: %s gave [%s] instead of [%s]\n", g_rank, what, g.c_str(),
               w.c_str());
  std::exit(1);
}

#define RUN(call) Check((call), #call)

void Reductions(weft_context_t* ctx) {
  const int32_t n = g_size, me = g_rank;
  Tensor<int32_t> send({me + 1, 2 * (me + 1), 3 * (me + 1), -(me + 1), 0}), recv({0, 0, 0, 0, 0});
  RUN(weft_allreduce(ctx, nullptr, 0, send.get(), recv.get(), WEFT_REDUCE_SUM, nullptr, nullptr,
                     nullptr));
  const int32_t tri = n * (n + 1) / 2;
  Expect(recv.data, {tri, 2 * tri, 3 * tri, -tri, 0}, "allreduce sum");
  RUN(weft_allreduce(ctx, nullptr, 0, send.get(), recv.get(), WEFT_REDUCE_MAX, nullptr, nullptr,
                     nullptr));
  Expect(recv.data, {n, 2 * n, 3 * n, -1, 0}, "allreduce max");
  Tensor<double> avg({static_cast<double>(me), 1.0}), avg_out({0, 0});
  RUN(weft_allreduce(ctx, nullptr, 0, avg.get(), avg_out.get(), WEFT_REDUCE_AVG, nullptr, nullptr,
                     nullptr));
  Expect(avg_out.data, {(n - 1) / 2.0, 1.0}, "allreduce avg");

  // reduce_scatter: element k of rank r's send is r + k; member me gets block me, summed.
  std::vector<int32_t> rs_in(2 * n);
  for (int32_t k = 0; k < 2 * n; ++k) rs_in[k] = me + k;
  Tensor<int32_t> rs_send(rs_in), rs_out({0, 0});
  RUN(weft_reduce_scatter(ctx, nullptr, 0, rs_send.get(), rs_out.get(), WEFT_REDUCE_SUM, nullptr,
                          nullptr, nullptr));
  Expect(rs_out.data, {n * 2 * me + tri - n, n * (2 * me + 1) + tri - n}, "reduce_scatter");

  // reduce_scatterv: member i gets i + 1 elements.
  std::vector<int64_t> counts(n);
  int64_t total = 0;
  for (int32_t i = 0; i < n; ++i) total += counts[i] = i + 1;
  Tensor<int32_t> rsv_send(std::vector<int32_t>(total, me + 1)),
      rsv_out(std::vector<int32_t>(me + 1));
  RUN(weft_reduce_scatterv(ctx, nullptr, 0, rsv_send.get(), rsv_out.get(), counts.data(),
                           WEFT_REDUCE_SUM, nullptr, nullptr, nullptr));
  Expect(rsv_out.data, std::vector<int32_t>(me + 1, tri), "reduce_scatterv");
}

void Movement(weft_context_t* ctx) {
  const int32_t n = g_size, me = g_rank;
  Tensor<int32_t> send({10 * me, 10 * me + 1}), out(std::vector<int32_t>(2 * n));
  RUN(weft_allgather(ctx, nullptr, 0, send.get(), out.get(), nullptr, nullptr, nullptr));
  std::vector<int32_t> want;
  for (int32_t r = 0; r < n; ++r) want.insert(want.end(), {10 * r, 10 * r + 1});
  Expect(out.data, want, "allgather");

  // allgatherv: rank r contributes r + 1 elements 100 r + j, packed.
  std::vector<int64_t> counts(n);
  std::vector<int32_t> mine, all;
  for (int32_t r = 0; r < n; ++r) {
    counts[r] = r + 1;
    for (int32_t j = 0; j <= r; ++j) (r == me ? mine : all).push_back(100 * r + j);
    if (r == me) all.insert(all.end(), mine.begin(), mine.end());
  }
  Tensor<int32_t> v_send(mine), v_out(std::vector<int32_t>(all.size()));
  RUN(weft_allgatherv(ctx, nullptr, 0, v_send.get(), v_out.get(), counts.data(), nullptr, nullptr,
                      nullptr, nullptr));
  Expect(v_out.data, all, "allgatherv");

  // alltoall: element e of the block for member j is 100 r + 10 j + e.
  std::vector<int32_t> a_in, a_want;
  for (int32_t j = 0; j < n; ++j)
    for (int32_t e = 0; e < 2; ++e) {
      a_in.push_back(100 * me + 10 * j + e);
      a_want.push_back(100 * j + 10 * me + e);
    }
  Tensor<int32_t> a_send(a_in), a_out(std::vector<int32_t>(a_in.size()));
  RUN(weft_alltoall(ctx, nullptr, 0, a_send.get(), a_out.get(), nullptr, nullptr, nullptr));
  Expect(a_out.data, a_want, "alltoall");

  // alltoallv: j + 1 elements to member j, so me + 1 from everyone.
  std::vector<int64_t> sc(n), rc(n, me + 1);
  std::vector<int32_t> av_in, av_want;
  for (int32_t j = 0; j < n; ++j) {
    sc[j] = j + 1;
    for (int32_t e = 0; e <= j; ++e) av_in.push_back(1000 * me + j);
    for (int32_t e = 0; e <= me; ++e) av_want.push_back(1000 * j + me);
  }
  Tensor<int32_t> av_send(av_in), av_out(std::vector<int32_t>(av_want.size()));
  RUN(weft_alltoallv(ctx, nullptr, 0, av_send.get(), sc.data(), nullptr, av_out.get(), rc.data(),
                     nullptr, nullptr, nullptr, nullptr));
  Expect(av_out.data, av_want, "alltoallv");

  const int32_t root = n - 1;
  Tensor<int32_t> buf(me == root ? std::vector<int32_t>{42, -43} : std::vector<int32_t>{0, 0});
  RUN(weft_broadcast(ctx, nullptr, 0, buf.get(), root, nullptr, nullptr, nullptr));
  Expect(buf.data, {42, -43}, "broadcast");
  RUN(weft_barrier(ctx, nullptr, 0, nullptr, nullptr, nullptr));

  // A ring of point-to-point messages, two per link on one tag, matched in order.
  const int32_t right = (me + 1) % n, left = (me + n - 1) % n;
  Tensor<int32_t> m1({me, 1}), m2({me, 2}), r1({0, 0}), r2({0, 0});
  RUN(weft_send(ctx, nullptr, 0, m1.get(), right, 5, nullptr, nullptr, nullptr));
  RUN(weft_send(ctx, nullptr, 0, m2.get(), right, 5, nullptr, nullptr, nullptr));
  RUN(weft_recv(ctx, nullptr, 0, r1.get(), left, 5, nullptr, nullptr, nullptr));
  RUN(weft_recv(ctx, nullptr, 0, r2.get(), left, 5, nullptr, nullptr, nullptr));
  Expect(r1.data, {left, 1}, "recv 1");
  Expect(r2.data, {left, 2}, "recv 2");
}

}  // namespace

int main() {
  weft_context_t* ctx = nullptr;
  RUN(weft_context_create(nullptr, &ctx));
  RUN(weft_context_rank(ctx, &g_rank));
  RUN(weft_context_world_size(ctx, &g_size));
  char name[64] = {};
  size_t needed = 0;
  RUN(weft_context_backend_name(ctx, name, sizeof(name), &needed));
  if (std::string(name) != "fakeok") {
    std::fprintf(stderr, "rank %d: backend is %s, not fakeok\n", g_rank, name);
    return 1;
  }
  Reductions(ctx);
  Movement(ctx);
  RUN(weft_context_destroy(ctx));
  std::printf("rank %d of %d: every composed collective matched\n", g_rank, g_size);
  return 0;
}
