#include "backends/env/store_settings.hpp"

#include "backends/env/env_reader.hpp"

namespace weft::backends {
namespace {

constexpr size_t kMinTokenLength = 16;
constexpr size_t kMaxTokenLength = 1024;

// The token is a secret: messages give its length and the offending position, never its text.
Result<std::optional<std::string>> ReadToken(const detail::EnvReader& env) {
  const std::optional<detail::EnvValue> v = env.Get("WEFT_STORE_TOKEN");
  if (!v) return std::optional<std::string>();
  const std::string& text = v->text;
  if (text.size() < kMinTokenLength || text.size() > kMaxTokenLength) {
    return InvalidArgument("WEFT_STORE_TOKEN is " + std::to_string(text.size()) +
                           " characters long; it must have " + std::to_string(kMinTokenLength) +
                           " to " + std::to_string(kMaxTokenLength) +
                           " (e.g. WEFT_STORE_TOKEN=$(openssl rand -hex 32))");
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c <= 0x20 || c >= 0x7F) {
      return InvalidArgument(
          "WEFT_STORE_TOKEN has a space, control or non-ASCII character at "
          "position " +
          std::to_string(i) + "; use printable ASCII only (e.g. $(openssl rand -hex 32))");
    }
  }
  return std::optional<std::string>(text);
}

Result<bool> ReadFlag(const detail::EnvReader& env, const char* name) {
  const std::optional<detail::EnvValue> v = env.Get(name);
  if (!v) return false;
  if (v->text == "0") return false;
  if (v->text == "1") return true;
  return InvalidArgument(std::string(name) + "='" + v->text + "' must be 0 or 1");
}

template <class T>
Result<std::optional<T>> ReadBounded(const detail::EnvReader& env, const char* name, int64_t min,
                                     int64_t max) {
  WEFT_ASSIGN_OR_RETURN(std::optional<detail::NamedInt> v, detail::ReadInt(env, name, min, max));
  if (!v) return std::optional<T>();
  return std::optional<T>(static_cast<T>(v->value));
}

}  // namespace

Result<StoreSettings> ReadStoreSettings(const GetEnv& getenv) {
  const detail::EnvReader env(getenv);
  StoreSettings s;
  WEFT_ASSIGN_OR_RETURN(s.token, ReadToken(env));
  WEFT_ASSIGN_OR_RETURN(s.insecure, ReadFlag(env, "WEFT_STORE_INSECURE"));
  WEFT_ASSIGN_OR_RETURN(
      s.max_message, ReadBounded<uint32_t>(env, "WEFT_STORE_MAX_MESSAGE", 4096, int64_t{1} << 30));
  WEFT_ASSIGN_OR_RETURN(s.max_bytes, ReadBounded<uint64_t>(env, "WEFT_STORE_MAX_BYTES",
                                                           int64_t{1} << 20, int64_t{1} << 62));
  WEFT_ASSIGN_OR_RETURN(s.max_connections,
                        ReadBounded<uint32_t>(env, "WEFT_STORE_MAX_CONNECTIONS", 1, 1 << 20));
  return s;
}

}  // namespace weft::backends
