#include "tools/collbench/cases.hpp"

#include <cstring>

#include "tools/collbench/device_memory.hpp"

namespace weft::collbench {
namespace {

// No closed-form value encodes to all-kPoisonByte bytes, and no pattern byte is one.
constexpr uint8_t kPoison = kPoisonByte;

// Member i's share of `units` in the uneven split: proportional to i + 1, the remainder to
// the last member. Empty when a unit would be 0 elements.
std::vector<int64_t> UnevenCounts(int64_t units, int32_t n) {
  const int64_t triangle = int64_t{n} * (n + 1) / 2;
  const int64_t unit = units / triangle;
  if (unit == 0) return {};
  std::vector<int64_t> counts(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) counts[i] = unit * (i + 1);
  counts.back() += units - unit * triangle;
  return counts;
}

int64_t Prefix(const std::vector<int64_t>& counts, int32_t upto) {
  int64_t sum = 0;
  for (int32_t i = 0; i < upto; ++i) sum += counts[i];
  return sum;
}

int64_t AlltoallvCount(int64_t unit, int32_t src, int32_t dst, int32_t n) {
  return unit * (1 + (src + dst) % n);
}

void EvenGeometry(Op op, int64_t units, int32_t n, Geometry* g) {
  const int64_t block = units / n;
  g->count = block * n;
  switch (op) {
    case Op::kAllgather:
      g->send_count = block, g->recv_count = block * n;
      break;
    case Op::kReduceScatter:
      g->send_count = block * n, g->recv_count = block;
      break;
    default:
      g->send_count = g->recv_count = block * n;  // alltoall
  }
}

void UnevenGeometry(Op op, int64_t units, int32_t n, int32_t rank, Geometry* g) {
  if (op == Op::kAlltoallv) {
    g->unit = units / (int64_t{n} * (n + 1) / 2);
    for (int32_t peer = 0; peer < n; ++peer) {
      g->send_counts.push_back(AlltoallvCount(g->unit, rank, peer, n));
      g->recv_counts.push_back(AlltoallvCount(g->unit, peer, rank, n));
    }
    g->count = g->send_count = g->recv_count = Prefix(g->send_counts, n);
    return;
  }
  g->counts = UnevenCounts(units, n);
  if (g->counts.empty()) return;
  g->count = units;
  g->send_count = op == Op::kAllgatherv ? g->counts[rank] : units;
  g->recv_count = op == Op::kAllgatherv ? units : g->counts[rank];
}

}  // namespace

Geometry MakeGeometry(Op op, int64_t nominal_bytes, const DType& t, int32_t n, int32_t rank) {
  Geometry g;
  const int64_t units = nominal_bytes / t.bytes();
  switch (op) {
    case Op::kAllreduce:
    case Op::kBroadcast:
    case Op::kSendrecv:
      g.count = g.send_count = g.recv_count = units;
      break;
    case Op::kAllgather:
    case Op::kReduceScatter:
    case Op::kAlltoall:
      EvenGeometry(op, units, n, &g);
      break;
    default:
      UnevenGeometry(op, units, n, rank, &g);
  }
  g.size_bytes = g.count * t.bytes();
  return g;
}

double BusFactor(Op op, int32_t n) {
  switch (op) {
    case Op::kAllreduce:
      return 2.0 * (n - 1) / n;
    case Op::kBroadcast:
    case Op::kSendrecv:
      return 1.0;
    default:
      return static_cast<double>(n - 1) / n;
  }
}

Case::Case(Op op, const Geometry& g, const DType& t, int redop, int32_t nranks, int32_t rank,
           DeviceMemory* device)
    : op_(op),
      g_(g),
      t_(t),
      redop_(redop),
      nranks_(nranks),
      rank_(rank),
      send_(static_cast<size_t>(g.send_count * t.bytes())),
      recv_(op == Op::kBroadcast ? 0 : static_cast<size_t>(g.recv_count * t.bytes())),
      device_(device) {
  if (!device_) return;
  dsend_ = static_cast<uint8_t*>(device_->Allocate(send_.size()));
  if (!recv_.empty()) drecv_ = static_cast<uint8_t*>(device_->Allocate(recv_.size()));
}

Case::~Case() {
  if (!device_) return;
  device_->Sync();
  device_->Free(dsend_);
  device_->Free(drecv_);
}

void Case::Sync() {
  if (device_) device_->Sync();
}

void Case::Fill() {
  FillHost();
  if (!device_) return;
  device_->Upload(dsend_, send_.data(), send_.size());
  if (drecv_) device_->Upload(drecv_, recv_.data(), recv_.size());
}

void Case::FillHost() {
  const int64_t item = t_.bytes();
  if (!recv_.empty()) std::memset(recv_.data(), kPoison, recv_.size());  // broadcast: none
  if (OpReduces(op_)) {
    for (int64_t k = 0; k < g_.send_count; ++k) {
      Encode(t_, send_.data() + k * item, InputValue(redop_, rank_, k, t_));
    }
    return;
  }
  if (op_ == Op::kBroadcast && rank_ != 0) {
    std::memset(send_.data(), kPoison, send_.size());
    return;
  }
  for (size_t k = 0; k < send_.size(); ++k) send_[k] = PatternByte(rank_, int64_t(k));
}

int64_t Case::CountWrongReduced(int64_t first_index) const {
  const int64_t item = t_.bytes();
  int64_t wrong = 0;
  for (int64_t j = 0; j < g_.recv_count; ++j) {
    const double want = ExpectedValue(redop_, nranks_, first_index + j, t_);
    wrong += !Matches(t_, recv_.data() + j * item, want, redop_);
  }
  return wrong;
}

int64_t Case::CountWrongMoved() const {
  const int64_t item = t_.bytes();
  const std::vector<uint8_t>& out = op_ == Op::kBroadcast ? send_ : recv_;
  // For each received element: the rank that sent it and its byte offset in that rank's send
  // buffer, as the op's definition places it.
  auto source = [&](int64_t e, int32_t* src, int64_t* at) {
    const int64_t n = nranks_;
    switch (op_) {
      case Op::kBroadcast:
        *src = 0, *at = e;
        return;
      case Op::kSendrecv:
        *src = int32_t((rank_ + n - 1) % n), *at = e;
        return;
      case Op::kAllgather:
        *src = int32_t(e / g_.send_count), *at = e % g_.send_count;
        return;
      case Op::kAlltoall: {
        const int64_t block = g_.recv_count / n;
        *src = int32_t(e / block), *at = rank_ * block + e % block;
        return;
      }
      default:
        break;
    }
    const std::vector<int64_t>& blocks = op_ == Op::kAllgatherv ? g_.counts : g_.recv_counts;
    int32_t s = 0;
    int64_t begin = 0;
    while (e >= begin + blocks[s]) begin += blocks[s++];
    *src = s;
    *at = e - begin;
    if (op_ == Op::kAlltoallv) {
      for (int32_t d = 0; d < rank_; ++d) *at += AlltoallvCount(g_.unit, s, d, nranks_);
    }
  };
  int64_t wrong = 0;
  const int64_t elements = static_cast<int64_t>(out.size()) / item;
  for (int64_t e = 0; e < elements; ++e) {
    int32_t src = 0;
    int64_t at = 0;
    source(e, &src, &at);
    for (int64_t b = 0; b < item; ++b) {
      if (out[e * item + b] != PatternByte(src, at * item + b)) {
        ++wrong;
        break;
      }
    }
  }
  return wrong;
}

int64_t Case::CountWrong() {
  if (device_) {
    device_->Download(send_.data(), dsend_, send_.size());  // broadcast's output
    if (drecv_) device_->Download(recv_.data(), drecv_, recv_.size());
  }
  switch (op_) {
    case Op::kAllreduce:
      return CountWrongReduced(0);
    case Op::kReduceScatter:
      return CountWrongReduced(rank_ * g_.recv_count);
    case Op::kReduceScatterv:
      return CountWrongReduced(Prefix(g_.counts, rank_));
    default:
      return CountWrongMoved();
  }
}

}  // namespace weft::collbench
