// A 2-D convolution end to end, as a spatially sharded operator would run it: windows from
// weft_halo_derive_windows (explicit mode, zero padding from the op), a halo exchange, a local
// convolution over the padded block into the output layout built from the derived out_sizes,
// compared with the full convolution every rank computes on the whole tensor. Kernels 2 and 3,
// strides 1 and 2, one channel and 2 -> 3 channels, uneven and ragged splits.
#include "check.hpp"

namespace halo {
namespace {

struct Conv {
  int64_t k, s, pad_lo, pad_hi, cin, cout;
};

double Input(const std::vector<int64_t>& shape, int64_t c, int64_t h, int64_t w) {
  const int64_t l = (c * shape[1] + h) * shape[2] + w;
  return double((l * 7 + 3) % 11 - 5);
}

double Weight(int64_t co, int64_t ci, int64_t a, int64_t b) {
  return double((co * 5 + ci * 3 + a * 2 + b) % 5 - 2);
}

// The full convolution at output (co, j, i), zero padding outside the tensor.
double FullConv(const Conv& cv, const std::vector<int64_t>& shape, int64_t co, int64_t j,
                int64_t i) {
  double sum = 0;
  for (int64_t ci = 0; ci < cv.cin; ++ci)
    for (int64_t a = 0; a < cv.k; ++a)
      for (int64_t b = 0; b < cv.k; ++b) {
        const int64_t h = cv.s * j - cv.pad_lo + a, w = cv.s * i - cv.pad_lo + b;
        if (h < 0 || h >= shape[1] || w < 0 || w >= shape[2]) continue;
        sum += Weight(co, ci, a, b) * Input(shape, ci, h, w);
      }
  return sum;
}

void RunConv(const Conv& cv) {
  const World& world = TheWorld();
  const std::vector<int64_t> mesh_shape = Mesh2D();
  const std::vector<int64_t> shape = {cv.cin, 9, 7};
  // Rows ragged (an empty piece where there are several), columns chunk.
  std::vector<int64_t> rows(static_cast<size_t>(mesh_shape[0]), 0);
  for (int64_t r = 0; r < 9; ++r) ++rows[static_cast<size_t>((r * r) % mesh_shape[0])];
  Case c;
  c.mesh = mesh_shape;
  c.shape = shape;
  c.placements = {"S1", "S2"};
  c.splits = {{}, rows, {}};
  c.halo.constant = 0;
  Mesh mesh(c.mesh);
  Layout in(mesh, shape, TypeNamed(c.type).dl, c.placements, c.splits);
  ASSERT_EQ(in.status, WEFT_OK);
  weft_window_op_t op = WEFT_WINDOW_OP_INIT;
  op.kernel = cv.k, op.stride = cv.s, op.pad_lo = cv.pad_lo, op.pad_hi = cv.pad_hi;
  std::vector<int64_t> out_shape = {cv.cout, 0, 0};
  std::vector<std::vector<int64_t>> out_splits(3);
  for (int32_t d = 1; d <= 2; ++d) {
    DimSpec dim;
    dim.dim = d;
    dim.pad_lo = cv.pad_lo, dim.pad_hi = cv.pad_hi;
    dim.windows.resize(2 * static_cast<size_t>(world.size));
    out_splits[static_cast<size_t>(d)].resize(static_cast<size_t>(mesh_shape[size_t(d - 1)]));
    WEFT_OK_OR_FAIL(weft_halo_derive_windows(
        in.l, d, &op, dim.windows.data(), static_cast<int32_t>(mesh_shape[size_t(d - 1)]),
        out_splits[static_cast<size_t>(d)].data(), &out_shape[static_cast<size_t>(d)]));
    c.halo.dims.push_back(dim);
  }
  SCOPED_TRACE(c.Name() + " conv k=" + std::to_string(cv.k) + " s=" + std::to_string(cv.s) +
               " cout=" + std::to_string(cv.cout));
  auto s = MakeSetup(c);
  ASSERT_EQ(s->status, WEFT_OK);
  CheckWindows(*s);
  const DataFn data = [&](int32_t, const std::vector<int64_t>& g) {
    return Input(shape, g[0], g[1], g[2]);
  };
  auto padded = RunExchange(*s, data, false);
  CheckPadded(*s, *padded, data, false);

  Layout out(mesh, out_shape, TypeNamed(c.type).dl, c.placements, out_splits);
  ASSERT_EQ(out.status, WEFT_OK);
  int64_t oshape[3], ooff[3];
  WEFT_OK_OR_FAIL(weft_layout_local_shape(out.l, world.rank, oshape, ooff));
  const Box& win = s->Window();
  int64_t bad = 0, outside = 0;
  for (int64_t co = 0; co < oshape[0]; ++co)
    for (int64_t j = ooff[1]; j < ooff[1] + oshape[1]; ++j)
      for (int64_t i = ooff[2]; i < ooff[2] + oshape[2]; ++i) {
        double sum = 0;
        for (int64_t ci = 0; ci < cv.cin; ++ci)
          for (int64_t a = 0; a < cv.k; ++a)
            for (int64_t b = 0; b < cv.k; ++b) {
              const int64_t h = cv.s * j - cv.pad_lo + a - win.begin[1];
              const int64_t w = cv.s * i - cv.pad_lo + b - win.begin[2];
              if (h < 0 || h >= win.end[1] - win.begin[1] || w < 0 ||
                  w >= win.end[2] - win.begin[2]) {
                ++outside;  // the derived window misses a row this output reads
                continue;
              }
              sum += Weight(co, ci, a, b) * DecodeF64(padded->At({ci, h, w}));
            }
        const double want = FullConv(cv, shape, co, j, i);
        if (sum != want && bad++ < 4)
          ADD_FAILURE() << "rank " << world.rank << " output (" << co << "," << j << "," << i
                        << ") = " << sum << ", full conv " << want;
      }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(outside, 0) << "reads outside the derived windows";
  // Every output is computed once: the pieces cover the output extents.
  EXPECT_EQ(AllSum(double(oshape[0] * oshape[1] * oshape[2])),
            double(cv.cout * out_shape[1] * out_shape[2]));
}

TEST(Conv2D, DerivedWindowsMatchFullConvolution) {
  for (int64_t k : {2, 3})
    for (int64_t s : {1, 2})
      for (int64_t ch : {1, 2}) {
        // Odd kernel: "same" padding; even kernel: the asymmetric (0, 1).
        const Conv cv{k, s, k == 3 ? 1 : 0, 1, ch, ch == 1 ? 1 : 3};
        RunConv(cv);
        ASSERT_FALSE(AnyRankFailed());
      }
}

}  // namespace
}  // namespace halo
