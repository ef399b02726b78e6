#include "backends/host/plugin_loader.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "common/params.hpp"

namespace weft::backends {
namespace {

struct OpMask {
  const char* name;
  uint64_t cap;
  size_t offset;  // of the function pointer in the table
};

const OpMask kOps[] = {
    {"allreduce", WEFT_BK_CAP_ALLREDUCE, offsetof(weft_backend_plugin_t, allreduce)},
    {"allgather", WEFT_BK_CAP_ALLGATHER, offsetof(weft_backend_plugin_t, allgather)},
    {"allgatherv", WEFT_BK_CAP_ALLGATHERV, offsetof(weft_backend_plugin_t, allgatherv)},
    {"reduce_scatter", WEFT_BK_CAP_REDUCE_SCATTER, offsetof(weft_backend_plugin_t, reduce_scatter)},
    {"reduce_scatterv", WEFT_BK_CAP_REDUCE_SCATTERV,
     offsetof(weft_backend_plugin_t, reduce_scatterv)},
    {"alltoall", WEFT_BK_CAP_ALLTOALL, offsetof(weft_backend_plugin_t, alltoall)},
    {"alltoallv", WEFT_BK_CAP_ALLTOALLV, offsetof(weft_backend_plugin_t, alltoallv)},
    {"broadcast", WEFT_BK_CAP_BROADCAST, offsetof(weft_backend_plugin_t, broadcast)},
    {"barrier", WEFT_BK_CAP_BARRIER, offsetof(weft_backend_plugin_t, barrier)},
    {"strided", WEFT_BK_CAP_STRIDED, offsetof(weft_backend_plugin_t, send_strided)},
    {"strided", WEFT_BK_CAP_STRIDED, offsetof(weft_backend_plugin_t, recv_strided)},
};

void** Slot(weft_backend_plugin_t& t, size_t offset) {
  return reinterpret_cast<void**>(reinterpret_cast<char*>(&t) + offset);
}

// Every word of the comma list must name an op of kOps (or be "all" alone): a typo would
// otherwise leave the op native and the test that set it checking nothing.
Status CheckMaskWords(const std::string& disabled) {
  if (disabled.empty() || disabled == "all") return Status::Ok();
  for (size_t at = 0, end = 0; end != std::string::npos; at = end + 1) {
    end = disabled.find(',', at);
    const std::string word = disabled.substr(at, end == std::string::npos ? end : end - at);
    const bool known = std::any_of(std::begin(kOps), std::end(kOps),
                                   [&](const OpMask& op) { return word == op.name; });
    if (known) continue;
    std::string names;
    for (const OpMask& op : kOps) {
      const std::string item = std::string(", ") + op.name;  // "strided" masks two slots
      if ((names + ",").find(item + ",") == std::string::npos) names += item;
    }
    return InvalidArgument("WEFT_BACKEND_DISABLE_OPS is '" + disabled + "' but '" + word +
                           "' names no op (all, or a comma list of" + names.substr(1) + ")");
  }
  return Status::Ok();
}

// A capability bit without its function (or the reverse) means "absent": the host composes.
Status ApplyMask(weft_backend_plugin_t& t, const std::string& disabled) {
  WEFT_RETURN_IF_ERROR(CheckMaskWords(disabled));
  for (const OpMask& op : kOps) {
    const bool off =
        disabled == "all" ||
        (',' + disabled + ',').find(std::string(",") + op.name + ",") != std::string::npos;
    if (off || *Slot(t, op.offset) == nullptr || !(t.capabilities & op.cap)) {
      *Slot(t, op.offset) = nullptr;
      t.capabilities &= ~op.cap;
    }
  }
  return Status::Ok();
}

// The kind's validate(): every mandatory op present.
Status CheckMandatory(const void* table, const std::string& who) {
  const auto& t = *static_cast<const weft_backend_plugin_t*>(table);
  // Named one by one so the message says exactly which function the plugin left NULL.
  const std::pair<const char*, bool> mandatory[] = {
      {"init", t.init != nullptr},
      {"finalize", t.finalize != nullptr},
      {"abort", t.abort != nullptr},
      {"comm_create", t.comm_create != nullptr},
      {"comm_destroy", t.comm_destroy != nullptr},
      {"send", t.send != nullptr},
      {"recv", t.recv != nullptr},
      {"request_test", t.request_test != nullptr},
      {"request_wait", t.request_wait != nullptr},
      {"request_cancel", t.request_cancel != nullptr},
      {"request_free", t.request_free != nullptr},
  };
  for (const auto& [op, present] : mandatory)
    if (!present) return Status(Code::kPlugin, who + " lacks the mandatory op " + op);
  return Status::Ok();
}

// The descriptor i of an array whose elements are params[0].struct_size bytes apart.
const weft_bk_param_t* ParamAt(const weft_backend_plugin_t& t, size_t i) {
  const char* base = reinterpret_cast<const char*>(t.params);
  return reinterpret_cast<const weft_bk_param_t*>(base + i * t.params[0].struct_size);
}

bool DeclaredByHost(std::string_view name) {
  return std::any_of(std::begin(params::kHostParams), std::end(params::kHostParams),
                     [&](const weft_bk_param_t& p) { return name == p.name; });
}

// Copies the plugin's parameter declarations and checks each, so that nothing later reads a
// malformed one: the host lists them, parses their values and compares the must-match ones.
Result<std::vector<weft_bk_param_t>> CopyParams(const weft_backend_plugin_t& t,
                                                const std::string& who) {
  std::vector<weft_bk_param_t> out;
  if (t.num_params == 0) return out;
  if (t.params == nullptr || t.num_params > 4096)
    return Status(Code::kPlugin, who + " declares " + std::to_string(t.num_params) +
                                     " parameters but params is " +
                                     (t.params ? "not an array of that many" : "NULL"));
  const uint32_t stride = t.params[0].struct_size;
  for (size_t i = 0; i < t.num_params; ++i) {
    const weft_bk_param_t* p = ParamAt(t, i);
    const std::string at = who + ": parameter " + std::to_string(i);
    if (stride < sizeof(weft_bk_param_t) || p->struct_size != stride)
      return Status(Code::kPlugin, at + " has struct_size " + std::to_string(p->struct_size) +
                                       " (ABI 1.3's is " + std::to_string(sizeof(weft_bk_param_t)) +
                                       ", and every descriptor's must be the same)");
    weft_bk_param_t copy;
    std::memcpy(&copy, p, sizeof(copy));
    copy.struct_size = sizeof(copy);
    std::string why = param::CheckDescriptor(copy);
    const std::string name = copy.name ? copy.name : "";
    if (why.empty() && DeclaredByHost(name)) why = "is declared by libweft already";
    for (const weft_bk_param_t& seen : out)
      if (why.empty() && name == seen.name) why = "is declared twice";
    if (!why.empty())
      return Status(Code::kPlugin, at + (name.empty() ? "" : " (" + name + ")") + " " + why);
    out.push_back(copy);
  }
  return out;
}

// What each minor appended to the table. A table without them gets zeros: no strided ops (the
// host packs) and no parameters.
constexpr plugin::PluginAdapter kAdapters[] = {
    {1, WEFT_BACKEND_PLUGIN_V1_2_SIZE, nullptr},  // send_strided, recv_strided
    {3, sizeof(weft_backend_plugin_t), nullptr},  // params, num_params
};
static_assert(offsetof(weft_backend_plugin_t, recv_strided) + sizeof(void*) ==
              WEFT_BACKEND_PLUGIN_V1_2_SIZE);

}  // namespace

const plugin::PluginKind kBackendKind = {
    .noun = "backend plugin",
    .short_noun = "backend",
    .entry_prefix = "weft_backend_plugin_v",
    .file_pattern = "libweft-backend-%s.so",
    .search_path = "WEFT_PLUGIN_PATH",
    .major = WEFT_BACKEND_PLUGIN_ABI_MAJOR,
    .minor = WEFT_BACKEND_PLUGIN_ABI_MINOR,
    .table_size = sizeof(weft_backend_plugin_t),
    .min_size = WEFT_BACKEND_PLUGIN_V1_0_SIZE,
    .adapters = kAdapters,
    .validate = &CheckMandatory,
};

Status CheckPluginName(const std::string& name_or_path, const std::string& what) {
  return plugin::CheckName(kBackendKind, name_or_path, what);
}

std::vector<std::string> PluginSearchPath(const std::string& name) {
  return plugin::SearchPath(kBackendKind, name);
}

Result<std::shared_ptr<LoadedPlugin>> LoadBackendPlugin(const std::string& name_or_path,
                                                        const std::string& disabled_ops) {
  auto plugin = std::shared_ptr<LoadedPlugin>(new LoadedPlugin());
  WEFT_ASSIGN_OR_RETURN(plugin->loaded_,
                        plugin::LoadPlugin<weft_backend_plugin_t>(kBackendKind, name_or_path));
  const std::string who = std::string(kBackendKind.noun) + " " + plugin->path();
  WEFT_ASSIGN_OR_RETURN(plugin->params_, CopyParams(plugin->loaded_.table, who));
  WEFT_RETURN_IF_ERROR(ApplyMask(plugin->loaded_.table, disabled_ops));
  return plugin;
}

}  // namespace weft::backends
