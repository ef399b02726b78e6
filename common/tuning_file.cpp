#include "common/tuning_file.hpp"

#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/host_params.hpp"

namespace weft::tuning {
namespace {

using nlohmann::json;

constexpr const char* kNames[kLinkClasses] = {"same_l3", "same_numa", "cross_numa", "cross_host"};

Status Bad(const std::string& path, const std::string& what) {
  return InvalidArgument("tuning file " + path + ": " + what + " (docs/tuning.md)");
}

// A finite number >= 0 at obj[key]; `required` false leaves *out when the key is absent.
Status Number(const json& obj, const char* key, const std::string& where, const std::string& path,
              double* out, bool required = true) {
  const auto it = obj.find(key);
  if (it == obj.end()) return required ? Bad(path, where + " has no \"" + key + "\"") : Status();
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
    return Bad(path, where + "." + key + " must be a finite number >= 0, not " + it->dump());
  *out = it->get<double>();
  return {};
}

Status ParseRanks(const json& doc, const std::string& path, File* f) {
  const auto it = doc.find("ranks");
  if (it == doc.end()) return {};
  if (!it->is_array()) return Bad(path, "\"ranks\" must be an array");
  for (size_t r = 0; r < it->size(); ++r) {
    const json& e = (*it)[r];
    const std::string where = "ranks[" + std::to_string(r) + "]";
    if (!e.is_object()) return Bad(path, where + " must be an object");
    if (e.value("rank", -1) != static_cast<int64_t>(r))
      return Bad(path, where + ".rank must be " + std::to_string(r) + " (ranks in order)");
    Place p;
    const std::pair<const char*, int32_t*> fields[] = {
        {"host", &p.host}, {"numa", &p.numa}, {"l3", &p.l3}};
    for (const auto& [key, field] : fields) {
      const auto v = e.find(key);
      if (v == e.end()) continue;
      if (!v->is_number_integer() || v->get<int64_t>() < -1 || v->get<int64_t>() > INT32_MAX)
        return Bad(path, where + "." + key + " must be an integer >= -1, not " + v->dump());
      *field = v->get<int32_t>();
    }
    f->ranks.push_back(p);
  }
  return {};
}

Status ParseLinks(const json& doc, const std::string& path, File* f) {
  const auto it = doc.find("links");
  if (it == doc.end()) return {};
  if (!it->is_object()) return Bad(path, "\"links\" must be an object");
  for (const auto& [name, e] : it->items()) {
    int c = 0;
    while (c < kLinkClasses && name != kNames[c]) ++c;
    if (c == kLinkClasses)
      return Bad(path, "links has \"" + name +
                           "\"; the classes are same_l3, same_numa, cross_numa, cross_host");
    const std::string where = "links." + name;
    if (!e.is_object()) return Bad(path, where + " must be an object");
    LinkFit& fit = f->links[static_cast<size_t>(c)];
    WEFT_RETURN_IF_ERROR(Number(e, "alpha_s", where, path, &fit.alpha));
    WEFT_RETURN_IF_ERROR(Number(e, "beta_s_per_byte", where, path, &fit.beta));
    WEFT_RETURN_IF_ERROR(Number(e, "alpha_err_s", where, path, &fit.alpha_err, false));
    WEFT_RETURN_IF_ERROR(Number(e, "beta_err_s_per_byte", where, path, &fit.beta_err, false));
    if (fit.beta <= 0) return Bad(path, where + ".beta_s_per_byte must be > 0");
    fit.measured = true;
  }
  return {};
}

Status ParseParams(const json& doc, const std::string& path, File* f) {
  const auto it = doc.find("params");
  if (it == doc.end()) return {};
  if (!it->is_object()) return Bad(path, "\"params\" must be an object");
  for (const auto& [name, v] : it->items()) {
    if (name.rfind("WEFT_", 0) != 0 || name == "WEFT_TUNING_FILE")
      return Bad(path, "params." + name + " is not a WEFT_* tuning parameter");
    if (v.is_string()) {
      f->params[name] = v.get<std::string>();
    } else if (v.is_number_integer()) {
      f->params[name] = std::to_string(v.get<int64_t>());
    } else {
      return Bad(path, "params." + name + " must be a string or an integer, not " + v.dump());
    }
  }
  return {};
}

struct Cached {
  off_t size = -1;
  int64_t mtime_ns = -1;
  std::shared_ptr<const File> file;
};

std::mutex& CacheMu() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, Cached>& Cache() {
  static auto* cache = new std::map<std::string, Cached>;  // outlives every static reader
  return *cache;
}

}  // namespace

const char* LinkClassName(LinkClass c) { return kNames[static_cast<int>(c)]; }

LinkClass ClassOf(const Place& a, const Place& b) {
  if (a.host < 0 || a.host != b.host) return LinkClass::kCrossHost;
  if (a.numa < 0 || a.numa != b.numa) return LinkClass::kCrossNuma;
  if (a.l3 < 0 || a.l3 != b.l3) return LinkClass::kSameNuma;
  return LinkClass::kSameL3;
}

const LinkFit* File::Fit(LinkClass c) const {
  for (int k = static_cast<int>(c); k < kLinkClasses; ++k)
    if (links[static_cast<size_t>(k)].measured) return &links[static_cast<size_t>(k)];
  for (int k = static_cast<int>(c) - 1; k >= 0; --k)
    if (links[static_cast<size_t>(k)].measured) return &links[static_cast<size_t>(k)];
  return nullptr;
}

Result<File> Parse(std::string_view text, const std::string& path) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Bad(path, "not valid JSON");
  if (!doc.is_object()) return Bad(path, "the top level must be an object");
  const auto version = doc.find("weft_tuning");
  if (version == doc.end() || !version->is_number_integer())
    return Bad(path, "no \"weft_tuning\" version number: not a tuning file");
  if (version->get<int64_t>() != kVersion)
    return Bad(path, "version " + version->dump() + "; this Weft reads version " +
                         std::to_string(kVersion));
  File f;
  f.path = path;
  WEFT_RETURN_IF_ERROR(ParseRanks(doc, path, &f));
  WEFT_RETURN_IF_ERROR(ParseLinks(doc, path, &f));
  WEFT_RETURN_IF_ERROR(ParseParams(doc, path, &f));
  if (const auto local = doc.find("local"); local != doc.end()) {
    if (!local->is_object()) return Bad(path, "\"local\" must be an object");
    WEFT_RETURN_IF_ERROR(
        Number(*local, "copy_beta_s_per_byte", "local", path, &f.copy_beta, false));
    WEFT_RETURN_IF_ERROR(
        Number(*local, "reduce_beta_s_per_byte", "local", path, &f.reduce_beta, false));
  }
  return f;
}

Result<std::shared_ptr<const File>> Load(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return InvalidArgument("tuning file " + path + " (WEFT_TUNING_FILE) cannot be read");
  const int64_t mtime = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  std::lock_guard<std::mutex> lock(CacheMu());
  Cached& c = Cache()[path];
  if (c.file && c.size == st.st_size && c.mtime_ns == mtime) return c.file;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return InvalidArgument("tuning file " + path + " (WEFT_TUNING_FILE) cannot be read");
  WEFT_ASSIGN_OR_RETURN(File f, Parse(text.str(), path));
  // The previous version stays alive: ParamText handed out pointers into it.
  static auto* retired = new std::vector<std::shared_ptr<const File>>;
  if (c.file) retired->push_back(c.file);
  c = Cached{st.st_size, mtime, std::make_shared<const File>(std::move(f))};
  return c.file;
}

Result<std::shared_ptr<const File>> FromEnvironment() {
  const char* path = param::RawValue(params::Key("WEFT_TUNING_FILE").spec());
  if (path == nullptr || *path == '\0') return std::shared_ptr<const File>();
  return Load(path);
}

const char* ParamText(const char* name) {
  auto file = FromEnvironment();
  if (!file.ok() || !*file) return nullptr;
  const auto it = (*file)->params.find(name);
  return it == (*file)->params.end() ? nullptr : it->second.c_str();
}

}  // namespace weft::tuning
