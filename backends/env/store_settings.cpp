#include "backends/env/store_settings.hpp"

#include "backends/env/env_reader.hpp"
#include "common/host_params.hpp"

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

// A variable as common/host_params.hpp declares it (range, grammar, default), through the one
// parser; unset without a default: nullopt.
Result<std::optional<int64_t>> ReadDeclared(const detail::EnvReader& env, params::Key key) {
  const std::optional<detail::EnvValue> v = env.Get(key.spec().name);
  param::Parsed parsed = param::Parse(key.spec(), v ? v->text : "");
  if (!parsed.ok()) return InvalidArgument(parsed.error);
  if (!parsed.value.set) return std::optional<int64_t>();
  return std::optional<int64_t>(parsed.value.number);
}

template <class T>
Result<std::optional<T>> ReadBounded(const detail::EnvReader& env, params::Key key) {
  WEFT_ASSIGN_OR_RETURN(std::optional<int64_t> v, ReadDeclared(env, key));
  if (!v) return std::optional<T>();
  return std::optional<T>(static_cast<T>(*v));
}

}  // namespace

Result<StoreSettings> ReadStoreSettings(const GetEnv& getenv) {
  const detail::EnvReader env(getenv);
  StoreSettings s;
  WEFT_ASSIGN_OR_RETURN(s.token, ReadToken(env));
  WEFT_ASSIGN_OR_RETURN(std::optional<int64_t> insecure, ReadDeclared(env, "WEFT_STORE_INSECURE"));
  s.insecure = insecure.value_or(0) != 0;
  WEFT_ASSIGN_OR_RETURN(s.max_message, ReadBounded<uint32_t>(env, "WEFT_STORE_MAX_MESSAGE"));
  WEFT_ASSIGN_OR_RETURN(s.max_bytes, ReadBounded<uint64_t>(env, "WEFT_STORE_MAX_BYTES"));
  WEFT_ASSIGN_OR_RETURN(s.max_connections,
                        ReadBounded<uint32_t>(env, "WEFT_STORE_MAX_CONNECTIONS"));
  return s;
}

}  // namespace weft::backends
