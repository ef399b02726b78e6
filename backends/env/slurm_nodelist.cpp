// Grammar (Slurm's hostlist, without its rarely used "x" step syntax):
//   list  := name (',' name)*
//   name  := (text | '[' range (',' range)* ']')+     text: [A-Za-z0-9._-]+
//   range := digits | digits '-' digits
#include "backends/env/slurm_nodelist.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>

namespace weft::backends {
namespace {

// More digits than this cannot be a node index and would overflow uint64_t.
constexpr size_t kMaxIndexDigits = 18;

// Errors quote the whole list: a fragment out of context does not tell the user which
// variable or which part of it to fix.
class Malformed {
 public:
  explicit Malformed(std::string_view list) : list_(list) {}
  Status operator()(std::string_view why) const {
    return InvalidArgument("Slurm node list '" + std::string(list_) +
                           "' is malformed: " + std::string(why));
  }

 private:
  std::string_view list_;
};

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
}

bool AllDigits(std::string_view s) {
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Splits at commas outside brackets; commas inside separate ranges, not names.
Result<std::vector<std::string_view>> SplitNames(std::string_view list, const Malformed& bad) {
  std::vector<std::string_view> names;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    const char c = i < list.size() ? list[i] : ',';
    if (c == '[' && ++depth > 1) return bad("nested '['");
    if (c == ']' && --depth < 0) return bad("']' without '['");
    if (c != ',' || depth > 0) continue;
    if (i == start) return bad("empty host name");
    names.push_back(list.substr(start, i - start));
    start = i + 1;
  }
  if (depth != 0) return bad("'[' is never closed");
  return names;
}

Status AppendRange(std::string_view range, const Malformed& bad, std::vector<std::string>& out) {
  const size_t dash = range.find('-');
  const std::string_view lo = range.substr(0, dash);
  const std::string_view hi = dash == std::string_view::npos ? lo : range.substr(dash + 1);
  for (std::string_view part : {lo, hi}) {
    if (part.empty() || !AllDigits(part) || part.size() > kMaxIndexDigits) {
      return bad("range '" + std::string(range) + "' is not N or N-M with decimal N, M");
    }
  }
  uint64_t first = 0, last = 0;
  std::from_chars(lo.data(), lo.data() + lo.size(), first);
  std::from_chars(hi.data(), hi.data() + hi.size(), last);
  if (first > last) return bad("range '" + std::string(range) + "' runs backwards");
  if (last - first >= kMaxSlurmHosts - out.size()) return bad("it names too many hosts");
  for (uint64_t i = first; i <= last; ++i) {
    std::string digits = std::to_string(i);
    // The lower bound's width is the padding: "008-010" gives 008, 009, 010.
    if (digits.size() < lo.size()) digits.insert(0, lo.size() - digits.size(), '0');
    out.push_back(std::move(digits));
  }
  return Status::Ok();
}

// "1-3,07" -> {"1", "2", "3", "07"}.
Result<std::vector<std::string>> ExpandBracket(std::string_view body, const Malformed& bad) {
  if (body.empty()) return bad("empty '[]'");
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= body.size()) {
    size_t comma = body.find(',', start);
    if (comma == std::string_view::npos) comma = body.size();
    WEFT_RETURN_IF_ERROR(AppendRange(body.substr(start, comma - start), bad, out));
    start = comma + 1;
  }
  return out;
}

// Appends every suffix to every prefix, so that the leftmost group varies slowest.
Status Product(std::vector<std::string>& prefixes, const std::vector<std::string>& suffixes,
               const Malformed& bad) {
  if (prefixes.size() * suffixes.size() > kMaxSlurmHosts) return bad("it names too many hosts");
  std::vector<std::string> next;
  next.reserve(prefixes.size() * suffixes.size());
  for (const std::string& p : prefixes) {
    for (const std::string& s : suffixes) next.push_back(p + s);
  }
  prefixes = std::move(next);
  return Status::Ok();
}

// Expands one name, "rack[1-2]-n[01-02]", alternating literal text and bracket groups.
Result<std::vector<std::string>> ExpandName(std::string_view name, const Malformed& bad) {
  std::vector<std::string> hosts{""};
  size_t i = 0;
  while (i < name.size()) {
    std::vector<std::string> part;
    if (name[i] == '[') {
      const size_t close = name.find(']', i);  // SplitNames checked the brackets balance
      WEFT_ASSIGN_OR_RETURN(part, ExpandBracket(name.substr(i + 1, close - i - 1), bad));
      i = close + 1;
    } else {
      const size_t end = std::min(name.find('[', i), name.size());
      for (char c : name.substr(i, end - i)) {
        if (!IsNameChar(c)) return bad("'" + std::string(1, c) + "' cannot be in a host name");
      }
      part.emplace_back(name.substr(i, end - i));
      i = end;
    }
    WEFT_RETURN_IF_ERROR(Product(hosts, part, bad));
  }
  return hosts;
}

}  // namespace

Result<std::vector<std::string>> ExpandSlurmNodeList(std::string_view list) {
  const Malformed bad(list);
  if (list.empty()) return bad("it is empty");
  WEFT_ASSIGN_OR_RETURN(std::vector<std::string_view> names, SplitNames(list, bad));
  std::vector<std::string> hosts;
  for (std::string_view name : names) {
    WEFT_ASSIGN_OR_RETURN(std::vector<std::string> expanded, ExpandName(name, bad));
    if (hosts.size() + expanded.size() > kMaxSlurmHosts) return bad("it names too many hosts");
    for (std::string& h : expanded) hosts.push_back(std::move(h));
  }
  return hosts;
}

}  // namespace weft::backends
