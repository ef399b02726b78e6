#include "tests/checkpoint/harness.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "tests/support/device_buffers.hpp"

namespace ckpt_test {
namespace {

constexpr unsigned char kUnwritten = 0xEE;

// DLPack headers older than 0.8 lack kDLBool (6); Weft reads code 6 as bool.
constexpr uint8_t kBoolCode = 6;
constexpr DLDataType kBool{kBoolCode, 8, 1}, kI8{kDLInt, 8, 1}, kI16{kDLInt, 16, 1},
    kI32{kDLInt, 32, 1}, kI64{kDLInt, 64, 1}, kU8{kDLUInt, 8, 1}, kU16{kDLUInt, 16, 1},
    kU32{kDLUInt, 32, 1}, kU64{kDLUInt, 64, 1}, kF16{kDLFloat, 16, 1}, kBF16{kDLBfloat, 16, 1},
    kF32{kDLFloat, 32, 1}, kF64{kDLFloat, 64, 1}, kC64{kDLComplex, 64, 1},
    kC128{kDLComplex, 128, 1};

template <class T>
void Put(T v, unsigned char* out) {
  std::memcpy(out, &v, sizeof(T));
}

// An integer of magnitude < 2^10 as IEEE half (exact).
uint16_t Half(int64_t v) {
  if (v == 0) return 0;
  const uint16_t sign = v < 0 ? 0x8000 : 0;
  uint64_t m = static_cast<uint64_t>(v < 0 ? -v : v);
  int e = 63 - __builtin_clzll(m);
  const uint16_t frac = static_cast<uint16_t>((m << (10 - e)) & 0x3FF);
  return static_cast<uint16_t>(sign | ((e + 15) << 10) | frac);
}

}  // namespace

const std::vector<Spec>& SavedSpecs() {
  static const std::vector<Spec> specs = [] {
    std::vector<Spec> s;
    const std::pair<const char*, DLDataType> dts[] = {
        {"bool", kBool}, {"i8", kI8},   {"i16", kI16}, {"i32", kI32}, {"i64", kI64},
        {"u8", kU8},     {"u16", kU16}, {"u32", kU32}, {"u64", kU64}, {"f16", kF16},
        {"bf16", kBF16}, {"f32", kF32}, {"f64", kF64}, {"c64", kC64}, {"c128", kC128}};
    for (const auto& [n, dt] : dts)
      s.push_back({std::string("dt_") + n, dt, {7, 5}, {"S0", "S1"}, {}});
    s.push_back({"empty_shards", kI32, {1, 3}, {"S0", "S1"}, {}});
    s.push_back({"zero_size", kF32, {0, 4}, {"S0", "S1"}, {}});
    s.push_back({"scalar", kF64, {}, {"R", "R"}, {}});
    s.push_back({"replicated", kI64, {5, 3}, {"R", "R"}, {}});
    s.push_back({"half_rep", kF32, {9, 2}, {"S0", "R"}, {}});
    s.push_back({"ragged", kF32, {10, 6}, {"S0", "S1"}, {{7, 3}, {0, 6}}});
    s.push_back({"partial", kF32, {6, 4}, {"S0", "Ps"}, {}});
    s.push_back({"cube", kU16, {4, 6, 10}, {"S1", "S2"}, {}});
    return s;
  }();
  return specs;
}

void Expected(DLDataType dt, int t, int64_t g, unsigned char* out) {
  const int64_t base = (g * 7 + t * 13) % 200;
  const int64_t v = base - 100;
  switch (dt.code) {
    case kBoolCode:
      out[0] = base % 3 == 0;
      return;
    case kDLInt:
      if (dt.bits == 8) return Put(static_cast<int8_t>(v), out);
      if (dt.bits == 16) return Put(static_cast<int16_t>(v), out);
      if (dt.bits == 32) return Put(static_cast<int32_t>(v * 1000), out);
      return Put(static_cast<int64_t>(v) * 1000000007LL, out);
    case kDLUInt:
      if (dt.bits == 8) return Put(static_cast<uint8_t>(base), out);
      if (dt.bits == 16) return Put(static_cast<uint16_t>(base * 300), out);
      if (dt.bits == 32) return Put(static_cast<uint32_t>(base * 20000000u), out);
      return Put(static_cast<uint64_t>(base) * 90000000000000000ull, out);
    case kDLFloat:
      if (dt.bits == 16) return Put(Half(v), out);
      if (dt.bits == 32) return Put(static_cast<float>(v) + 0.5f, out);
      return Put(static_cast<double>(v) + 0.25, out);
    case kDLBfloat: {
      const float f = static_cast<float>(v);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return Put(static_cast<uint16_t>(bits >> 16), out);
    }
    case kDLComplex:
      if (dt.bits == 64) {
        Put(static_cast<float>(v), out);
        return Put(static_cast<float>(-v) - 0.5f, out + 4);
      }
      Put(static_cast<double>(v), out);
      return Put(static_cast<double>(-v) - 0.5, out + 8);
    default:
      std::abort();
  }
}

int64_t Block::numel() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

Block MakeBlock(const weft_layout_t* layout, DLDataType dt, int32_t rank, int64_t pad) {
  Block b;
  int32_t ndim = 0;
  weft_layout_ndim(layout, &ndim);
  b.shape.assign(ndim, 0);
  b.offset.assign(ndim, 0);
  weft_layout_local_shape(layout, rank, b.shape.data(), b.offset.data());
  b.strides.assign(ndim, 1);
  int64_t span = 1;  // elements the buffer spans
  for (int32_t d = ndim; d-- > 0;) {
    b.strides[d] = span;
    span *= b.shape[d] + (d == ndim - 1 ? pad : 0);
  }
  if (b.numel() == 0) span = 0;
  b.bytes.assign(static_cast<size_t>(span * dt.bits / 8) + 1, kUnwritten);
  b.tensor.data = b.bytes.data();
  b.tensor.device = weft::test::BufferDevice();
  b.tensor.ndim = ndim;
  b.tensor.dtype = dt;
  b.tensor.shape = b.shape.data();
  if (pad > 0) b.tensor.strides = b.strides.data();
  return b;
}

int64_t PadFor(size_t t) { return t % 2 == 1 ? 2 : 0; }

namespace {

// Calls fn(element offset in the buffer, global linear index) over the block.
template <class Fn>
void ForEach(const Block& b, const std::vector<int64_t>& global, Fn fn) {
  const int64_t n = b.numel();
  const size_t nd = b.shape.size();
  std::vector<int64_t> idx(nd, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t g = 0, at = 0;
    for (size_t d = 0; d < nd; ++d) {
      g = g * global[d] + b.offset[d] + idx[d];
      at += idx[d] * b.strides[d];
    }
    fn(at, g);
    for (size_t d = nd; d-- > 0;) {
      if (++idx[d] < b.shape[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace

void Fill(Block& b, DLDataType dt, int t, const std::vector<int64_t>& global) {
  const int64_t item = dt.bits / 8;
  ForEach(b, global, [&](int64_t i, int64_t g) { Expected(dt, t, g, &b.bytes[i * item]); });
}

void FillPartial(Block& b, int t, const std::vector<int64_t>& global, int share) {
  ForEach(b, global, [&](int64_t i, int64_t g) {
    float v;
    Expected(kF32, t, g, reinterpret_cast<unsigned char*>(&v));
    Put(share == 0 ? v - 3.0f : 3.0f, &b.bytes[i * 4]);
  });
}

int64_t Mismatches(const Block& b, DLDataType dt, int t, const std::vector<int64_t>& global) {
  const int64_t item = dt.bits / 8;
  int64_t bad = 0;
  unsigned char want[16];
  std::vector<bool> cell(b.bytes.size(), false);
  ForEach(b, global, [&](int64_t i, int64_t g) {
    Expected(dt, t, g, want);
    if (std::memcmp(want, &b.bytes[i * item], item) != 0) ++bad;
    for (int64_t k = 0; k < item; ++k) cell[i * item + k] = true;
  });
  for (size_t k = 0; k < cell.size(); ++k) bad += !cell[k] && b.bytes[k] != kUnwritten;
  return bad;
}

std::vector<int64_t> RaggedSizes(int64_t n, int64_t k) {
  std::vector<int64_t> sizes;
  int64_t prev = 0;
  for (int64_t i = 1; i <= k; ++i) {
    const int64_t cut = n * i * i / (k * k);
    sizes.push_back(cut - prev);
    prev = cut;
  }
  return sizes;
}

std::string DataDir() {
  const char* d = std::getenv("WEFT_CKPT_DIR");
  // ctest sets it; a manual run writes under the temporary directory, not the source tree.
  return d != nullptr ? d : (std::filesystem::temp_directory_path() / "weft_ckpt_data").string();
}

std::string SavedPath() {
  const char* leaf = std::getenv("WEFT_CKPT_SAVED");
  return DataDir() + "/" + (leaf != nullptr ? leaf : "saved4");
}

}  // namespace ckpt_test
