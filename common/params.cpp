// The cache of host variables. Readers take one acquire load of the current snapshot; a
// re-read publishes a new one and keeps the old alive, so that a reader holding a reference
// is never left with freed memory (re-reads happen once per context creation at most).
#include "common/params.hpp"

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>

namespace weft::params {
namespace {

struct Snapshot {
  std::vector<Setting> settings;
};

struct Cache {
  std::mutex mu;
  int64_t pins = 0;
  std::atomic<const Snapshot*> current{nullptr};
  std::vector<std::unique_ptr<Snapshot>> all;  // every snapshot made, the current one last
};

Cache& TheCache() {
  static Cache cache;
  return cache;
}

// Reads the environment; publishes a new snapshot only when some text changed, so that a
// program creating contexts in a loop does not grow the list.
void Refresh(Cache& c) {
  std::vector<Setting> fresh = ReadSettings(kHostParams);
  if (const Snapshot* cur = c.current.load(std::memory_order_acquire)) {
    bool same = true;
    for (size_t i = 0; i < fresh.size(); ++i) same = same && fresh[i].raw == cur->settings[i].raw;
    if (same) return;
  }
  c.all.push_back(std::make_unique<Snapshot>(Snapshot{std::move(fresh)}));
  c.current.store(c.all.back().get(), std::memory_order_release);
}

const Snapshot& Current() {
  Cache& c = TheCache();
  if (const Snapshot* s = c.current.load(std::memory_order_acquire)) return *s;
  std::lock_guard<std::mutex> lock(c.mu);
  if (c.current.load(std::memory_order_acquire) == nullptr) Refresh(c);
  return *c.current.load(std::memory_order_acquire);
}

const Setting& HostSetting(Key key) { return Current().settings[key.index()]; }

}  // namespace

Result<param::Value> Get(Key key) {
  const Setting& s = HostSetting(key);
  if (!s.parsed.ok()) return InvalidArgument(s.parsed.error);
  return s.parsed.value;
}

Result<param::Value> GetFresh(Key key) {
  Cache& c = TheCache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.pins == 0 || c.current.load(std::memory_order_acquire) == nullptr) Refresh(c);
  }
  return Get(key);
}

Result<int64_t> Int(Key key) {
  WEFT_ASSIGN_OR_RETURN(param::Value v, Get(key));
  if (!v.set) return Internal(std::string(key.spec().name) + " is unset and has no default");
  return v.number;
}

Result<std::string> Text(Key key) {
  WEFT_ASSIGN_OR_RETURN(param::Value v, Get(key));
  return std::move(v.text);
}

param::Value ValueOrDefault(Key key) {
  const Setting& s = HostSetting(key);
  if (s.parsed.ok()) return s.parsed.value;
  return param::Parse(key.spec(), "").value;
}

Status Check() {
  WEFT_ASSIGN_OR_RETURN(auto file, tuning::FromEnvironment());
  if (file) {
    // A tuning file sets tuning variables only: what the user chose (the backend, deadlines,
    // checks) is never changed behind their back by a measurement.
    for (const weft_bk_param_t& spec : kHostParams)
      if (spec.audience != WEFT_BK_PARAM_TUNING && file->params.count(spec.name))
        return InvalidArgument("tuning file " + file->path + " sets " + spec.name +
                               ", which is not a tuning variable (docs/parameters.md)");
  }
  for (const Setting& s : Current().settings) {
    if (s.spec->audience == WEFT_BK_PARAM_LAUNCH) continue;
    if (!s.parsed.ok()) return InvalidArgument(s.parsed.error);
  }
  return Status::Ok();
}

Pinned::Pinned() {
  Cache& c = TheCache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.pins++ == 0) Refresh(c);
  }
}

Pinned::~Pinned() {
  Cache& c = TheCache();
  std::lock_guard<std::mutex> lock(c.mu);
  --c.pins;
}

void ReloadForTesting() {
  Cache& c = TheCache();
  std::lock_guard<std::mutex> lock(c.mu);
  Refresh(c);
}

std::vector<Setting> HostSettings() { return Current().settings; }

std::vector<Setting> ReadSettings(std::span<const weft_bk_param_t> specs) {
  std::vector<Setting> out;
  out.reserve(specs.size());
  for (const weft_bk_param_t& spec : specs) {
    Setting s;
    s.spec = &spec;
    if (const char* raw = param::RawValue(spec)) s.raw = raw;
    const char* env = std::getenv(spec.name);
    s.from_file = !s.raw.empty() && (env == nullptr || *env == '\0');
    s.parsed = param::Parse(spec, s.raw);
    if (!s.parsed.ok() && s.from_file)
      s.parsed.error += " (set by the tuning file WEFT_TUNING_FILE names)";
    out.push_back(std::move(s));
  }
  return out;
}

Status FirstError(const std::vector<Setting>& settings) {
  for (const Setting& s : settings)
    if (!s.parsed.ok()) return InvalidArgument(s.parsed.error);
  return Status::Ok();
}

}  // namespace weft::params
