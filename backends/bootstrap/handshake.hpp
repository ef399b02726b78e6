// The cryptography of the store's handshake (wire.hpp): nonces and the two proofs, on
// OpenSSL's libcrypto. Each proof is HMAC-SHA256 keyed by the job's secret over a label and
// both nonces. The labels differ, so a server's proof can never be replayed as a client's
// (or the reverse), and the nonces are fresh on both sides, so no old exchange can be replayed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace weft::backends::bootstrap::handshake {

inline constexpr size_t kNonceBytes = 32;
inline constexpr size_t kProofBytes = 32;  // SHA-256

// kNonceBytes from OpenSSL's CSPRNG (RAND_bytes); kSystem if it cannot deliver.
Result<std::string> NewNonce();
// A fresh secret as 64 hex digits (256 random bits), for the token file (token_file.hpp).
Result<std::string> NewToken();

// HMAC-SHA256(key, data): 32 bytes; empty if OpenSSL fails, which no received proof (always
// kProofBytes long) can match.
std::string HmacSha256(std::string_view key, std::string_view data);

// What the server sends to prove it knows `key`: HMAC(key, "weft-store v2 server" | Nc | Ns).
std::string ServerProof(std::string_view key, std::string_view client_nonce,
                        std::string_view server_nonce);
// What the client sends back: HMAC(key, "weft-store v2 client" | Nc | Ns).
std::string ClientProof(std::string_view key, std::string_view client_nonce,
                        std::string_view server_nonce);

// Constant-time comparison (CRYPTO_memcmp), so that timing tells nothing about how much of a
// forged proof was right. False when the lengths differ.
bool SameProof(std::string_view a, std::string_view b);

}  // namespace weft::backends::bootstrap::handshake
