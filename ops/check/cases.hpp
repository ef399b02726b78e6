// Random cases per operator, grouped by family: what the validation harness feeds each
// operator (shapes, attributes, values in the op's domain). Adding a family is a table row
// and a generator per operator (cases.cpp).
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "ops/check/harness.hpp"

namespace weft::ops::check {

struct Family {
  std::string name;
  std::vector<std::string> ops;
  std::string plugin;  // the rule plugin that registers the ops ("": built-in)
};

// The families with generators, in a fixed order.
const std::vector<Family>& Families();

// A random case of a windowed operator (cases_windowed.cpp: the "windowed" family);
// kInvalidArgument for another operator.
Result<Case> WindowedCase(const std::string& op, Rng& rng);

// A random case of `op`; kInvalidArgument when no family generates it.
Result<Case> MakeCase(const std::string& op, Rng& rng);

}  // namespace weft::ops::check
