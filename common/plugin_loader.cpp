#include "common/plugin_loader.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <sstream>
#include <utility>

#include "common/params.hpp"

namespace weft::plugin {
namespace {

// The directory of the shared object holding this code (libweft), or "" when unknown.
std::string LibraryDir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&LibraryDir), &info) == 0 || !info.dli_fname) return {};
  const std::string file = info.dli_fname;
  const size_t slash = file.rfind('/');
  return slash == std::string::npos ? std::string(".") : file.substr(0, slash);
}

std::string FileName(const PluginKind& kind, const std::string& name) {
  std::string file = kind.file_pattern;
  const size_t at = file.find("%s");
  return file.replace(at, 2, name);
}

std::string Version(uint32_t v) {
  return std::to_string(v >> 16) + "." + std::to_string(v & 0xffff);
}

// dlopen of the first candidate that opens; the reasons of the others in `tried`. stat first:
// "no such file" says more than dlopen's text, and a too-long entry of the search path is
// reported among the candidates rather than thrown.
void* OpenFirst(const std::vector<std::string>& candidates, std::string* path, std::string* tried) {
  for (const std::string& c : candidates) {
    struct stat st {};
    if (stat(c.c_str(), &st) != 0) {
      *tried += "\n  " + c + ": " + (errno == ENOENT ? "no such file" : std::strerror(errno));
      continue;
    }
    if (void* handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      *path = c;
      return handle;
    }
    const char* why = dlerror();
    *tried += "\n  " + c + ": " + (why ? why : "dlopen failed");
  }
  return nullptr;
}

using EntryFn = const void* (*)();

// The entry of kind.major, or why there is none: another major's entry (kVersionMismatch,
// naming both) or none at all (kPlugin).
Result<EntryFn> FindEntry(const PluginKind& kind, void* handle, const std::string& who) {
  const std::string mine = kind.entry_prefix + std::to_string(kind.major);
  if (void* sym = dlsym(handle, mine.c_str())) return reinterpret_cast<EntryFn>(sym);
  for (uint32_t v = 1; v <= 9; ++v) {
    const std::string sym = kind.entry_prefix + std::to_string(v);
    if (v != kind.major && dlsym(handle, sym.c_str()))
      return Status(Code::kVersionMismatch, who + " implements " + kind.noun + " ABI v" +
                                                std::to_string(v) + " but this libweft supports v" +
                                                std::to_string(kind.major));
  }
  return Status(Code::kPlugin, who + " exports no " + kind.entry_prefix + "1.." +
                                   kind.entry_prefix + "9 (this libweft needs " + mine + ")");
}

// A name the table gives must be printable text of at most kMaxPluginName bytes; it is read
// with a bound, so a table pointing at unterminated memory cannot run the host off its end.
Status CheckTableName(const PluginTableHeader& h, const std::string& who) {
  if (h.name == nullptr) return Status(Code::kPlugin, who + " has no name");
  const size_t n = strnlen(h.name, kMaxPluginName + 1);
  const bool printable = std::all_of(h.name, h.name + n, [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
  });
  if (n == 0 || n > kMaxPluginName || !printable)
    return Status(
        Code::kPlugin,
        who + " has a name that is " +
            (n == 0               ? std::string("empty")
             : n > kMaxPluginName ? "longer than " + std::to_string(kMaxPluginName) + " bytes"
                                  : std::string("not printable text")));
  return Status::Ok();
}

// Copies the plugin's table (`raw`, h.struct_size bytes) into the host's layout and fills what
// the plugin's minor lacks. The fields of a minor count as the plugin's only when its table
// both claims that minor and is long enough to hold them; otherwise they are zeroed (the
// plugin's struct may hold something else there, or nothing) and the minor's adapter fills
// in its defaults. Returns the minor the plugin carries.
Result<uint32_t> CopyTable(const PluginKind& kind, const void* raw, void* table,
                           const std::string& who) {
  PluginTableHeader h{};  // its name only once the size is known to cover it
  std::memcpy(&h, raw, offsetof(PluginTableHeader, name));
  if (h.abi_version >> 16 != kind.major)
    return Status(Code::kVersionMismatch,
                  who + " was built for " + kind.noun + " ABI " + Version(h.abi_version) +
                      " but this libweft supports " + Version(kind.major << 16 | kind.minor));
  if (h.struct_size < kind.min_size)
    return Status(Code::kVersionMismatch, who + " has a table of " + std::to_string(h.struct_size) +
                                              " bytes, smaller than ABI " +
                                              std::to_string(kind.major) + ".0's (" +
                                              std::to_string(kind.min_size) + ")");
  std::memset(table, 0, kind.table_size);
  std::memcpy(table, raw, std::min<size_t>(h.struct_size, kind.table_size));
  uint32_t carried = std::min<uint32_t>(h.abi_version & 0xffff, kind.minor);
  for (const PluginAdapter& a : kind.adapters) {
    if (a.minor <= carried && a.end > h.struct_size) {
      carried = a.minor - 1;
      break;
    }
  }
  size_t begin = kind.min_size;
  for (const PluginAdapter& a : kind.adapters) {
    if (a.minor > carried) {
      std::memset(static_cast<char*>(table) + begin, 0, a.end - begin);
      if (a.fill) a.fill(table);
    }
    begin = a.end;
  }
  static_cast<PluginTableHeader*>(table)->struct_size = static_cast<uint32_t>(kind.table_size);
  return carried;
}

// The kind's own invariants (a programming error, not the plugin's).
Status CheckKind(const PluginKind& kind) {
  bool ok = kind.min_size >= sizeof(PluginTableHeader) && kind.min_size <= kind.table_size &&
            std::string_view(kind.file_pattern).find("%s") != std::string_view::npos;
  size_t end = kind.min_size;
  uint32_t minor = 0;
  for (const PluginAdapter& a : kind.adapters) {
    ok = ok && a.minor > minor && a.minor <= kind.minor && a.end >= end && a.end <= kind.table_size;
    end = a.end;
    minor = a.minor;
  }
  if (ok) return Status::Ok();
  return Status(Code::kInternal, std::string("the ") + kind.noun + " kind is inconsistent");
}

// The characters a name may hold, and a path.
bool NameChar(unsigned char c) { return std::isalnum(c) || c == '_' || c == '-' || c == '.'; }
bool PathChar(unsigned char c) { return c >= 0x20 && c != 0x7f; }

// The value as a message shows it: its head with odd characters as '?', and its length when
// that is cut.
std::string Shown(const std::string& v) {
  constexpr size_t kHead = 40;
  std::string head;
  for (char c : v.substr(0, kHead)) head += PathChar(static_cast<unsigned char>(c)) ? c : '?';
  if (v.size() <= kHead) return "\"" + head + "\"";
  return "\"" + head + "...\" (" + std::to_string(v.size()) + " characters)";
}

Status CheckPath(const std::string& path, const std::string& what) {
  if (path.size() > PATH_MAX - 1)
    return InvalidArgument(what + " is a path of " + std::to_string(path.size()) +
                           " characters but a path has at most " + std::to_string(PATH_MAX - 1) +
                           " (PATH_MAX - 1)");
  for (size_t begin = 0; begin <= path.size();) {
    const size_t end = std::min(path.find('/', begin), path.size());
    if (end - begin > NAME_MAX)
      return InvalidArgument(what + " is " + Shown(path) + ", whose component at character " +
                             std::to_string(begin) + " has " + std::to_string(end - begin) +
                             " characters but a file name has at most " + std::to_string(NAME_MAX) +
                             " (NAME_MAX)");
    begin = end + 1;
  }
  return Status::Ok();
}

}  // namespace

Status CheckName(const PluginKind& kind, const std::string& name_or_path, const std::string& what) {
  const bool path = name_or_path.find('/') != std::string::npos;
  for (size_t i = 0; i < name_or_path.size(); ++i) {
    const auto c = static_cast<unsigned char>(name_or_path[i]);
    if (path ? PathChar(c) : NameChar(c)) continue;
    return InvalidArgument(
        what + " is " + Shown(name_or_path) + ", with character " + std::to_string(c) + " at " +
        std::to_string(i) +
        (path ? std::string(": a path may hold no control characters")
              : std::string(": a ") + kind.short_noun +
                    " name holds letters, digits, '_', '-' and '.' (give a path, with a '/', "
                    "for a plugin elsewhere)"));
  }
  if (path) return CheckPath(name_or_path, what);
  if (name_or_path.empty()) return InvalidArgument(what + " is empty");
  if (name_or_path.size() > kMaxPluginName)
    return InvalidArgument(what + " is " + Shown(name_or_path) + " but a " + kind.short_noun +
                           " name has at most " + std::to_string(kMaxPluginName) +
                           " characters (give a path, with a '/', for a plugin elsewhere)");
  return Status::Ok();
}

std::vector<std::string> SearchPath(const PluginKind& kind, const std::string& name) {
  const std::string file = FileName(kind, name);
  std::vector<std::string> out;
  std::stringstream dirs(params::ValueOrDefault(kind.search_path).text);
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty()) out.push_back(dir + "/" + file);
  const std::string dir = LibraryDir();
  if (!dir.empty()) out.push_back(dir + "/" + file);
  return out;
}

PluginModule::~PluginModule() {
  if (handle_) dlclose(handle_);
}

PluginModule::PluginModule(PluginModule&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      path_(std::move(other.path_)),
      abi_version_(other.abi_version_),
      carried_minor_(other.carried_minor_) {}

PluginModule& PluginModule::operator=(PluginModule&& other) noexcept {
  if (this != &other) {
    if (handle_) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
    abi_version_ = other.abi_version_;
    carried_minor_ = other.carried_minor_;
  }
  return *this;
}

Result<PluginModule> OpenPlugin(const PluginKind& kind, const std::string& name_or_path,
                                void* table) {
  WEFT_RETURN_IF_ERROR(CheckKind(kind));
  WEFT_RETURN_IF_ERROR(CheckName(kind, name_or_path, std::string("the ") + kind.short_noun));
  std::vector<std::string> candidates;
  if (name_or_path.find('/') != std::string::npos)
    candidates.push_back(name_or_path);
  else
    candidates = SearchPath(kind, name_or_path);
  PluginModule module;
  std::string tried;
  module.handle_ = OpenFirst(candidates, &module.path_, &tried);
  if (!module.handle_)
    return Status(Code::kNotAvailable,
                  std::string(kind.noun) + " \"" + name_or_path + "\" not found; tried:" + tried);
  const std::string who = std::string(kind.noun) + " " + module.path_;
  WEFT_ASSIGN_OR_RETURN(const EntryFn entry, FindEntry(kind, module.handle_, who));
  const void* raw = entry();
  if (raw == nullptr) return Status(Code::kPlugin, who + " returned a NULL table");
  module.abi_version_ = static_cast<const PluginTableHeader*>(raw)->abi_version;
  WEFT_ASSIGN_OR_RETURN(module.carried_minor_, CopyTable(kind, raw, table, who));
  WEFT_RETURN_IF_ERROR(CheckTableName(*static_cast<const PluginTableHeader*>(table), who));
  if (kind.validate) WEFT_RETURN_IF_ERROR(kind.validate(table, who));
  return module;
}

}  // namespace weft::plugin
