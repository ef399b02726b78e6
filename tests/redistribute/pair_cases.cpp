// Values end to end: every pair of {R, S0, S1, P(sum), P(max)} on 1-D meshes with even,
// chunk-uneven and ragged splits, the N-D examples of issue 4, every dtype, strided buffers,
// pieces large enough for single copy, async work, repeated executions and the one-shot cache.
#include "harness.hpp"

namespace redist {
namespace {

const std::vector<std::string> kFive = {"R", "S0", "S1", "Ps", "Pm"};

void AllPairs(std::vector<int64_t> shape, std::vector<std::vector<int64_t>> ragged = {}) {
  const int64_t n = TheWorld().size;
  for (const auto& a : kFive)
    for (const auto& b : kFive) {
      PairSpec s;
      s.mesh = {n};
      s.shape = shape;
      s.src = {a};
      s.dst = {b};
      if (a[0] == 'P' && b[0] == 'P' && a != b) {
        // P(sum) <-> P(max): an error at plan creation on every rank (SPEC §2.4), on one
        // rank too.
        Mesh mesh(s.mesh);
        Layout src(mesh, shape, conformance::AllTypes()[10].dl, s.src);
        Layout dst(mesh, shape, conformance::AllTypes()[10].dl, s.dst);
        Plan plan;
        EXPECT_EQ(weft_redistribute_plan_create(src.l, dst.l, nullptr, &plan.p),
                  WEFT_ERR_INVALID_ARGUMENT);
        continue;
      }
      RunPair(s);
      if (!ragged.empty() && (a == "S0" || b == "S0")) {
        // The same pair with the S0 side(s) split raggedly (empty pieces included).
        if (a == "S0") s.src_splits = ragged;
        if (b == "S0" && a != "S0") s.dst_splits = ragged;
        RunPair(s);
        if (a == "S0" && b == "S0") {  // rebalancing between two different splits
          s.src_splits = {};
          s.dst_splits = ragged;
          RunPair(s);
        }
      }
    }
}

// Piece sizes summing to n over k pieces with empty ones: k-1 pieces take turns 0 and 2.
std::vector<int64_t> Ragged(int64_t n, int64_t k) {
  std::vector<int64_t> v(k, 0);
  int64_t left = n;
  for (int64_t i = 0; i + 1 < k && left > 0; ++i) {
    v[i] = i % 2 ? std::min<int64_t>(2, left) : 0;
    left -= v[i];
  }
  v[k - 1] = left;
  return v;
}

TEST(OneD, EvenSplits) {
  const int64_t n = TheWorld().size;
  AllPairs({2 * n, 3 * n}, {Ragged(2 * n, n)});
}

TEST(OneD, UnevenChunkSplits) {
  const int64_t n = TheWorld().size;
  // 5 over 4, 3 over 4, 9 over 4, 17 over 8 (and their like on other world sizes).
  for (int64_t rows : {int64_t{5}, int64_t{3}, 2 * n + 1})
    AllPairs({rows, rows + 2}, {Ragged(rows, n)});
}

void Nd(std::vector<int64_t> mesh, std::vector<int64_t> shape,
        const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>& pairs) {
  for (const auto& [a, b] : pairs) {
    PairSpec s;
    s.mesh = mesh;
    s.shape = shape;
    s.src = a;
    s.dst = b;
    RunPair(s);
  }
}

const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> k2d = {
    {{"S0", "S0"}, {"R", "R"}},   {{"R", "R"}, {"S0", "S0"}},   {{"S0", "S1"}, {"S1", "S0"}},
    {{"S1", "S0"}, {"S0", "S1"}}, {{"Ps", "Ps"}, {"S0", "S0"}}, {{"S0", "Ps"}, {"R", "R"}},
    {{"Ps", "S0"}, {"S0", "S0"}}, {{"Pm", "Pm"}, {"R", "S1"}},  {{"R", "R"}, {"Ps", "S1"}}};

TEST(TwoD, Mesh2x2) { Nd({2, 2}, {5, 7}, k2d); }
TEST(TwoD, Mesh2x4) { Nd({2, 4}, {9, 6}, k2d); }
TEST(TwoD, Mesh4x2) { Nd({4, 2}, {6, 9}, k2d); }

TEST(ThreeD, Mesh2x2x2) {
  Nd({2, 2, 2}, {5, 6, 7},
     {{{"S0", "S0", "S0"}, {"S1", "S1", "S1"}},
      {{"S1", "S1", "S1"}, {"S0", "S0", "S0"}},
      {{"S0", "S1", "S2"}, {"S2", "S1", "S0"}},
      {{"S0", "S0", "S0"}, {"R", "S0", "S0"}}});
}

TEST(Dtypes, EveryDtypeMovesAndReduces) {
  const int64_t n = TheWorld().size;
  for (const Type& t : conformance::AllTypes()) {
    std::vector<std::pair<std::string, std::string>> pairs = {{"S0", "R"}, {"S0", "S1"}};
    if (t.is_bool) {
      pairs.push_back({"Pm", "S0"});
      pairs.push_back({"Pn", "R"});
    } else {
      pairs.push_back({"Ps", "S0"});
      pairs.push_back({"R", "Ps"});
      pairs.push_back({"Pp", "R"});
      if (!t.is_complex) pairs.push_back({"Pm", "S1"});
      if (t.is_float) pairs.push_back({"Pa", "R"});
    }
    for (const auto& [a, b] : pairs) {
      PairSpec s;
      s.mesh = {n};
      s.shape = {n + 1, 3};
      s.type = t.name;
      s.src = {a};
      s.dst = {b};
      RunPair(s);
    }
  }
}

TEST(Buffers, StridedInputsAndOutputs) {
  const int64_t n = TheWorld().size;
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"S0", "S1"}, {"S1", "S0"}, {"S0", "R"}, {"Ps", "S1"}, {"Ps", "R"}, {"R", "Ps"}}) {
    for (int mode = 1; mode < 4; ++mode) {
      PairSpec s;
      s.mesh = {n};
      s.shape = {2 * n + 1, n + 2};
      s.src = {a};
      s.dst = {b};
      s.strided_in = mode & 1;
      s.strided_out = mode & 2;
      s.repeats = 2;
      RunPair(s);
    }
  }
}

// Pieces large enough for a backend's single-copy path (UCX: 8 KiB and more), with rows of
// 1 KiB and more on the strided side: S0 -> S1 has the sender's rows strided and the receiver's
// piece contiguous (UCX: the sender writes into a buffer the receiver lends it), S1 -> S0 the
// other way round (the receiver reads into its strided rows). Uneven chunks; repeated
// executions reuse the plan; a strided output keeps both sides strided. The float64 tensor's
// kept block spans several of the 64 KiB slices the executor copies between looks at the
// exchange (pairwise.cpp).
TEST(Buffers, LargeStridedPiecesMoveInPlace) {
  const int64_t n = TheWorld().size;
  for (const auto& [a, b] :
       std::vector<std::pair<std::string, std::string>>{{"S0", "S1"}, {"S1", "S0"}}) {
    for (const char* type : {"float32", "float64"}) {
      PairSpec s;
      s.mesh = {n};
      s.shape = {(type == std::string("float64") ? 72 : 16) * n + 5, 256 * n + 40};
      s.type = type;
      s.src = {a};
      s.dst = {b};
      s.repeats = 2;
      RunPair(s);
      s.strided_out = true;
      RunPair(s);
    }
  }
}

TEST(Execution, AsyncRepeatedAndOneShot) {
  const int64_t n = TheWorld().size;
  for (const auto& [a, b] :
       std::vector<std::pair<std::string, std::string>>{{"S0", "S1"}, {"Ps", "S0"}, {"S1", "R"}}) {
    PairSpec s;
    s.mesh = {n};
    s.shape = {3 * n, 2 * n + 1};
    s.src = {a};
    s.dst = {b};
    s.repeats = 3;
    s.async = true;
    RunPair(s);  // one plan, three async executions reusing its workspace
    s.one_shot = true;
    RunPair(s);  // weft_redistribute: planned once, then from the cache
    s.async = false;
    s.strided_out = true;
    RunPair(s);
  }
}

}  // namespace
}  // namespace redist
