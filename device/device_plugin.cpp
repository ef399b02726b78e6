#include "device/device_plugin.hpp"

#include <string>

#include "common/plugin_loader.hpp"

namespace weft::device {
namespace {

Status CheckTable(const void* table, const std::string& who) {
  const auto* t = static_cast<const DeviceOpsTable*>(table);
  if (t->ops == nullptr) return Status(Code::kPlugin, who + ": its table has no operations");
  if (t->device_type != kDLCUDA)
    return Status(Code::kPlugin,
                  who + ": it serves device type " + std::to_string(t->device_type) + ", not CUDA");
  return Status::Ok();
}

const plugin::PluginKind kDeviceKind = {
    .noun = "device operations library",
    .short_noun = "device",
    .entry_prefix = "weft_device_ops_v",
    .file_pattern = "libweft-device-%s.so",
    .search_path = "WEFT_PLUGIN_PATH",
    .major = kDeviceOpsAbiMajor,
    .minor = kDeviceOpsAbiMinor,
    .table_size = sizeof(DeviceOpsTable),
    .min_size = sizeof(DeviceOpsTable),
    .adapters = {},
    .validate = &CheckTable,
};

}  // namespace

Status LoadDeviceOps(const char* name) {
  auto loaded = plugin::LoadPlugin<DeviceOpsTable>(kDeviceKind, name);
  if (!loaded.ok()) return loaded.status();
  // Kept until exit: registered operations are never unregistered (the library is linked
  // -z nodelete, so the dlclose at exit leaves its code mapped for late users).
  static plugin::PluginModule kept;
  kept = std::move(loaded.value().module);
  const DeviceOpsTable& t = loaded.value().table;
  WEFT_RETURN_IF_ERROR(RegisterOps(kDLCUDA, t.ops));
  return RegisterOps(kDLCUDAManaged, t.ops);
}

}  // namespace weft::device
