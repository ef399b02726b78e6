#include "backends/host/plugin_loader.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <utility>

namespace weft::backends {
namespace {

std::string LibraryDir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&PluginSearchPath), &info) == 0 || !info.dli_fname) return {};
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

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

// A capability bit without its function (or the reverse) means "absent": the host composes.
Status ApplyMask(weft_backend_plugin_t& t, const std::string& disabled) {
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

Status CheckMandatory(const weft_backend_plugin_t& t, const std::string& path) {
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
    if (!present) return Status(Code::kPlugin, "plugin " + path + " lacks the mandatory op " + op);
  if (!t.name) return Status(Code::kPlugin, "plugin " + path + " has no name");
  return Status::Ok();
}

}  // namespace

std::vector<std::string> PluginSearchPath(const std::string& name) {
  const std::string file = "libweft-backend-" + name + ".so";
  std::vector<std::string> out;
  if (const char* env = std::getenv("WEFT_PLUGIN_PATH")) {
    std::stringstream ss(env);
    for (std::string dir; std::getline(ss, dir, ':');)
      if (!dir.empty()) out.push_back(dir + "/" + file);
  }
  const std::string dir = LibraryDir();
  if (!dir.empty()) out.push_back(dir + "/" + file);
  return out;
}

LoadedPlugin::~LoadedPlugin() {
  if (handle_) dlclose(handle_);
}

Result<std::shared_ptr<LoadedPlugin>> LoadBackendPlugin(const std::string& name_or_path,
                                                        const std::string& disabled_ops) {
  std::vector<std::string> candidates;
  if (name_or_path.find('/') != std::string::npos)
    candidates.push_back(name_or_path);
  else
    candidates = PluginSearchPath(name_or_path);
  std::string tried;
  void* handle = nullptr;
  std::string path;
  for (const std::string& c : candidates) {
    if (!std::filesystem::exists(c)) {
      tried += "\n  " + c + ": no such file";
      continue;
    }
    handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      path = c;
      break;
    }
    tried += "\n  " + c + ": " + dlerror();
  }
  if (!handle)
    return Status(Code::kNotAvailable,
                  "backend plugin \"" + name_or_path + "\" not found; tried:" + tried);
  auto plugin = std::shared_ptr<LoadedPlugin>(new LoadedPlugin());
  plugin->handle_ = handle;
  plugin->path_ = path;
  auto entry =
      reinterpret_cast<weft_backend_plugin_entry_fn>(dlsym(handle, "weft_backend_plugin_v1"));
  if (!entry) {
    for (int v = 2; v <= 9; ++v) {
      const std::string sym = "weft_backend_plugin_v" + std::to_string(v);
      if (dlsym(handle, sym.c_str()))
        return Status(Code::kVersionMismatch,
                      "plugin " + path + " implements backend plugin ABI v" + std::to_string(v) +
                          " but this libweft supports v1");
    }
    return Status(Code::kPlugin, "plugin " + path + " exports no weft_backend_plugin_v1..v9");
  }
  const weft_backend_plugin_t* table = entry();
  if (!table) return Status(Code::kPlugin, "plugin " + path + " returned a NULL table");
  const uint32_t major = table->abi_version >> 16;
  if (major != WEFT_BACKEND_PLUGIN_ABI_MAJOR)
    return Status(Code::kVersionMismatch, "plugin " + path + " was built for backend plugin ABI " +
                                              std::to_string(major) + "." +
                                              std::to_string(table->abi_version & 0xffff) +
                                              " but this libweft supports " +
                                              std::to_string(WEFT_BACKEND_PLUGIN_ABI_MAJOR) + "." +
                                              std::to_string(WEFT_BACKEND_PLUGIN_ABI_MINOR));
  if (table->struct_size < WEFT_BACKEND_PLUGIN_V1_0_SIZE)
    return Status(Code::kVersionMismatch, "plugin " + path + " has a table of " +
                                              std::to_string(table->struct_size) +
                                              " bytes, smaller than ABI 1.0's");
  // A 1.0 plugin's table ends before the 1.1 functions: they stay NULL (the host packs).
  plugin->table_ = weft_backend_plugin_t{};
  std::memcpy(&plugin->table_, table,
              std::min<size_t>(table->struct_size, sizeof(weft_backend_plugin_t)));
  plugin->table_.struct_size = sizeof(weft_backend_plugin_t);
  WEFT_RETURN_IF_ERROR(CheckMandatory(plugin->table_, path));
  WEFT_RETURN_IF_ERROR(ApplyMask(plugin->table_, disabled_ops));
  return plugin;
}

}  // namespace weft::backends
