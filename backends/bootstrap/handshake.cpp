#include "backends/bootstrap/handshake.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

namespace weft::backends::bootstrap::handshake {
namespace {

constexpr std::string_view kServerLabel = "weft-store v2 server";
constexpr std::string_view kClientLabel = "weft-store v2 client";

Result<std::string> RandomBytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    return Status{Code::kSystem, "bootstrap store: OpenSSL's RAND_bytes could not deliver " +
                                     std::to_string(n) + " random bytes"};
  }
  return out;
}

std::string Proof(std::string_view label, std::string_view key, std::string_view client_nonce,
                  std::string_view server_nonce) {
  std::string data;
  data.reserve(label.size() + client_nonce.size() + server_nonce.size());
  data.append(label).append(client_nonce).append(server_nonce);
  return HmacSha256(key, data);
}

}  // namespace

Result<std::string> NewNonce() { return RandomBytes(kNonceBytes); }

Result<std::string> NewToken() {
  WEFT_ASSIGN_OR_RETURN(std::string raw, RandomBytes(32));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * raw.size());
  for (unsigned char c : raw) {
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 15]);
  }
  OPENSSL_cleanse(raw.data(), raw.size());
  return hex;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // A non-null key pointer even for an empty key: HMAC() reads NULL as "no key given".
  static const unsigned char kEmpty = 0;
  const void* key_bytes = key.empty() ? static_cast<const void*>(&kEmpty) : key.data();
  if (HMAC(EVP_sha256(), key_bytes, static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac,
           &length) == nullptr) {
    return {};
  }
  return std::string(reinterpret_cast<const char*>(mac), length);
}

std::string ServerProof(std::string_view key, std::string_view client_nonce,
                        std::string_view server_nonce) {
  return Proof(kServerLabel, key, client_nonce, server_nonce);
}

std::string ClientProof(std::string_view key, std::string_view client_nonce,
                        std::string_view server_nonce) {
  return Proof(kClientLabel, key, client_nonce, server_nonce);
}

bool SameProof(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace weft::backends::bootstrap::handshake
