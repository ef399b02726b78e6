// The handshake's cryptography: HMAC-SHA256 against RFC 4231's test vectors, and proofs that
// depend on every input and cannot stand in for each other.
#include "backends/bootstrap/handshake.hpp"

#include <gtest/gtest.h>

#include <set>

namespace weft::backends::bootstrap::handshake {
namespace {

std::string Hex(const std::string& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

TEST(BootstrapHandshake, HmacMatchesRfc4231) {
  EXPECT_EQ(Hex(HmacSha256(std::string(20, '\x0b'), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(Hex(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(BootstrapHandshake, ProofsDependOnKeyNoncesAndRole) {
  const std::string nc(kNonceBytes, 'c'), ns(kNonceBytes, 's'), other(kNonceBytes, 'o');
  const std::string server = ServerProof("key-1", nc, ns);
  EXPECT_EQ(server.size(), kProofBytes);
  EXPECT_EQ(server, ServerProof("key-1", nc, ns));     // deterministic
  EXPECT_NE(server, ServerProof("key-2", nc, ns));     // the key
  EXPECT_NE(server, ServerProof("key-1", other, ns));  // the client's nonce
  EXPECT_NE(server, ServerProof("key-1", nc, other));  // the server's nonce
  EXPECT_NE(server, ServerProof("key-1", ns, nc));     // their order
  EXPECT_NE(server, ClientProof("key-1", nc, ns));     // the role: no reflection
  // An independent reference: the documented construction, label then both nonces.
  EXPECT_EQ(ClientProof("key-1", nc, ns), HmacSha256("key-1", "weft-store v2 client" + nc + ns));
}

TEST(BootstrapHandshake, SameProofComparesWholeStrings) {
  EXPECT_TRUE(SameProof("abc", "abc"));
  EXPECT_FALSE(SameProof("abc", "abd"));
  EXPECT_FALSE(SameProof("abc", "ab"));
  EXPECT_FALSE(SameProof("", std::string(kProofBytes, '\0')));
}

TEST(BootstrapHandshake, NoncesAndTokensAreFresh) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    auto nonce = NewNonce();
    ASSERT_TRUE(nonce.ok());
    EXPECT_EQ(nonce->size(), kNonceBytes);
    EXPECT_TRUE(seen.insert(*nonce).second);
  }
  auto token = NewToken();
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(token->size(), 64u);
  EXPECT_EQ(token->find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(*token, *NewToken());
}

}  // namespace
}  // namespace weft::backends::bootstrap::handshake
