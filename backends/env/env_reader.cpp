#include "backends/env/env_reader.hpp"

#include <cstdlib>

#include "common/param_parse.hpp"

namespace weft::backends::detail {

EnvReader::EnvReader(const GetEnv& getenv) : getenv_(getenv) {
  if (!getenv_) getenv_ = ProcessGetEnv();
}

std::optional<EnvValue> EnvReader::Get(const char* name) const {
  const char* value = getenv_(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return EnvValue{name, value};
}

Status CheckRange(const NamedInt& v, int64_t min, int64_t max) {
  const std::string shown = v.name + "=" + std::to_string(v.value);
  if (v.value < 0 && min >= 0) return InvalidArgument(shown + " is negative");
  if (v.value < min) return InvalidArgument(shown + " must be at least " + std::to_string(min));
  if (v.value > max)
    return InvalidArgument(shown + " is too large (at most " + std::to_string(max) + ")");
  return Status::Ok();
}

Result<NamedInt> ParseDecimal(const EnvValue& v) {
  int64_t value = 0;
  // The integer grammar of every WEFT_* variable (common/param_parse.hpp). A leading '-' is
  // parsed so that "-1" is reported as negative, not as "not a number".
  const param::IntError e = param::ParseInteger(v.text, &value);
  if (e == param::IntError::kRange) {
    return InvalidArgument(v.name + "=" + v.text + " is out of range");
  }
  if (e != param::IntError::kNone) {
    return InvalidArgument(v.name + "='" + v.text + "' is not a decimal integer");
  }
  return NamedInt{v.name, value};
}

Result<NamedInt> ParseInt(const EnvValue& v, int64_t min, int64_t max) {
  WEFT_ASSIGN_OR_RETURN(NamedInt out, ParseDecimal(v));
  WEFT_RETURN_IF_ERROR(CheckRange(out, min, max));
  return out;
}

Result<std::optional<NamedInt>> ReadInt(const EnvReader& env, const char* name, int64_t min,
                                        int64_t max) {
  const std::optional<EnvValue> v = env.Get(name);
  if (!v) return std::optional<NamedInt>();
  WEFT_ASSIGN_OR_RETURN(NamedInt parsed, ParseInt(*v, min, max));
  return std::optional<NamedInt>(std::move(parsed));
}

Result<uint16_t> ParsePort(const EnvValue& v) {
  WEFT_ASSIGN_OR_RETURN(NamedInt port, ParseDecimal(v));
  if (port.value < 1 || port.value > 65535) {
    return InvalidArgument(v.name + "=" + v.text + " is out of range for a TCP port (1-65535)");
  }
  return static_cast<uint16_t>(port.value);
}

}  // namespace weft::backends::detail
