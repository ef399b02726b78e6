// The aten rule plugin: PyTorch's operator names (aten.<op>.<overload>, as torch.ops and
// DTensor's op dispatch see them) as aliases of Weft's built-in operators, so a torch-based
// framework can call propagate with the names it has in hand. Aliases map names only: the
// attributes are passed under Weft's names (docs/design/rules.md lists them per operator).
// Nothing here is code a rule runs; the table is the plugin.
#include <weft/rules_plugin.h>

#include <cstddef>

namespace {

struct Alias {
  const char* aten;
  const char* weft;
};

constexpr Alias kAliases[] = {
    // pointwise
    {"aten.add.Tensor", "add"},
    {"aten.sub.Tensor", "sub"},
    {"aten.mul.Tensor", "mul"},
    {"aten.div.Tensor", "div"},
    {"aten.maximum.default", "maximum"},
    {"aten.minimum.default", "minimum"},
    {"aten.neg.default", "neg"},
    {"aten.relu.default", "relu"},
    {"aten.tanh.default", "tanh"},
    {"aten.sigmoid.default", "sigmoid"},
    {"aten.exp.default", "exp"},
    {"aten.gelu.default", "gelu"},
    {"aten.abs.default", "abs"},
    {"aten.sqrt.default", "sqrt"},
    {"aten.log.default", "log"},
    // products
    {"aten.mm.default", "matmul"},
    {"aten.bmm.default", "matmul"},
    {"aten.matmul.default", "matmul"},
    {"aten.addmm.default", "addmm"},
    {"aten.baddbmm.default", "baddbmm"},
    {"aten.linear.default", "linear"},
    {"aten.einsum.default", "einsum"},
    // shapes
    {"aten.view.default", "reshape"},
    {"aten.reshape.default", "reshape"},
    {"aten._unsafe_view.default", "reshape"},
    {"aten.flatten.using_ints", "flatten"},
    {"aten.unflatten.int", "unflatten"},
    {"aten.transpose.int", "transpose"},
    {"aten.permute.default", "permute"},
    {"aten.squeeze.dim", "squeeze"},
    {"aten.squeeze.dims", "squeeze"},
    {"aten.squeeze.default", "squeeze"},
    {"aten.unsqueeze.default", "unsqueeze"},
    {"aten.expand.default", "expand"},
    {"aten.clone.default", "contiguous"},
    {"aten.cat.default", "cat"},
    {"aten.stack.default", "stack"},
    {"aten.split.Tensor", "split"},
    {"aten.split_with_sizes.default", "split"},
    {"aten.chunk.default", "chunk"},
    {"aten.narrow.default", "narrow"},
    {"aten.slice.Tensor", "slice"},
    {"aten.index_select.default", "index_select"},
    {"aten.gather.default", "gather"},
    // reductions, normalizations, embedding, scans, selection, attention
    {"aten.sum.default", "sum"},
    {"aten.sum.dim_IntList", "sum"},
    {"aten.mean.default", "mean"},
    {"aten.mean.dim", "mean"},
    {"aten.prod.default", "prod"},
    {"aten.prod.dim_int", "prod"},
    {"aten.max.default", "max"},
    {"aten.min.default", "min"},
    {"aten.amax.default", "amax"},
    {"aten.amin.default", "amin"},
    {"aten.argmax.default", "argmax"},
    {"aten.softmax.int", "softmax"},
    {"aten._softmax.default", "softmax"},
    {"aten.log_softmax.int", "log_softmax"},
    {"aten._log_softmax.default", "log_softmax"},
    {"aten.layer_norm.default", "layer_norm"},
    {"aten.rms_norm.default", "rms_norm"},
    {"aten.dropout.default", "dropout"},
    {"aten.embedding.default", "embedding"},
    {"aten.cross_entropy_loss.default", "cross_entropy"},
    {"aten.cumsum.default", "cumsum"},
    {"aten.sort.default", "sort"},
    {"aten.topk.default", "topk"},
    {"aten.where.self", "where"},
    {"aten.masked_fill.Scalar", "masked_fill"},
    {"aten.scaled_dot_product_attention.default", "scaled_dot_product_attention"},
};

weft_status_t RegisterOps(const weft_rules_host_t* host, weft_rules_registrar_t* r) {
  for (const Alias& a : kAliases) {
    const weft_status_t s = host->add_alias(r, a.aten, a.weft);
    if (s != WEFT_OK) return s;  // the host holds the message
  }
  return WEFT_OK;
}

const weft_rules_plugin_t kPlugin = {
    sizeof(weft_rules_plugin_t),
    WEFT_RULES_PLUGIN_ABI_VERSION,
    "aten",
    RegisterOps,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const weft_rules_plugin_t* weft_rules_plugin_v1(
    void) {
  return &kPlugin;
}
