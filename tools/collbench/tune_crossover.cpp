#include "tools/collbench/tune_crossover.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/host_params.hpp"

namespace weft::collbench {
namespace {

using Clock = std::chrono::steady_clock;

enum class Coll { kAllReduce, kAllGather, kBroadcast, kReduceScatter };

// One threshold variable and the two values that force each side of it.
struct Compare {
  const char* variable;
  const char* first;   // the algorithm below the threshold (or with the switch on)
  const char* second;  // from the threshold (or with it off)
  const char* first_value;
  const char* second_value;
  Coll coll;
  int32_t min_ranks;
  bool one_host_only;  // the algorithm exists only among ranks of one host
};

constexpr const char* kNever = "1099511627776";  // the variables' upper bound: 1 TiB

constexpr Compare kCompares[] = {
    {"WEFT_UCX_ALLREDUCE_RING_BYTES", "recursive doubling", "ring", kNever, "0", Coll::kAllReduce,
     2, false},
    {"WEFT_UCX_ALLGATHER_BRUCK_BYTES", "Bruck", "ring or direct", kNever, "0", Coll::kAllGather, 3,
     false},
    {"WEFT_UCX_BROADCAST_CHAIN_BYTES", "binomial tree", "pipelined chain", kNever, "0",
     Coll::kBroadcast, 3, false},
    {"WEFT_UCX_REDUCE_SCATTER_DIRECT_BYTES", "direct (one round)", "ring", kNever, "0",
     Coll::kReduceScatter, 3, true},
    {"WEFT_UCX_BOARD", "boards", "messages", "1", "0", Coll::kAllReduce, 2, true},
};

bool Ok(weft_status_t s, const char* what, std::string* error) {
  if (s == WEFT_OK) return true;
  *error = std::string(what) + ": " + weft_last_error();
  return false;
}

DLTensor Tensor(void* p, int64_t* n, uint8_t code, uint8_t bits) {
  return DLTensor{p, {kDLCPU, 0}, 1, {code, bits, 1}, n, nullptr, 0};
}

// One call of `coll` moving about `bytes` (the reduced vector, the gathered result, the
// broadcast buffer, the scattered input).
bool Call(weft_context_t* ctx, Coll coll, int64_t bytes, int32_t nranks, std::vector<float>* a,
          std::vector<float>* b, std::string* error) {
  int64_t n = bytes / 4, part = bytes / 4 / nranks;
  switch (coll) {
    case Coll::kAllReduce: {
      DLTensor s = Tensor(a->data(), &n, kDLFloat, 32), r = Tensor(b->data(), &n, kDLFloat, 32);
      return Ok(weft_allreduce(ctx, nullptr, 0, &s, &r, WEFT_REDUCE_SUM, nullptr, nullptr, nullptr),
                "allreduce", error);
    }
    case Coll::kAllGather: {
      int64_t whole = part * nranks;
      DLTensor s = Tensor(a->data(), &part, kDLFloat, 32);
      DLTensor r = Tensor(b->data(), &whole, kDLFloat, 32);
      return Ok(weft_allgather(ctx, nullptr, 0, &s, &r, nullptr, nullptr, nullptr), "allgather",
                error);
    }
    case Coll::kBroadcast: {
      DLTensor t = Tensor(a->data(), &n, kDLFloat, 32);
      return Ok(weft_broadcast(ctx, nullptr, 0, &t, 0, nullptr, nullptr, nullptr), "broadcast",
                error);
    }
    case Coll::kReduceScatter: {
      int64_t whole = part * nranks;
      DLTensor s = Tensor(a->data(), &whole, kDLFloat, 32);
      DLTensor r = Tensor(b->data(), &part, kDLFloat, 32);
      return Ok(
          weft_reduce_scatter(ctx, nullptr, 0, &s, &r, WEFT_REDUCE_SUM, nullptr, nullptr, nullptr),
          "reduce_scatter", error);
    }
  }
  return false;
}

// Seconds per call at `bytes`, the largest over the ranks (every rank gets the same figure).
bool Time(weft_context_t* ctx, Coll coll, int64_t bytes, int32_t rank, int32_t nranks,
          double budget_s, double* seconds, std::string* error) {
  std::vector<float> a(static_cast<size_t>(bytes / 4) + 1, 1.0f), b(a.size(), 0.0f);
  const auto w0 = Clock::now();
  for (int k = 0; k < 2; ++k)
    if (!Call(ctx, coll, bytes, nranks, &a, &b, error)) return false;
  int64_t iters = 0, eight = 1;
  if (rank == 0) {
    const double each = std::chrono::duration<double>(Clock::now() - w0).count() / 2;
    iters = std::clamp<int64_t>(static_cast<int64_t>(budget_s / std::max(each, 1e-7)), 3, 1000);
  }
  DLTensor it = Tensor(&iters, &eight, kDLInt, 64);
  if (!Ok(weft_broadcast(ctx, nullptr, 0, &it, 0, nullptr, nullptr, nullptr), "broadcast", error))
    return false;
  if (!Ok(weft_barrier(ctx, nullptr, 0, nullptr, nullptr, nullptr), "barrier", error)) return false;
  const auto t0 = Clock::now();
  for (int64_t k = 0; k < iters; ++k)
    if (!Call(ctx, coll, bytes, nranks, &a, &b, error)) return false;
  double mine = std::chrono::duration<double>(Clock::now() - t0).count() / iters, most = 0;
  int64_t one = 1;
  DLTensor s = Tensor(&mine, &one, kDLFloat, 64), r = Tensor(&most, &one, kDLFloat, 64);
  if (!Ok(weft_allreduce(ctx, nullptr, 0, &s, &r, WEFT_REDUCE_MAX, nullptr, nullptr, nullptr),
          "allreduce", error))
    return false;
  *seconds = most;
  return true;
}

// A fresh context with `variable` = `value` and its own store port (the previous context's
// store may still be closing), timed at every size.
bool Measure(const Compare& c, const char* value, int port, const std::string& host,
             const std::vector<int64_t>& sizes, int32_t rank, int32_t nranks, double budget_s,
             std::vector<Point>* out, std::string* error) {
  ::setenv(c.variable, value, 1);
  ::setenv("WEFT_STORE", (host + ":" + std::to_string(port)).c_str(), 1);
  weft_context_t* ctx = nullptr;
  if (!Ok(weft_context_create(nullptr, &ctx), "weft_context_create", error)) return false;
  bool ok = true;
  for (int64_t bytes : sizes) {
    double s = 0;
    if (!(ok = Time(ctx, c.coll, bytes, rank, nranks, budget_s, &s, error))) break;
    out->push_back(Point{static_cast<double>(bytes), s});
  }
  if (!ok) weft_context_abort(ctx);
  const bool destroyed = weft_context_destroy(ctx) == WEFT_OK;
  return ok && (destroyed || Ok(WEFT_ERR_INTERNAL, "weft_context_destroy", error));
}

std::string Text(double v) { return std::to_string(static_cast<long long>(v)); }

// The threshold value and the line that says why.
void Decide(const Compare& c, int32_t nranks, CrossoverResult* r) {
  if (std::string(c.variable) == "WEFT_UCX_BOARD") {
    const bool boards = r->a.front().seconds <= r->b.front().seconds;
    r->value = boards ? "1" : "0";
    r->why = std::string(boards ? "boards" : "messages") + " faster at " +
             Text(r->a.front().bytes) + " B";
    return;
  }
  const double from = Crossover(r->a, r->b);
  if (from < 0) {
    r->why = std::string(c.second) + " never wins up to " + Text(r->a.back().bytes) +
             " B: left at its default";
    return;
  }
  if (c.coll == Coll::kReduceScatter) {
    // "Contributions to one block of at most this many bytes run direct": the other members'
    // share of the last size direct still won.
    const double n = nranks;
    const double last_direct = from == r->a.front().bytes ? 0 : from / 4;  // sizes grow by 4
    r->value = Text(last_direct * (n - 1) / n);
    r->why = "ring from " + Text(from) + " B";
    return;
  }
  r->value = Text(from);
  r->why = std::string(c.second) + " from " + Text(from) + " B";
}

}  // namespace

bool RunCrossovers(int32_t rank, int32_t nranks, const CrossoverOptions& o,
                   std::vector<CrossoverResult>* out, std::string* error) {
  const char* store = param::RawValue(params::Key("WEFT_STORE").spec());
  const std::string where = store ? store : "";
  const size_t colon = where.rfind(':');
  if (colon == std::string::npos) {
    out->push_back(CrossoverResult{"(all)",
                                   "",
                                   "",
                                   {},
                                   {},
                                   "",
                                   "skipped: WEFT_STORE=host:port is not set (run under weftrun)"});
    return true;
  }
  const std::string host = where.substr(0, colon);
  int port = std::atoi(where.c_str() + colon + 1);
  std::vector<int64_t> big, small = {64, 256, 1024};
  for (int64_t b = 1024; b <= o.max_bytes; b *= 4) big.push_back(b);
  for (const Compare& c : kCompares) {
    if (nranks < c.min_ranks || (c.one_host_only && !o.one_host)) continue;
    const char* saved = std::getenv(c.variable);
    const std::string keep = saved ? saved : "";
    CrossoverResult r{c.variable, c.first, c.second, {}, {}, "", ""};
    const auto& sizes = std::string(c.variable) == "WEFT_UCX_BOARD" ? small : big;
    const bool ok =
        Measure(c, c.first_value, ++port, host, sizes, rank, nranks, o.budget_s, &r.a, error) &&
        Measure(c, c.second_value, ++port, host, sizes, rank, nranks, o.budget_s, &r.b, error);
    if (saved) {
      ::setenv(c.variable, keep.c_str(), 1);
    } else {
      ::unsetenv(c.variable);
    }
    if (!ok) break;
    Decide(c, nranks, &r);
    out->push_back(std::move(r));
  }
  ::setenv("WEFT_STORE", where.c_str(), 1);
  return error->empty();
}

}  // namespace weft::collbench
