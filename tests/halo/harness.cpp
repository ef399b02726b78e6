#include "harness.hpp"
#include "tests/support/device_buffers.hpp"

#include <cstring>

#include "common/fnv1a.hpp"

namespace halo {
namespace {

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Largest factor of n that is at most sqrt(n) (1 for primes).
int64_t SmallFactor(int64_t n) {
  int64_t f = 1;
  for (int64_t i = 2; i * i <= n; ++i)
    if (n % i == 0) f = i;
  return f;
}

template <class T>
T AllReduce(T v, int32_t op, DLDataType dt) {
  int64_t one = 1;
  T out{};
  DLTensor s{&v, {kDLCPU, 0}, 1, dt, &one, nullptr, 0};
  DLTensor r{&out, {kDLCPU, 0}, 1, dt, &one, nullptr, 0};
  const weft_status_t st =
      weft_allreduce(TheWorld().ctx, nullptr, 0, &s, &r, op, nullptr, nullptr, nullptr);
  EXPECT_EQ(st, WEFT_OK) << weft_last_error();
  return out;
}

}  // namespace

std::vector<int64_t> Mesh1D() { return {TheWorld().size}; }

std::vector<int64_t> Mesh2D() {
  const int64_t n = TheWorld().size, f = SmallFactor(n);
  return f == 1 ? std::vector<int64_t>{n, 1} : std::vector<int64_t>{n / f, f};
}

std::vector<int64_t> Mesh3D() {
  const int64_t n = TheWorld().size;
  if (n == 8) return {2, 2, 2};
  if (n == 4) return {2, 2, 1};
  return {1, n, 1};
}

const Type& TypeNamed(const std::string& name) {
  for (const Type& t : conformance::AllTypes())
    if (name == t.name) return t;
  ADD_FAILURE() << "no type " << name;
  return conformance::AllTypes()[0];
}

Block::Block(const std::vector<int64_t>& shp, const Type& type, Style style)
    : shape(shp), strides(shp.size()), bytes(type.bytes()) {
  const size_t nd = shape.size();
  int64_t span = 1, offset = 0;
  if (style == Style::kColumnMajor) {
    for (size_t d = 0; d < nd; ++d) strides[d] = span, span *= shape[d];
  } else {
    // Embedded: each dim of the enclosing array is 2 + d%2 wider than the tensor, which
    // starts one element in along every dim.
    for (size_t d = nd; d-- > 0;) {
      const int64_t outer = shape[d] + (style == Style::kEmbedded ? 2 + int64_t(d % 2) : 0);
      strides[d] = span;
      if (style == Style::kEmbedded) offset += span;
      span *= outer;
    }
  }
  mem.assign(static_cast<size_t>(span * bytes + 1), kGuard);
  t = DLTensor{mem.data(),
               weft::test::BufferDevice(),
               static_cast<int32_t>(nd),
               type.dl,
               shape.data(),
               strides.data(),
               static_cast<uint64_t>(offset * bytes)};
}

Block::~Block() { weft::test::SyncDevice(); }

char* Block::At(const std::vector<int64_t>& idx) {
  int64_t e = 0;
  for (size_t d = 0; d < idx.size(); ++d) e += idx[d] * strides[d];
  return mem.data() + t.byte_offset + e * bytes;
}

int64_t Block::numel() const { return Product(shape); }

int64_t Block::DamagedGuardBytes() const {
  std::vector<char> used(mem.size(), 0);
  ForEachIndex(shape, [&](const std::vector<int64_t>& idx) {
    int64_t e = static_cast<int64_t>(t.byte_offset);
    for (size_t d = 0; d < idx.size(); ++d) e += idx[d] * strides[d] * bytes;
    std::memset(used.data() + e, 1, static_cast<size_t>(bytes));
  });
  int64_t bad = 0;
  for (size_t i = 0; i < mem.size(); ++i) bad += !used[i] && mem[i] != kGuard;
  return bad;
}

void EncodeValue(const Type& t, bool nan_payload, void* p, double v) {
  if (!nan_payload) return conformance::Encode(t, p, v);
  const uint64_t bits = 0x7ff8000000000000ull | static_cast<uint64_t>(static_cast<int64_t>(v));
  std::memcpy(p, &bits, 8);
}

double DecodeF64(const void* p) {
  double v;
  std::memcpy(&v, p, 8);
  return v;
}

int64_t AllMin(int64_t v) { return AllReduce(v, WEFT_REDUCE_MIN, DLDataType{kDLInt, 64, 1}); }
int64_t AllMax(int64_t v) { return AllReduce(v, WEFT_REDUCE_MAX, DLDataType{kDLInt, 64, 1}); }
double AllSum(double v) { return AllReduce(v, WEFT_REDUCE_SUM, DLDataType{kDLFloat, 64, 1}); }

bool SameOnAllRanks(const std::string& s) {
  const int64_t v = static_cast<int64_t>(weft::Fnv1a().Text(s).value() >> 1);
  return AllMin(v) == AllMax(v);
}

bool AnyRankFailed() { return AllMax(::testing::Test::HasFailure() ? 1 : 0) != 0; }

}  // namespace halo
