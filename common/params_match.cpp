// The must-match values: what each rank puts in the store when a context is created, and the
// comparison that names the first variable two ranks disagree on. The values travel, not a
// hash of them, so that the message can say what each rank has.
#include "common/params.hpp"

namespace weft::params {
namespace {

constexpr const char* kUnset = "(unset)";

const MatchValue* Find(const std::vector<MatchValue>& values, const std::string& name) {
  for (const MatchValue& v : values)
    if (v.name == name) return &v;
  return nullptr;
}

std::string OnRank(int32_t rank) { return " on rank " + std::to_string(rank); }

}  // namespace

std::vector<MatchValue> MustMatch(const std::vector<Setting>& settings) {
  std::vector<MatchValue> out;
  for (const Setting& s : settings) {
    if (!(s.spec->flags & WEFT_BK_PARAM_MUST_MATCH)) continue;
    const param::Value& v = s.parsed.value;
    out.push_back({s.spec->name, v.set ? v.text : kUnset});
  }
  return out;
}

// One "name=value" line per variable; '\' and newlines in values escaped.
std::string EncodeMatches(const std::vector<MatchValue>& values) {
  std::string out;
  for (const MatchValue& v : values) {
    out += v.name + "=";
    for (const char c : v.value) {
      if (c == '\\')
        out += "\\\\";
      else if (c == '\n')
        out += "\\n";
      else
        out += c;
    }
    out += "\n";
  }
  return out;
}

Result<std::vector<MatchValue>> DecodeMatches(const std::string& text) {
  std::vector<MatchValue> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    const size_t eq = text.find('=', at);
    if (end == std::string::npos || eq == std::string::npos || eq > end)
      return InvalidArgument("must-match values: malformed line at byte " + std::to_string(at));
    MatchValue v{text.substr(at, eq - at), {}};
    for (size_t i = eq + 1; i < end; ++i) {
      if (text[i] != '\\' || i + 1 == end) {
        v.value += text[i];
        continue;
      }
      v.value += text[++i] == 'n' ? '\n' : text[i];
    }
    out.push_back(std::move(v));
    at = end + 1;
  }
  return out;
}

std::string FirstMismatch(const std::vector<MatchValue>& mine, int32_t my_rank,
                          const std::vector<MatchValue>& theirs, int32_t their_rank) {
  for (const MatchValue& m : mine) {
    const MatchValue* t = Find(theirs, m.name);
    if (t == nullptr)
      return m.name + " is " + m.value + OnRank(my_rank) + " but not declared" +
             OnRank(their_rank) + " (another backend plugin?)";
    if (t->value != m.value)
      return m.name + " is " + m.value + OnRank(my_rank) + " but " + t->value + OnRank(their_rank);
  }
  for (const MatchValue& t : theirs)
    if (Find(mine, t.name) == nullptr)
      return t.name + " is " + t.value + OnRank(their_rank) + " but not declared" +
             OnRank(my_rank) + " (another backend plugin?)";
  return {};
}

}  // namespace weft::params
