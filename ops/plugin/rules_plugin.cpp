#include "ops/plugin/rules_plugin.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ops/plugin/host_table.hpp"

namespace weft::ops {
namespace {

Status CheckTable(const void* table, const std::string& who) {
  const auto& t = *static_cast<const weft_rules_plugin_t*>(table);
  if (t.register_ops == nullptr) return Status(Code::kPlugin, who + " has no register_ops");
  return Status::Ok();
}

// A plugin's status as the host's: its own negative codes kept, anything else kPlugin.
Status FromPlugin(weft_status_t s, const std::string& who, const std::string& message) {
  const std::string text = who + ": " + (message.empty() ? "(no message)" : message);
  if (s >= WEFT_ERR_INTERNAL && s <= WEFT_ERR_INVALID_ARGUMENT)
    return Status(static_cast<Code>(s), text);
  return Status(Code::kPlugin, who + " returned status " + std::to_string(s) + ": " + text);
}

// Calls into the plugin, which must not throw (the plugin kit's Guard sees to it); one that
// does anyway fails the call rather than unwinding through libweft's callers.
template <typename Call>
Status Invoke(const std::string& who, weft_rule_ctx& ctx, Call&& call) {
  weft_status_t s = WEFT_OK;
  try {
    s = call();
  } catch (...) {
    return Status(Code::kPlugin, who + " threw an exception across the rule plugin ABI");
  }
  if (s == WEFT_OK && ctx.failed) s = WEFT_ERR_INVALID_ARGUMENT;
  return s == WEFT_OK ? Status::Ok() : FromPlugin(s, who, ctx.error);
}

struct PluginOp {
  weft_rule_op_t op;
  std::string who;  // "operator 'fft' of rule plugin scientific (/path)"
  std::shared_ptr<const plugin::PluginModule> module;  // keeps the callbacks mapped
};

Status CallRule(const PluginOp& p, std::span<const TensorInfo> in, const Attributes& attrs,
                RuleResult* r) {
  std::vector<weft_rule_tensor_t> c(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    c[i] = {static_cast<int32_t>(in[i].shape.size()), 0, in[i].shape.data(), ToDL(in[i].dtype)};
  weft_rule_ctx ctx;
  ctx.attrs = &attrs;
  ctx.result = r;
  ctx.n_inputs = static_cast<int32_t>(in.size());
  return Invoke(p.who, ctx, [&] {
    return p.op.rule(p.op.user, c.data(), static_cast<int32_t>(c.size()), &ctx);
  });
}

Status CallKernel(const PluginOp& p, const KernelCall& call, std::vector<DenseTensor>* out) {
  std::vector<DenseTensor> in(call.inputs.begin(), call.inputs.end());  // the plugin may not write
  std::vector<weft_kernel_tensor_t> cin(in.size()), cout(call.output_shapes.size());
  static const std::vector<int64_t> kZeros(64, 0);
  for (size_t i = 0; i < in.size(); ++i)
    cin[i] = {static_cast<int32_t>(in[i].shape.size()),
              0,
              in[i].shape.data(),
              i < call.input_offsets.size() ? call.input_offsets[i].data() : kZeros.data(),
              in[i].values.data(),
              static_cast<int64_t>(in[i].values.size())};
  out->assign(call.output_shapes.size(), {});
  for (size_t o = 0; o < cout.size(); ++o) {
    DenseTensor& t = (*out)[o];
    t.shape = call.output_shapes[o];
    int64_t n = 1;
    for (int64_t e : t.shape) n *= e;
    t.values.assign(static_cast<size_t>(n), 0.0);
    cout[o] = {
        static_cast<int32_t>(t.shape.size()), 0, t.shape.data(), kZeros.data(), t.values.data(), n};
  }
  weft_rule_ctx ctx;
  ctx.attrs = call.attrs;
  ctx.n_inputs = static_cast<int32_t>(in.size());
  return Invoke(p.who + " (kernel)", ctx, [&] {
    return p.op.kernel(p.op.user, cin.data(), static_cast<int32_t>(cin.size()), cout.data(),
                       static_cast<int32_t>(cout.size()), &ctx);
  });
}

}  // namespace

const plugin::PluginKind kRulesPluginKind = {
    .noun = "rule plugin",
    .short_noun = "rule plugin",
    .entry_prefix = "weft_rules_plugin_v",
    .file_pattern = "libweft-rules-%s.so",
    .search_path = "WEFT_RULES_PATH",
    .major = WEFT_RULES_PLUGIN_ABI_MAJOR,
    .minor = WEFT_RULES_PLUGIN_ABI_MINOR,
    .table_size = sizeof(weft_rules_plugin_t),
    .min_size = WEFT_RULES_PLUGIN_V1_0_SIZE,
    .adapters = {},
    .validate = &CheckTable,
};

OpDef PluginOpDef(const weft_rule_op_t& op, const weft_rules_registrar& r) {
  OpDef def;
  def.name = op.name;
  def.min_inputs = op.min_inputs;
  def.max_inputs = op.max_inputs;
  def.source = r.source;
  def.signature = "rule plugin " + r.name;
  for (int32_t k = 0; k < op.n_key_attrs; ++k) def.key_attrs.emplace_back(op.key_attrs[k]);
  auto p = std::make_shared<PluginOp>(
      PluginOp{op, "operator '" + def.name + "' of " + r.source, r.module});
  p->op.name = nullptr;  // the plugin's strings are not kept
  p->op.key_attrs = nullptr;
  def.rule = [p](std::span<const TensorInfo> in, const Attributes& attrs, RuleResult* out) {
    return CallRule(*p, in, attrs, out);
  };
  if (op.kernel != nullptr)
    def.kernel = [p](const KernelCall& call, std::vector<DenseTensor>* out) {
      return CallKernel(*p, call, out);
    };
  return def;
}

Status LoadRulesPlugin(Registry& registry, const std::string& name_or_path) {
  WEFT_RETURN_IF_ERROR(plugin::CheckName(kRulesPluginKind, name_or_path, "the rule plugin"));
  auto loaded = plugin::LoadPlugin<weft_rules_plugin_t>(kRulesPluginKind, name_or_path);
  if (!loaded.ok()) return loaded.status();
  weft_rules_registrar r;
  r.module = std::make_shared<const plugin::PluginModule>(std::move(loaded->module));
  const char* name = loaded->table.name;
  r.name = name;
  r.source = "rule plugin " + r.name + " (" + r.module->path() + ")";
  weft_status_t st = WEFT_OK;
  try {
    st = loaded->table.register_ops(RulesHostTable(), &r);
  } catch (...) {
    return Status(Code::kPlugin, r.source + " threw an exception out of register_ops");
  }
  r.open = false;
  if (st != WEFT_OK || r.failed)
    return Status(Code::kPlugin, r.source + ": register_ops failed" +
                                     (st != WEFT_OK ? " (status " + std::to_string(st) + ")" : "") +
                                     ": " + (r.error.empty() ? "(no message)" : r.error));
  return registry.AddBatch(std::move(r.batch));
}

}  // namespace weft::ops
