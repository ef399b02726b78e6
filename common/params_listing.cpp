// The two views of the registry people read: weftrun --print-params (the values in effect) and
// the tables of docs/parameters.md (the declarations).
#include <algorithm>

#include "common/params.hpp"

namespace weft::params {
namespace {

const char* AudienceName(int32_t a) {
  switch (a) {
    case WEFT_BK_PARAM_USER:
      return "user";
    case WEFT_BK_PARAM_TUNING:
      return "tuning";
    case WEFT_BK_PARAM_DEBUG:
      return "debug";
    default:
      return "launch";
  }
}

bool MustMatch(const weft_bk_param_t& p) { return (p.flags & WEFT_BK_PARAM_MUST_MATCH) != 0; }

std::string ShownValue(const Setting& s) {
  if ((s.spec->flags & WEFT_BK_PARAM_SECRET) && !s.raw.empty()) return "(set, hidden)";
  if (!s.parsed.ok()) return "'" + s.raw + "' (invalid)";
  if (!s.raw.empty()) return s.raw;
  return s.spec->default_value ? s.spec->default_value : "(unset)";
}

std::string Pad(std::string s, size_t width) {
  s.resize(std::max(width, s.size()), ' ');
  return s;
}

// The type and range column of the docs, e.g. "bytes in [64, 1G]".
std::string TypeText(const weft_bk_param_t& p) {
  switch (p.type) {
    case WEFT_BK_PARAM_BOOL:
      return "0 or 1";
    case WEFT_BK_PARAM_STRING:
      return "text";
    default:
      return param::Expectation(p);
  }
}

std::string Cell(std::string s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string FormatListing(const std::string& title, const std::vector<Setting>& settings) {
  using Row = std::vector<std::string>;
  std::vector<Row> rows = {{"NAME", "VALUE", "DEFAULT", "FROM", "MATCH", "AUDIENCE", "MEANING"}};
  for (const Setting& s : settings) {
    const weft_bk_param_t& p = *s.spec;
    rows.push_back({p.name, ShownValue(s), p.default_value ? p.default_value : "-",
                    s.raw.empty() ? "default" : (s.from_file ? "tuning file" : "env"),
                    MustMatch(p) ? "must-match" : "-", AudienceName(p.audience), p.doc});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const Row& r : rows)
    for (size_t c = 0; c + 1 < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::string out = title + "\n";
  for (const Row& r : rows) {
    std::string line;
    for (size_t c = 0; c + 1 < r.size(); ++c) line += Pad(r[c], width[c]) + "  ";
    out += line + r.back() + "\n";
  }
  for (const Setting& s : settings)
    if (!s.parsed.ok()) out += "error: " + s.parsed.error + "\n";
  return out;
}

std::string MarkdownTables(const std::vector<Owner>& owners) {
  const std::pair<int32_t, const char*> groups[] = {
      {WEFT_BK_PARAM_USER, "What a user may set"},
      {WEFT_BK_PARAM_LAUNCH, "Set by the launcher (weftrun or a job script), not by hand"},
      {WEFT_BK_PARAM_TUNING, "Tuning: algorithm thresholds, for benchmarks and tuning runs"},
      {WEFT_BK_PARAM_DEBUG, "Tests and debugging only"},
  };
  std::string out;
  for (const auto& [audience, heading] : groups) {
    out += std::string("### ") + heading + "\n\n";
    out += "| Variable | Read by | Value | Default | Must match | Meaning |\n";
    out += "|---|---|---|---|---|---|\n";
    for (const Owner& o : owners) {
      for (const weft_bk_param_t& p : o.specs) {
        if (p.audience != audience) continue;
        out += "| `" + std::string(p.name) + "` | " + o.name + " | " + Cell(TypeText(p)) + " | " +
               (p.default_value ? "`" + std::string(p.default_value) + "`" : "unset") + " | " +
               (MustMatch(p) ? "yes" : "no") + " | " + Cell(p.doc) + " |\n";
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace weft::params
