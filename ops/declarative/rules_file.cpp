#include "ops/declarative/rules_file.hpp"

#include <cctype>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "ops/declarative/einsum.hpp"

namespace weft::ops {
namespace {

struct Token {
  std::string text;
  size_t column;  // 1-based
  bool quoted = false;
};

class LineParser {
 public:
  LineParser(std::string_view line, std::string origin, size_t number)
      : line_(line), origin_(std::move(origin)), number_(number) {}

  Status Error(size_t column, const std::string& why) const {
    return InvalidArgument(origin_ + ":" + std::to_string(number_) + ":" + std::to_string(column) +
                           ": " + why);
  }

  // Words split at blanks; "..." is one word; '#' starts a comment outside quotes.
  Result<std::vector<Token>> Tokens() const {
    std::vector<Token> out;
    size_t i = 0;
    while (i < line_.size()) {
      const char c = line_[i];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++i;
      } else if (c == '#') {
        break;
      } else if (c == '"') {
        const size_t end = line_.find('"', i + 1);
        if (end == std::string_view::npos) return Error(i + 1, "a '\"' that is never closed");
        out.push_back({std::string(line_.substr(i + 1, end - i - 1)), i + 2, true});
        i = end + 1;
      } else {
        size_t end = i;
        while (end < line_.size() && !std::isspace(static_cast<unsigned char>(line_[end])) &&
               line_[end] != '#')
          ++end;
        out.push_back({std::string(line_.substr(i, end - i)), i + 1});
        i = end;
      }
    }
    return out;
  }

  std::string Source() const { return origin_ + ":" + std::to_string(number_); }

 private:
  std::string_view line_;
  std::string origin_;
  size_t number_;
};

bool ValidName(const std::string& s) {
  if (s.empty() || s.size() > 128) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != ':' &&
        c != '-')
      return false;
  return true;
}

Status ApplyLinear(const LineParser& p, const Token& t, std::string_view v, EinsumSpec* spec) {
  if (v == "all") return Status::Ok();
  spec->linear.assign(spec->inputs.size(), false);
  if (v == "none") return Status::Ok();
  size_t pos = 0;
  while (pos <= v.size()) {
    const size_t comma = std::min(v.find(',', pos), v.size());
    const std::string_view item = v.substr(pos, comma - pos);
    const size_t column = t.column + 7 + pos;  // past "linear="
    size_t idx = 0;
    if (item.empty() || item.size() > 3 ||
        item.find_first_not_of("0123456789") != std::string_view::npos)
      return p.Error(column, "linear= takes all, none or input numbers like 0,2");
    idx = std::stoul(std::string(item));
    if (idx >= spec->inputs.size())
      return p.Error(column, "input " + std::to_string(idx) + " does not exist (the equation has " +
                                 std::to_string(spec->inputs.size()) + ")");
    spec->linear[idx] = true;
    pos = comma + 1;
  }
  return Status::Ok();
}

Status ApplyOption(const LineParser& p, const Token& t, EinsumSpec* spec) {
  const size_t eq = t.text.find('=');
  const std::string key = t.text.substr(0, eq == std::string::npos ? t.text.size() : eq);
  const std::string_view value =
      eq == std::string::npos ? std::string_view() : std::string_view(t.text).substr(eq + 1);
  if (key == "linear" && eq != std::string::npos) return ApplyLinear(p, t, value, spec);
  if (key == "unshardable" && eq != std::string::npos) {
    for (size_t k = 0; k < value.size(); ++k)
      if (!std::isalpha(static_cast<unsigned char>(value[k])))
        return p.Error(t.column + eq + 1 + k, "unshardable= takes the equation's letters");
    spec->unshardable = std::string(value);
    return Status::Ok();
  }
  return p.Error(t.column, "unknown option '" + t.text + "' (linear=..., unshardable=...)");
}

Status ParseEinsumLine(const LineParser& p, const std::vector<Token>& t, RegistryBatch* batch) {
  if (t.size() < 3) return p.Error(t[0].column, "einsum NAME EQUATION [options]: too few words");
  if (!ValidName(t[1].text))
    return p.Error(t[1].column, "'" + t[1].text + "' is not an operator name");
  auto spec = ParseEinsum(t[2].text, t[2].column);
  if (!spec.ok()) return InvalidArgument(p.Source() + ": " + spec.status().message());
  for (size_t k = 3; k < t.size(); ++k) WEFT_RETURN_IF_ERROR(ApplyOption(p, t[k], &*spec));
  batch->ops.push_back(MakeEinsumOp(t[1].text, std::move(*spec), p.Source()));
  return Status::Ok();
}

Status ParseLine(const LineParser& p, const std::vector<Token>& t, RegistryBatch* batch) {
  if (t[0].text == "einsum") return ParseEinsumLine(p, t, batch);
  if (t[0].text == "alias") {
    if (t.size() != 3) return p.Error(t[0].column, "alias NAME TARGET: expected two words");
    if (!ValidName(t[1].text))
      return p.Error(t[1].column, "'" + t[1].text + "' is not an operator name");
    batch->aliases.push_back({t[1].text, t[2].text, p.Source()});
    return Status::Ok();
  }
  return p.Error(t[0].column, "unknown declaration '" + t[0].text + "' (einsum, alias)");
}

}  // namespace

Result<RegistryBatch> ParseRules(std::string_view text, const std::string& origin) {
  RegistryBatch batch;
  bool versioned = false;
  size_t number = 0;
  for (size_t pos = 0; pos <= text.size();) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    const LineParser p(text.substr(pos, nl - pos), origin, ++number);
    pos = nl + 1;
    auto tokens = p.Tokens();
    if (!tokens.ok()) return tokens.status();
    if (tokens->empty()) continue;
    if (!versioned) {
      const std::vector<Token>& t = *tokens;
      if (t[0].text != "weft-rules" || t.size() != 2)
        return p.Error(t[0].column, "a rules file starts with 'weft-rules " +
                                        std::to_string(kRulesFileVersion) + "'");
      if (t[1].text != std::to_string(kRulesFileVersion))
        return p.Error(t[1].column, "version " + t[1].text + " is not one this Weft reads (" +
                                        std::to_string(kRulesFileVersion) + ")");
      versioned = true;
      continue;
    }
    WEFT_RETURN_IF_ERROR(ParseLine(p, *tokens, &batch));
  }
  if (!versioned)
    return InvalidArgument(origin + ":1:1: empty: a rules file starts with 'weft-rules " +
                           std::to_string(kRulesFileVersion) + "'");
  return batch;
}

Status LoadRulesFile(Registry& registry, const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return InvalidArgument("rules file '" + path + "' cannot be opened");
  f.seekg(0, std::ios::end);
  if (f.tellg() < 0 || static_cast<size_t>(f.tellg()) > kMaxRulesFileBytes)
    return InvalidArgument("rules file '" + path + "' is not a regular file of at most " +
                           std::to_string(kMaxRulesFileBytes) + " bytes");
  f.seekg(0);
  std::ostringstream text;
  text << f.rdbuf();
  auto batch = ParseRules(text.str(), path);
  if (!batch.ok()) return batch.status();
  return registry.AddBatch(std::move(*batch));
}

}  // namespace weft::ops
