// The scientific-computing rule plugin: operators DTensor has no rules for, added the way a
// framework adds its own — a shared object libweft loads at run time, written against the rule
// plugin ABI alone. fft along a dim that arrives sharded makes the engine plan the transpose
// (an all-to-all to shard another dim) rather than a gather; stencil is a banded operator.
#include <string>

#include "common/plugin_kit/entry.hpp"
#include "ops.hpp"

namespace scientific {

const weft_rules_host_t* host = nullptr;

weft_status_t AlongDimStrategies(const weft_rule_tensor_t& x, int32_t along, int32_t also,
                                 weft_rule_ctx_t* ctx) {
  weft_rule_code_t codes[2] = {};  // R, R
  weft_status_t s = host->add_output(ctx, x.ndim, x.shape, x.dtype);
  if (s == WEFT_OK) s = host->add_strategy(ctx, codes, 2);
  for (int32_t d = 0; d < x.ndim && s == WEFT_OK; ++d) {
    if (d == along || d == also) continue;
    codes[0] = codes[1] = {WEFT_CODE_S, d, 0, 0};
    s = host->add_strategy(ctx, codes, 2);
    const int32_t tensors[2] = {0, 1}, dims[2] = {d, d};
    if (s == WEFT_OK) s = host->add_aligned(ctx, tensors, dims, 2);
  }
  for (int32_t op : {WEFT_REDUCE_SUM, WEFT_REDUCE_AVG}) {
    codes[0] = codes[1] = {WEFT_CODE_P, 0, op, 0};
    if (s == WEFT_OK) s = host->add_strategy(ctx, codes, 2);
  }
  return s;
}

namespace {

template <auto F>
constexpr auto kGuarded = weft::plugin_kit::Entry<F>::Call;

weft_status_t Add(weft_rules_registrar_t* r, const char* name, const char* key, weft_rule_fn rule,
                  weft_rule_kernel_fn kernel) {
  const char* keys[] = {key};
  weft_rule_op_t op{};
  op.struct_size = sizeof(op);
  op.name = name;
  op.min_inputs = op.max_inputs = 1;
  op.key_attrs = keys;
  op.n_key_attrs = 1;
  op.rule = rule;
  op.kernel = kernel;
  return host->add_op(r, &op);
}

weft_status_t RegisterOps(const weft_rules_host_t* h, weft_rules_registrar_t* r) {
  host = h;
  weft_status_t s = Add(r, "fft", "dim", kGuarded<FftRule>, kGuarded<FftKernel>);
  if (s == WEFT_OK) s = Add(r, "stencil", "dim", kGuarded<StencilRule>, kGuarded<StencilKernel>);
  // A spectral product as a declaration: batched complex-free mixing of modes, linear in both.
  if (s == WEFT_OK) s = host->add_einsum(r, "spectral_mix", "bim,iom->bom", 0, nullptr);
  return s;
}

const weft_rules_plugin_t kPlugin = {
    sizeof(weft_rules_plugin_t),
    WEFT_RULES_PLUGIN_ABI_VERSION,
    "scientific",
    kGuarded<RegisterOps>,
};

}  // namespace
}  // namespace scientific

extern "C" __attribute__((visibility("default"))) const weft_rules_plugin_t* weft_rules_plugin_v1(
    void) {
  return &scientific::kPlugin;
}
