// A plugin that declares parameters (ABI 1.3). Built several times: FAKE_PARAMS picks the
// declarations, sound ("ok") or wrong in one way each, and FAKE_PARAM_STRIDE the struct_size
// the descriptors claim.
#include <cstring>

#include "common/param_parse.hpp"
#include "tests/backends/host/fakes/fake_core.hpp"

namespace {

using namespace weft::param;

#define FAKE_STR(x) #x
#define FAKE_NAME(x) FAKE_STR(x)

constexpr weft_bk_param_t kLevel =
    DeclareInt("WEFT_FAKEP_LEVEL", "1", 0, 3, kTuning, kMustMatch, "a level that must match");
constexpr weft_bk_param_t kLabel =
    DeclareString("WEFT_FAKEP_LABEL", nullptr, kDebug, kLocal, "a label that may differ");

weft_bk_param_t Variant(int i) {
  weft_bk_param_t p = i == 0 ? kLevel : kLabel;
  const char* which = FAKE_NAME(FAKE_PARAMS);
  if (std::strcmp(which, "badname") == 0 && i == 1) p.name = "FAKEP_LABEL";
  if (std::strcmp(which, "twice") == 0 && i == 1) p.name = "WEFT_FAKEP_LEVEL";
  if (std::strcmp(which, "hostname") == 0 && i == 1) p.name = "WEFT_TIMEOUT_MS";
  if (std::strcmp(which, "baddefault") == 0 && i == 0) p.default_value = "9";
#ifdef FAKE_PARAM_STRIDE
  p.struct_size = FAKE_PARAM_STRIDE;
#endif
  return p;
}

}  // namespace

FAKE_EXPORT const weft_backend_plugin_t* weft_backend_plugin_v1(void) {
  static const weft_bk_param_t params[2] = {Variant(0), Variant(1)};
  static const weft_backend_plugin_t table = [] {
    weft_backend_plugin_t t = fake::MandatoryTable("fakeparams");
    t.params = params;
    t.num_params = 2;
    return t;
  }();
  return &table;
}
