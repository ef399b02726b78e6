#include "api/src/check_policy.hpp"

#include <cstdlib>
#include <string>

namespace weft::api {
namespace {

Status Malformed(const char* name, const char* value, const char* expected) {
  return InvalidArgument(std::string(name) + " is \"" + value + "\" but must be " + expected);
}

// "123", "64K", "4M", "1G": digits, then at most one suffix.
Result<uint64_t> ParseBytes(const char* name, const char* v) {
  const char* expected = "a byte count: digits with an optional K, M or G suffix";
  uint64_t n = 0;
  const char* p = v;
  for (; *p >= '0' && *p <= '9'; ++p) {
    if (n > (UINT64_MAX - 9) / 10) return Malformed(name, v, expected);
    n = n * 10 + static_cast<uint64_t>(*p - '0');
  }
  if (p == v) return Malformed(name, v, expected);
  int shift = 0;
  switch (*p) {
    case 'K':
      shift = 10;
      break;
    case 'M':
      shift = 20;
      break;
    case 'G':
      shift = 30;
      break;
    default:
      break;
  }
  if (shift) ++p;
  if (*p != '\0' || (shift && n > (UINT64_MAX >> shift))) return Malformed(name, v, expected);
  return n << shift;
}

}  // namespace

Result<CheckPolicy> ReadCheckPolicy(const std::function<const char*(const char*)>& getenv) {
  auto get = [&](const char* name) -> const char* {
    const char* v = getenv ? getenv(name) : std::getenv(name);
    return v && *v ? v : nullptr;
  };
  CheckPolicy p;
  if (const char* v = get("WEFT_CHECK_COLLECTIVES")) {
    const std::string s = v;
    if (s != "0" && s != "1") return Malformed("WEFT_CHECK_COLLECTIVES", v, "0 or 1");
    p.mode = s == "1" ? CheckPolicy::Mode::kAll : CheckPolicy::Mode::kOff;
  }
  if (const char* v = get("WEFT_CHECK_COLLECTIVES_MIN_BYTES")) {
    WEFT_ASSIGN_OR_RETURN(p.min_bytes, ParseBytes("WEFT_CHECK_COLLECTIVES_MIN_BYTES", v));
  }
  return p;
}

}  // namespace weft::api
