#include "tools/weftrun/job_token.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <array>

namespace weft::tools {

Result<std::string> NewJobToken() {
  std::array<unsigned char, 32> raw{};
  if (RAND_bytes(raw.data(), static_cast<int>(raw.size())) != 1) {
    return Status{Code::kSystem, "cannot make the job's store token: OpenSSL's RAND_bytes failed"};
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  token.reserve(2 * raw.size());
  for (unsigned char c : raw) {
    token.push_back(kHex[c >> 4]);
    token.push_back(kHex[c & 15]);
  }
  OPENSSL_cleanse(raw.data(), raw.size());
  return token;
}

}  // namespace weft::tools
