// Rule plugins that misbehave, one per BAD_* definition (tests/ops/CMakeLists.txt builds each):
// the host must refuse every one with a clear error and leave the registry unchanged.
#include <weft/rules_plugin.h>

#include <stdexcept>

namespace {

const weft_rules_host_t* host = nullptr;

weft_status_t Rule(void*, const weft_rule_tensor_t* in, int32_t, weft_rule_ctx_t* ctx) {
#if defined(BAD_THROWS)
  (void)in;
  (void)ctx;
  throw std::runtime_error("a rule that throws");
#else
  weft_status_t s = host->add_output(ctx, in[0].ndim, in[0].shape, in[0].dtype);
  const weft_rule_code_t codes[2] = {{WEFT_CODE_S, 7, 0, 0}, {WEFT_CODE_S, 0, 0, 0}};
  return s == WEFT_OK ? host->add_strategy(ctx, codes, 2) : s;  // S(7) of a 2-dim tensor
#endif
}

weft_status_t Register(const weft_rules_host_t* h, weft_rules_registrar_t* r) {
  host = h;
  weft_rule_op_t op{};
  op.struct_size = sizeof(op);
  op.name = "bad_op";
  op.min_inputs = op.max_inputs = 1;
  op.rule = Rule;
  weft_status_t s = host->add_op(r, &op);
#if defined(BAD_FAILS)
  if (s == WEFT_OK) s = host->add_alias(r, "bad_alias", "no_such_operator");
  host->register_error(r, "gave up half way");
  return WEFT_ERR_INVALID_ARGUMENT;
#else
  return s;
#endif
}

const weft_rules_plugin_t kPlugin = {sizeof(weft_rules_plugin_t),
#if defined(BAD_MAJOR)
                                     (2u << 16),
#else
                                     WEFT_RULES_PLUGIN_ABI_VERSION,
#endif
                                     "bad", Register};

}  // namespace

#if defined(BAD_MAJOR)
extern "C" __attribute__((visibility("default"))) const weft_rules_plugin_t* weft_rules_plugin_v2(
    void) {
  return &kPlugin;
}
#elif !defined(BAD_NO_ENTRY)
extern "C" __attribute__((visibility("default"))) const weft_rules_plugin_t* weft_rules_plugin_v1(
    void) {
  return &kPlugin;
}
#else
extern "C" __attribute__((visibility("default"))) int weft_rules_plugin_typo(void) { return 0; }
#endif
