#include "api/src/check_policy.hpp"

#include <cstdlib>
#include <string>

#include "common/host_params.hpp"

namespace weft::api {
namespace {

// One variable through its declaration in the registry (common/host_params.hpp): the one
// parser, the declared range, an error naming the variable.
Result<param::Value> Read(params::Key key, const std::function<const char*(const char*)>& getenv) {
  const char* name = key.spec().name;
  const char* raw = getenv ? getenv(name) : param::RawValue(key.spec());
  param::Parsed parsed = param::Parse(key.spec(), raw ? raw : "");
  if (!parsed.ok()) return InvalidArgument(parsed.error);
  return std::move(parsed.value);
}

}  // namespace

Result<CheckPolicy> ReadCheckPolicy(const std::function<const char*(const char*)>& getenv) {
  CheckPolicy p;
  WEFT_ASSIGN_OR_RETURN(param::Value mode, Read("WEFT_CHECK_COLLECTIVES", getenv));
  if (mode.set) p.mode = mode.number ? CheckPolicy::Mode::kAll : CheckPolicy::Mode::kOff;
  WEFT_ASSIGN_OR_RETURN(param::Value min, Read("WEFT_CHECK_COLLECTIVES_MIN_BYTES", getenv));
  p.min_bytes = static_cast<uint64_t>(min.number);
  return p;
}

}  // namespace weft::api
