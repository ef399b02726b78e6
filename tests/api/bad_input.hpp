// What the bad-input tests of the C ABI share (SPEC §6.1, §10): valid objects for a call to be
// wrong about, output slots preset to values no call writes, and the one check every case
// makes: WEFT_ERR_INVALID_ARGUMENT, a message that names the function, the argument and (when
// given) the value, and untouched outputs.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>

#include "weft/weft.h"

namespace weft_test {

// A [2, 4] mesh named (dp, tp) over ranks 0..7 and a float32 [6, 10] layout on it as
// [S(0), S(1)].
struct Env {
  Env() {
    weft_mesh_options_t opts = WEFT_MESH_OPTIONS_INIT;
    opts.dim_names = names;
    EXPECT_EQ(weft_mesh_create_ex(nullptr, 2, mesh_shape, nullptr, &opts, &mesh), WEFT_OK);
    EXPECT_EQ(weft_layout_create(mesh, 2, global, f32, placements, &layout), WEFT_OK);
  }
  ~Env() {
    weft_layout_destroy(layout);
    weft_mesh_destroy(mesh);
  }
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

  const int64_t mesh_shape[2] = {2, 4};
  const char* const names[2] = {"dp", "tp"};
  const int64_t global[2] = {6, 10};
  const DLDataType f32 = {kDLFloat, 32, 1};
  const weft_placement_t placements[2] = {WEFT_PLACEMENT_SHARD(0), WEFT_PLACEMENT_SHARD(1)};
  weft_mesh_t* mesh = nullptr;
  weft_layout_t* layout = nullptr;
};

// An address no call returns, to preset handle outputs with; never dereferenced.
template <class T>
T* Sentinel() {
  static char storage;
  return reinterpret_cast<T*>(&storage);
}

// Every output slot a call may write, preset to values no call writes, so that "untouched"
// is checkable.
struct Outs {
  Outs() {
    i64.fill(kI64);
    i32.fill(kI32);
    buf.fill('#');
    std::memset(placements.data(), 0xA5, sizeof(weft_placement_t) * placements.size());
  }
  bool operator==(const Outs& o) const {
    return mesh == o.mesh && layout == o.layout && ctx == o.ctx && work == o.work && i64 == o.i64 &&
           i32 == o.i32 && buf == o.buf && dtype.code == o.dtype.code &&
           dtype.bits == o.dtype.bits && dtype.lanes == o.dtype.lanes &&
           std::memcmp(placements.data(), o.placements.data(),
                       sizeof(weft_placement_t) * placements.size()) == 0;
  }

  static constexpr int64_t kI64 = 0x5A5A5A5A5A5A5A5A;
  static constexpr int32_t kI32 = 0x3C3C3C3C;
  weft_mesh_t* mesh = Sentinel<weft_mesh_t>();
  weft_layout_t* layout = Sentinel<weft_layout_t>();
  weft_context_t* ctx = Sentinel<weft_context_t>();
  weft_work_t* work = Sentinel<weft_work_t>();
  std::array<int64_t, 8> i64;
  std::array<int32_t, 8> i32;
  std::array<char, 256> buf;
  DLDataType dtype = {0xAB, 0xAB, 0xABAB};
  std::array<weft_placement_t, 4> placements;
  size_t needed = 0;  // "always set" by text calls: not part of the comparison
  int64_t count = 0;  // likewise for weft_layout_split_sizes
};

// One row of a bad-input table: a call with one invalid argument.
template <class E>
struct Case {
  std::string label;  // the gtest name
  std::string fn;     // the function the message must name
  std::string arg;    // the argument it must name
  const char* value;  // and, when not null, the offending value
  std::function<weft_status_t(E&, Outs&)> call;
};

template <class E>
std::ostream& operator<<(std::ostream& os, const Case<E>& c) {
  return os << c.label;
}

template <class E>
std::string CaseName(const testing::TestParamInfo<Case<E>>& info) {
  return info.param.label;
}

// `arg` appears as a word: after a space and not followed by more of an identifier, so "rank"
// does not match "ranks" nor "dim" match "ndim".
inline bool NamesArg(const std::string& msg, const std::string& arg) {
  for (size_t at = msg.find(' ' + arg); at != std::string::npos; at = msg.find(' ' + arg, at + 1)) {
    const size_t end = at + 1 + arg.size();
    if (end == msg.size() ||
        !(std::isalnum(static_cast<unsigned char>(msg[end])) || msg[end] == '_'))
      return true;
  }
  return false;
}

// Leaves a message that no case produces, so that a case must replace it to pass.
inline void PrimeLastError() {
  weft_mesh_t* mesh = nullptr;
  ASSERT_EQ(weft_mesh_create(nullptr, -424242, nullptr, nullptr, &mesh), WEFT_ERR_INVALID_ARGUMENT);
  ASSERT_NE(std::string(weft_last_error()).find("-424242"), std::string::npos);
}

// For calls outside the case tables: `s` is WEFT_ERR_INVALID_ARGUMENT and the last error names
// `fn`, the argument `arg` and, when not empty, `value`.
inline void ExpectInvalid(weft_status_t s, const std::string& fn, const std::string& arg,
                          const std::string& value = "") {
  EXPECT_EQ(s, WEFT_ERR_INVALID_ARGUMENT) << weft_last_error();
  const std::string msg = weft_last_error();
  EXPECT_EQ(msg.rfind(fn + ": ", 0), 0u) << msg;
  EXPECT_TRUE(NamesArg(msg, arg)) << "'" << msg << "' does not name " << arg;
  EXPECT_NE(msg.find(value), std::string::npos) << "'" << msg << "' lacks " << value;
}

template <class E>
void ExpectRejected(const Case<E>& c, E& env) {
  Outs outs;
  PrimeLastError();
  EXPECT_EQ(c.call(env, outs), WEFT_ERR_INVALID_ARGUMENT);
  const std::string msg = weft_last_error();
  EXPECT_EQ(msg.rfind(c.fn + ": ", 0), 0u) << msg;
  EXPECT_TRUE(NamesArg(msg, c.arg)) << "'" << msg << "' does not name " << c.arg;
  if (c.value != nullptr) {
    EXPECT_NE(msg.find(c.value), std::string::npos) << "'" << msg << "' lacks " << c.value;
  }
  EXPECT_TRUE(outs == Outs()) << "a failing call wrote an output";
}

}  // namespace weft_test
