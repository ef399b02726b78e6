// The conventions every call of the C ABI shares (SPEC §6.1): options structs' struct_size,
// text outputs (buf, len, needed), status strings, the ABI version and the thread-local last
// error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/api/bad_input.hpp"
#include "weft/weft.h"

namespace {

using weft_test::Env;

// ---- struct_size (SPEC §6.1) --------------------------------------------------------------------

class StructSize : public testing::Test {
 protected:
  struct Bigger {
    weft_mesh_options_t opts;
    uint64_t tail[3];
  };
  weft_status_t Create(const void* opts, weft_mesh_t** mesh) {
    return weft_mesh_create_ex(nullptr, 2, shape_, nullptr,
                               static_cast<const weft_mesh_options_t*>(opts), mesh);
  }
  // The name of dim 1, to see that the options were read.
  std::string Dim1Name(const weft_mesh_t* mesh) {
    char name[16] = "";
    size_t needed = 0;
    EXPECT_EQ(weft_mesh_dim_name(mesh, 1, name, sizeof name, &needed), WEFT_OK);
    return name;
  }
  const int64_t shape_[2] = {2, 2};
  const char* const names_[2] = {"x", "y"};
};

TEST_F(StructSize, EveryTooSmallSizeIsRejected) {
  for (uint32_t size = 0; size < sizeof(weft_mesh_options_t); ++size) {
    weft_mesh_options_t opts = WEFT_MESH_OPTIONS_INIT;
    opts.struct_size = size;
    weft_mesh_t* mesh = nullptr;
    EXPECT_EQ(Create(&opts, &mesh), WEFT_ERR_INVALID_ARGUMENT) << size;
    EXPECT_EQ(mesh, nullptr);
    EXPECT_NE(std::string(weft_last_error()).find("opts->struct_size is " + std::to_string(size)),
              std::string::npos)
        << weft_last_error();
  }
}

TEST_F(StructSize, LargerWithZeroTailIsAccepted) {
  Bigger big{WEFT_MESH_OPTIONS_INIT, {0, 0, 0}};
  big.opts.struct_size = sizeof(big);
  big.opts.dim_names = names_;
  weft_mesh_t* mesh = nullptr;
  ASSERT_EQ(Create(&big, &mesh), WEFT_OK) << weft_last_error();
  EXPECT_EQ(Dim1Name(mesh), "y");
  weft_mesh_destroy(mesh);
}

TEST_F(StructSize, LargerWithNonZeroTailIsRejectedNamingTheByte) {
  for (size_t byte = sizeof(weft_mesh_options_t); byte < sizeof(Bigger); ++byte) {
    Bigger big{WEFT_MESH_OPTIONS_INIT, {0, 0, 0}};
    big.opts.struct_size = sizeof(big);
    reinterpret_cast<unsigned char*>(&big)[byte] = 0x01;
    weft_mesh_t* mesh = nullptr;
    EXPECT_EQ(Create(&big, &mesh), WEFT_ERR_INVALID_ARGUMENT) << byte;
    EXPECT_EQ(mesh, nullptr);
    EXPECT_NE(std::string(weft_last_error()).find("byte " + std::to_string(byte)),
              std::string::npos)
        << weft_last_error();
  }
}

// A non-zero byte past struct_size is not the library's business: it belongs to the caller.
TEST_F(StructSize, BytesBeyondStructSizeAreIgnored) {
  Bigger big{WEFT_MESH_OPTIONS_INIT, {~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}}};
  big.opts.dim_names = names_;
  weft_mesh_t* mesh = nullptr;
  ASSERT_EQ(Create(&big, &mesh), WEFT_OK) << weft_last_error();
  EXPECT_EQ(Dim1Name(mesh), "y");
  weft_mesh_destroy(mesh);
}

// ---- text outputs (buf, len, needed) ------------------------------------------------------------

struct TextCall {
  const char* name;
  std::function<weft_status_t(Env&, char*, size_t, size_t*)> call;
};

std::ostream& operator<<(std::ostream& os, const TextCall& c) { return os << c.name; }

class TextOutput : public testing::TestWithParam<TextCall> {
 protected:
  Env env_;
  // The full text, read through a size query and a buffer of exactly that size.
  std::string Full() {
    size_t needed = 0;
    EXPECT_EQ(GetParam().call(env_, nullptr, 0, &needed), WEFT_OK) << weft_last_error();
    std::vector<char> buf(needed, '#');
    size_t again = 0;
    EXPECT_EQ(GetParam().call(env_, buf.data(), buf.size(), &again), WEFT_OK);
    EXPECT_EQ(again, needed);
    EXPECT_EQ(buf.back(), '\0');
    return std::string(buf.data());
  }
};

TEST_P(TextOutput, SizeQueryReportsTheBytesWithTheNul) {
  const std::string text = Full();
  EXPECT_FALSE(text.empty());
  size_t needed = 0;
  EXPECT_EQ(GetParam().call(env_, nullptr, 0, &needed), WEFT_OK);
  EXPECT_EQ(needed, text.size() + 1);
}

TEST_P(TextOutput, TooSmallBufferIsUntouchedAndNeededIsSet) {
  const std::string text = Full();
  for (size_t len : {size_t{0}, size_t{1}, text.size()}) {
    std::vector<char> buf(text.size() + 8, '#');
    size_t needed = 0;
    EXPECT_EQ(GetParam().call(env_, buf.data(), len, &needed), WEFT_ERR_INVALID_ARGUMENT) << len;
    EXPECT_EQ(needed, text.size() + 1);
    EXPECT_EQ(std::count(buf.begin(), buf.end(), '#'), static_cast<long>(buf.size()));
    EXPECT_EQ(std::string(weft_last_error())
                  .find(std::string(GetParam().name) + ": len is " + std::to_string(len)),
              0u)
        << weft_last_error();
  }
}

TEST_P(TextOutput, LargerBufferGetsTheTextAndNothingPastTheNul) {
  const std::string text = Full();
  std::vector<char> buf(text.size() + 8, '#');
  size_t needed = 0;
  ASSERT_EQ(GetParam().call(env_, buf.data(), buf.size(), &needed), WEFT_OK);
  EXPECT_EQ(needed, text.size() + 1);
  EXPECT_EQ(std::string(buf.data()), text);
  EXPECT_EQ(std::count(buf.begin() + needed, buf.end(), '#'), 7);
}

INSTANTIATE_TEST_SUITE_P(
    Api, TextOutput,
    testing::Values(TextCall{"weft_mesh_describe",
                             [](Env& e, char* buf, size_t len, size_t* needed) {
                               return weft_mesh_describe(e.mesh, buf, len, needed);
                             }},
                    TextCall{"weft_mesh_dim_name",
                             [](Env& e, char* buf, size_t len, size_t* needed) {
                               return weft_mesh_dim_name(e.mesh, 1, buf, len, needed);
                             }},
                    TextCall{"weft_layout_describe",
                             [](Env& e, char* buf, size_t len, size_t* needed) {
                               return weft_layout_describe(e.layout, buf, len, needed);
                             }}),
    [](const testing::TestParamInfo<TextCall>& info) { return std::string(info.param.name); });

// An unnamed dim has the name "": one byte, the NUL.
TEST(TextOutputEmpty, UnnamedDimNeedsOneByte) {
  const int64_t shape[1] = {3};
  weft_mesh_t* mesh = nullptr;
  ASSERT_EQ(weft_mesh_create(nullptr, 1, shape, nullptr, &mesh), WEFT_OK);
  size_t needed = 0;
  EXPECT_EQ(weft_mesh_dim_name(mesh, 0, nullptr, 0, &needed), WEFT_OK);
  EXPECT_EQ(needed, 1u);
  char c = '#';
  EXPECT_EQ(weft_mesh_dim_name(mesh, 0, &c, 1, &needed), WEFT_OK);
  EXPECT_EQ(c, '\0');
  weft_mesh_destroy(mesh);
}

// weft_layout_split_sizes follows the same rule with (sizes, len, count).
TEST(SplitSizes, TooShortArrayIsUntouchedAndCountIsSet) {
  Env env;
  int64_t count = 0;
  EXPECT_EQ(weft_layout_split_sizes(env.layout, 1, nullptr, 0, &count), WEFT_OK);
  EXPECT_EQ(count, 4);
  int64_t sizes[4] = {-7, -7, -7, -7};
  count = 0;
  EXPECT_EQ(weft_layout_split_sizes(env.layout, 1, sizes, 3, &count), WEFT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(count, 4);
  EXPECT_TRUE(sizes[0] == -7 && sizes[1] == -7 && sizes[2] == -7 && sizes[3] == -7);
  EXPECT_EQ(weft_layout_split_sizes(env.layout, 1, sizes, 4, &count), WEFT_OK);
  EXPECT_TRUE(sizes[0] == 3 && sizes[1] == 3 && sizes[2] == 3 && sizes[3] == 1);  // 10 over 4
}

// ---- status strings, versions -------------------------------------------------------------------

TEST(StatusString, NamesEveryCode) {
  const std::vector<std::pair<weft_status_t, std::string>> codes = {
      {WEFT_OK, "WEFT_OK"},
      {WEFT_IN_PROGRESS, "WEFT_IN_PROGRESS"},
      {WEFT_ERR_INVALID_ARGUMENT, "WEFT_ERR_INVALID_ARGUMENT"},
      {WEFT_ERR_INVALID_USAGE, "WEFT_ERR_INVALID_USAGE"},
      {WEFT_ERR_UNSUPPORTED, "WEFT_ERR_UNSUPPORTED"},
      {WEFT_ERR_NOT_AVAILABLE, "WEFT_ERR_NOT_AVAILABLE"},
      {WEFT_ERR_VERSION_MISMATCH, "WEFT_ERR_VERSION_MISMATCH"},
      {WEFT_ERR_OUT_OF_MEMORY, "WEFT_ERR_OUT_OF_MEMORY"},
      {WEFT_ERR_TIMEOUT, "WEFT_ERR_TIMEOUT"},
      {WEFT_ERR_PEER_FAILURE, "WEFT_ERR_PEER_FAILURE"},
      {WEFT_ERR_ABORTED, "WEFT_ERR_ABORTED"},
      {WEFT_ERR_SYSTEM, "WEFT_ERR_SYSTEM"},
      {WEFT_ERR_BACKEND, "WEFT_ERR_BACKEND"},
      {WEFT_ERR_PLUGIN, "WEFT_ERR_PLUGIN"},
      {WEFT_ERR_INTERNAL, "WEFT_ERR_INTERNAL"},
  };
  for (const auto& [code, name] : codes) {
    const char* s = weft_status_string(code);
    ASSERT_NE(s, nullptr) << code;
    // "NAME: explanation": the name, then more than the name.
    EXPECT_EQ(std::string(s).rfind(name + ": ", 0), 0u) << code << " -> " << s;
    EXPECT_GT(std::strlen(s), name.size() + 2) << s;
    EXPECT_EQ(weft_status_string(code), s) << "static text: the same pointer every time";
  }
}

TEST(StatusString, CodesAreNeverRenumbered) {
  EXPECT_EQ(WEFT_OK, 0);
  EXPECT_EQ(WEFT_IN_PROGRESS, 1);
  EXPECT_EQ(WEFT_ERR_INVALID_ARGUMENT, -1);
  EXPECT_EQ(WEFT_ERR_INVALID_USAGE, -2);
  EXPECT_EQ(WEFT_ERR_UNSUPPORTED, -3);
  EXPECT_EQ(WEFT_ERR_NOT_AVAILABLE, -4);
  EXPECT_EQ(WEFT_ERR_VERSION_MISMATCH, -5);
  EXPECT_EQ(WEFT_ERR_OUT_OF_MEMORY, -6);
  EXPECT_EQ(WEFT_ERR_TIMEOUT, -7);
  EXPECT_EQ(WEFT_ERR_PEER_FAILURE, -8);
  EXPECT_EQ(WEFT_ERR_ABORTED, -9);
  EXPECT_EQ(WEFT_ERR_SYSTEM, -10);
  EXPECT_EQ(WEFT_ERR_BACKEND, -11);
  EXPECT_EQ(WEFT_ERR_PLUGIN, -12);
  EXPECT_EQ(WEFT_ERR_INTERNAL, -13);
}

TEST(StatusString, UnknownCodes) {
  for (weft_status_t code : {2, 100, -14, -1000, INT32_MIN, INT32_MAX})
    EXPECT_STREQ(weft_status_string(code), "unknown weft status") << code;
}

TEST(Version, AbiVersionIsOneZero) {
  EXPECT_EQ(weft_abi_version(), (1u << 16) | 0u);
  EXPECT_EQ(weft_abi_version() >> 16, static_cast<uint32_t>(WEFT_VERSION_MAJOR));
  EXPECT_EQ(weft_abi_version() & 0xffffu, static_cast<uint32_t>(WEFT_VERSION_MINOR));
  EXPECT_EQ(std::string(weft_version_string()).rfind("1.0.0", 0), 0u) << weft_version_string();
}

// ---- the last error is per thread ---------------------------------------------------------------

TEST(LastError, IsThreadLocal) {
  weft_mesh_t* mesh = nullptr;
  ASSERT_EQ(weft_mesh_create(nullptr, 1, nullptr, nullptr, &mesh), WEFT_ERR_INVALID_ARGUMENT);
  const std::string mine = weft_last_error();
  ASSERT_EQ(mine, "weft_mesh_create: shape is NULL");

  std::string fresh, theirs;
  std::thread other([&] {
    fresh = weft_last_error();
    weft_layout_ndim(nullptr, nullptr);
    theirs = weft_last_error();
  });
  other.join();
  EXPECT_EQ(fresh, "") << "a new thread starts without an error";
  EXPECT_EQ(theirs, "weft_layout_ndim: layout is NULL");
  EXPECT_EQ(std::string(weft_last_error()), mine) << "another thread's failure leaked in";
}

TEST(LastError, SuccessLeavesTheMessage) {
  Env env;
  ASSERT_EQ(weft_layout_ndim(env.layout, nullptr), WEFT_ERR_INVALID_ARGUMENT);
  const std::string before = weft_last_error();
  int32_t ndim = 0;
  ASSERT_EQ(weft_layout_ndim(env.layout, &ndim), WEFT_OK);
  EXPECT_EQ(std::string(weft_last_error()), before);
}

// Many threads failing at once each read back their own message.
TEST(LastError, ConcurrentFailuresKeepTheirOwnMessages) {
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  std::vector<int> mismatches(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &mismatches] {
      const int64_t shape[1] = {-1000 - t};
      for (int i = 0; i < 200; ++i) {
        weft_mesh_t* mesh = nullptr;
        weft_mesh_create(nullptr, 1, shape, nullptr, &mesh);
        const std::string want = "shape[0] is " + std::to_string(-1000 - t) + " ";
        if (std::string(weft_last_error()).find(want) == std::string::npos) ++mismatches[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

// ---- regressions --------------------------------------------------------------------------------

// An int8 dim may hold INT64_MAX elements; the chunk rule must not overflow computing
// ceil(n / k) as (n + k - 1) / k (tests/fuzz/layout_fuzz finds that; seed huge_extent_int8).
TEST(Regression, ChunkOfHugeExtentDoesNotOverflow) {
  const int64_t mesh_shape[1] = {2}, global[1] = {INT64_MAX};
  const weft_placement_t s0[1] = {WEFT_PLACEMENT_SHARD(0)};
  weft_mesh_t* mesh = nullptr;
  weft_layout_t* layout = nullptr;
  ASSERT_EQ(weft_mesh_create(nullptr, 1, mesh_shape, nullptr, &mesh), WEFT_OK);
  ASSERT_EQ(weft_layout_create(mesh, 1, global, {kDLInt, 8, 1}, s0, &layout), WEFT_OK)
      << weft_last_error();
  int64_t shape[1] = {0}, offset[1] = {0};
  ASSERT_EQ(weft_layout_local_shape(layout, 0, shape, offset), WEFT_OK);
  EXPECT_EQ(shape[0], INT64_MAX / 2 + 1);
  EXPECT_EQ(offset[0], 0);
  ASSERT_EQ(weft_layout_local_shape(layout, 1, shape, offset), WEFT_OK);
  EXPECT_EQ(shape[0], INT64_MAX / 2);
  EXPECT_EQ(offset[0], INT64_MAX / 2 + 1);
  weft_layout_destroy(layout);
  weft_mesh_destroy(mesh);
}

}  // namespace
