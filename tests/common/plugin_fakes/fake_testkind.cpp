// The fake plugins of the test-only kind (test_kind.h), one source built once per variant:
// FAKE_VARIANT picks how the table (or the entry symbol) is wrong, if at all.
#include <cstring>

#include "tests/common/plugin_fakes/test_kind.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))
#define FAKE_STR(x) #x
#define FAKE_TEXT(x) FAKE_STR(x)

namespace {

int32_t Answer() { return 42; }
int32_t Twice(int32_t x) { return 2 * x; }
int32_t Wrong(int32_t) { return -1; }

bool Is(const char* variant) { return std::strcmp(FAKE_TEXT(FAKE_VARIANT), variant) == 0; }

// A table one field longer than the host's, as a plugin of a newer minor would have.
struct Newer {
  weft_testkind_plugin_t known;
  uint64_t later;
};

const char kLongName[] =
    "a-name-longer-than-any-plugin-name-may-be-because-it-goes-on-and-on-past-64";

Newer Make() {
  Newer n{};
  weft_testkind_plugin_t& t = n.known;
  t.struct_size = sizeof(weft_testkind_plugin_t);
  t.abi_version = WEFT_TESTKIND_VERSION;
  t.name = FAKE_TEXT(FAKE_VARIANT);
  t.answer = &Answer;
  t.twice = &Twice;
  t.motto = "mine";
  t.flags = 7;
  if (Is("v20")) {  // a 2.0 plugin: its table ends before twice
    t.abi_version = WEFT_TESTKIND_MAJOR << 16;
    t.struct_size = WEFT_TESTKIND_V2_0_SIZE;
  }
  if (Is("claims20")) {  // long enough for 2.2, but says 2.0: the later fields are not its own
    t.abi_version = WEFT_TESTKIND_MAJOR << 16;
    t.twice = &Wrong;
    t.motto = "not mine";
  }
  if (Is("v21")) t.struct_size = WEFT_TESTKIND_V2_1_SIZE;  // says 2.2, holds 2.1
  if (Is("newer")) {
    t.abi_version = WEFT_TESTKIND_MAJOR << 16 | 9;
    t.struct_size = sizeof(Newer);
    n.later = 99;
  }
  if (Is("major1")) t.abi_version = 1u << 16 | 4;
  if (Is("small")) t.struct_size = WEFT_TESTKIND_V2_0_SIZE - 1;
  if (Is("noanswer")) t.answer = nullptr;
  if (Is("noname")) t.name = nullptr;
  if (Is("longname")) t.name = kLongName;
  return n;
}

const Newer kTable = Make();

}  // namespace

#if defined(FAKE_ENTRY_V3)
// Built for a future major: only the v3 entry exists.
FAKE_EXPORT const weft_testkind_plugin_t* weft_testkind_plugin_v3(void) { return &kTable.known; }
#elif defined(FAKE_OTHER_KIND)
// A plugin of another kind altogether (a backend's entry symbol).
FAKE_EXPORT const void* weft_backend_plugin_v1(void) { return &kTable.known; }
#else
FAKE_EXPORT const weft_testkind_plugin_t* weft_testkind_plugin_v2(void) {
  return Is("null") ? nullptr : &kTable.known;
}
#endif
