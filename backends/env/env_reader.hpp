// Reading launcher variables and turning their text into checked integers, with messages that
// always name the variable and quote its value. Internal to backends/env.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backends/env/launch_env.hpp"
#include "common/result.hpp"

namespace weft::backends::detail {

// A variable that is set, with its text.
struct EnvValue {
  std::string name;
  std::string text;
};

// An integer and where it came from ("WEFT_RANK", "options.rank"), for messages.
struct NamedInt {
  std::string name;
  int64_t value = 0;
};

class EnvReader {
 public:
  explicit EnvReader(const GetEnv& getenv);

  // An empty value counts as unset: job scripts "clear" variables with `export VAR=`, and
  // treating that as a value would turn a harmless leftover into an error.
  std::optional<EnvValue> Get(const char* name) const;
  bool Has(const char* name) const { return Get(name).has_value(); }

 private:
  GetEnv getenv_;
};

// Checks min <= v.value <= max; the message names the variable and the value.
Status CheckRange(const NamedInt& v, int64_t min, int64_t max);

// Parses a decimal integer (an optional '-', then digits only), without a range check.
Result<NamedInt> ParseDecimal(const EnvValue& v);

// Parses a decimal integer (no sign, spaces or suffix) and checks it as CheckRange does.
Result<NamedInt> ParseInt(const EnvValue& v, int64_t min, int64_t max);

// Reads `name` if set; nullopt when unset.
Result<std::optional<NamedInt>> ReadInt(const EnvReader& env, const char* name, int64_t min,
                                        int64_t max);

// Parses a TCP port, 1-65535.
Result<uint16_t> ParsePort(const EnvValue& v);

inline constexpr int64_t kMaxInt32 = INT32_MAX;

}  // namespace weft::backends::detail
