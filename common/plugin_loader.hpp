// The one loader of every plugin kind (SPEC §6.6; backend plugins today, rule plugins next):
// it finds a plugin by name or path, opens it, probes its versioned entry symbol, copies the
// table it returns into the host's layout, fills what an older minor version lacks (per-minor
// adapters) and lets the kind check the rest. A kind is a descriptor (PluginKind), not code:
// backends/host/plugin_loader.cpp instantiates it for weft_backend_plugin_v1, and the rule
// plugins' loader will for weft_rules_plugin_v1.
//
// Contract every kind's ABI keeps (it is what lets one loader serve them all): the plugin
// exports `const T* <entry_prefix><major>(void)`, and T starts with PluginTableHeader
// (struct_size, abi_version = major << 16 | minor, name), grows only by appending within a
// major, and stays valid and unwritten while the plugin is loaded.
//
// Errors: kInvalidArgument for a name or path that cannot name a plugin (too long, odd
// characters), naming the limit; kNotAvailable when no candidate opens, naming every path
// tried and why; kVersionMismatch for a plugin of another major (or a table smaller than the
// major's first), naming both versions; kPlugin for a malformed table (no entry symbol, NULL
// table, no name, or whatever the kind's validate() refuses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/host_params.hpp"
#include "common/result.hpp"

namespace weft::plugin {

// The first fields of every plugin kind's table (SPEC §6.6).
struct PluginTableHeader {
  uint32_t struct_size;
  uint32_t abi_version;  // (major << 16) | minor the plugin was built with
  const char* name;
};

// What a minor version appended to the table: fields that end at `end` bytes. A plugin whose
// table does not carry them (struct_size < end, or a minor below `minor`) gets them from
// fill() (NULL: they stay zero, which is what "absent" means for most fields).
struct PluginAdapter {
  uint32_t minor;
  size_t end;
  void (*fill)(void* table);  // the host's copy, kind.table_size bytes
};

// One plugin kind. Static storage: Open keeps no copy.
struct PluginKind {
  const char* noun;          // "backend plugin", for messages
  const char* short_noun;    // "backend": "a backend name holds ..."
  const char* entry_prefix;  // "weft_backend_plugin_v": <prefix><major> is the entry symbol
  const char* file_pattern;  // "libweft-backend-%s.so": %s is the name
  params::Key search_path;   // ':'-separated directories searched before libweft's own
  uint32_t major;            // the one major version this libweft supports
  uint32_t minor;            // the newest minor it knows
  size_t table_size;         // sizeof the host's table (major.minor's)
  size_t min_size;           // the size of a major.0 table: smaller ones are refused
  std::span<const PluginAdapter> adapters;  // ascending minor, each > 0
  // After adaptation: kPlugin (or another status) when the table is unusable, naming `who`
  // ("backend plugin /path/libweft-backend-x.so") and the field. NULL: nothing to check.
  Status (*validate)(const void* table, const std::string& who);
};

// The longest plugin name (without '/'); longer ones are refused before any file is looked up.
inline constexpr size_t kMaxPluginName = 64;

// A name: letters, digits, '_', '-' and '.', 1..kMaxPluginName of them; a path (with '/'): at
// most PATH_MAX - 1 bytes, components at most NAME_MAX, no control characters. Otherwise
// kInvalidArgument saying which limit; `what` names the value ("opts->backend").
Status CheckName(const PluginKind& kind, const std::string& name_or_path, const std::string& what);

// The files a name is looked for at, in order: each directory of kind.search_path's variable,
// then the directory of the library holding this loader (libweft).
std::vector<std::string> SearchPath(const PluginKind& kind, const std::string& name);

// An opened plugin: its code stays mapped exactly as long as this lives (dlclose when the last
// owner lets go). Move-only.
class PluginModule {
 public:
  PluginModule() = default;
  ~PluginModule();
  PluginModule(PluginModule&& other) noexcept;
  PluginModule& operator=(PluginModule&& other) noexcept;
  PluginModule(const PluginModule&) = delete;
  PluginModule& operator=(const PluginModule&) = delete;

  const std::string& path() const { return path_; }
  // The plugin's own abi_version, as its table said.
  uint32_t abi_version() const { return abi_version_; }
  // The minor whose fields the plugin's table carries (<= kind.minor): adapters filled the rest.
  uint32_t carried_minor() const { return carried_minor_; }
  bool loaded() const { return handle_ != nullptr; }

 private:
  friend Result<PluginModule> OpenPlugin(const PluginKind&, const std::string&, void*);
  void* handle_ = nullptr;
  std::string path_;
  uint32_t abi_version_ = 0;
  uint32_t carried_minor_ = 0;
};

// Loads `name_or_path` as a plugin of `kind` and writes the host's copy of its table (adapted,
// validated, struct_size set to kind.table_size) to `table` (kind.table_size bytes). On error
// `table` is unspecified and nothing stays loaded.
Result<PluginModule> OpenPlugin(const PluginKind& kind, const std::string& name_or_path,
                                void* table);

// The typed form: `Table` is the kind's table type.
template <typename Table>
struct LoadedTable {
  PluginModule module;
  Table table{};
};

template <typename Table>
Result<LoadedTable<Table>> LoadPlugin(const PluginKind& kind, const std::string& name_or_path) {
  static_assert(offsetof(Table, struct_size) == offsetof(PluginTableHeader, struct_size) &&
                offsetof(Table, abi_version) == offsetof(PluginTableHeader, abi_version) &&
                offsetof(Table, name) == offsetof(PluginTableHeader, name));
  if (kind.table_size != sizeof(Table))
    return Status(Code::kInternal, std::string(kind.noun) + ": table_size is not the table's");
  LoadedTable<Table> out;
  WEFT_ASSIGN_OR_RETURN(out.module, OpenPlugin(kind, name_or_path, &out.table));
  return out;
}

}  // namespace weft::plugin
