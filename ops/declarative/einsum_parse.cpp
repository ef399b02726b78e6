// The einsum grammar: inputs of letters separated by ',', then optionally "->" and the output's
// letters. Spaces anywhere between tokens. No ellipsis: a rule needs to know which dim each
// letter is, and "..." would leave that to the tensors' ranks (name the dims instead).
#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "ops/declarative/einsum.hpp"

namespace weft::ops {
namespace {

class Parser {
 public:
  Parser(std::string_view text, size_t first_column) : s_(text), base_(first_column) {}

  Result<EinsumSpec> Run() {
    EinsumSpec spec;
    spec.equation = std::string(s_);
    spec.inputs.emplace_back();
    bool arrow = false;
    for (; i_ < s_.size(); ++i_) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t') continue;
      std::string& cur = arrow ? spec.output : spec.inputs.back();
      if (std::isalpha(static_cast<unsigned char>(c))) {
        cur.push_back(c);
      } else if (c == ',' && !arrow) {
        if (cur.empty()) return Error("an input with no letters before ','");
        spec.inputs.emplace_back();
      } else if (c == '-' && !arrow && i_ + 1 < s_.size() && s_[i_ + 1] == '>') {
        if (cur.empty()) return Error("an input with no letters before '->'");
        arrow = true;
        arrow_at_ = i_++;
      } else if (c == '.') {
        return Error("'...' is not supported: name every dim with a letter");
      } else {
        return Error(std::string("unexpected '") + c + "' (letters, ',' and '->' only)");
      }
    }
    if (spec.inputs.back().empty() && !arrow)
      return Error(spec.inputs.size() == 1 ? "no inputs" : "an input with no letters at the end");
    return Finish(std::move(spec), arrow);
  }

 private:
  Status Error(const std::string& why) const {
    return InvalidArgument("einsum '" + std::string(s_) + "': column " +
                           std::to_string(base_ + std::min(i_, s_.size())) + ": " + why);
  }

  Result<EinsumSpec> Finish(EinsumSpec spec, bool arrow) {
    std::map<char, int> seen;
    for (const std::string& in : spec.inputs)
      for (char c : in) ++seen[c];
    if (!arrow) {
      for (const auto& [c, n] : seen)
        if (n == 1) spec.output.push_back(c);
    }
    for (size_t k = 0; k < spec.output.size(); ++k) {
      const char c = spec.output[k];
      i_ = OutputColumn(k);
      if (!seen.count(c)) return Error(std::string("output letter '") + c + "' is in no input");
      if (spec.output.find(c) != k)
        return Error(std::string("output letter '") + c + "' appears twice");
    }
    spec.linear.assign(spec.inputs.size(), true);
    return spec;
  }

  // Where the output's k-th letter sits (for messages).
  size_t OutputColumn(size_t k) const {
    size_t n = 0;
    for (size_t j = arrow_at_ + 2; j < s_.size(); ++j)
      if (std::isalpha(static_cast<unsigned char>(s_[j])) && n++ == k) return j;
    return s_.size();
  }

  std::string_view s_;
  size_t base_;
  size_t i_ = 0;
  size_t arrow_at_ = 0;
};

}  // namespace

Result<EinsumSpec> ParseEinsum(std::string_view equation, size_t first_column) {
  return Parser(equation, first_column).Run();
}

}  // namespace weft::ops
