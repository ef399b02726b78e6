// Store addresses as users write them: "host:port", "10.0.0.1:29500", "[::1]:29500".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "common/result.hpp"

namespace weft::backends {

// Splits "host:port" into a host (brackets of an IPv6 literal removed) and a port in
// [1, 65535]. An IPv6 literal must be bracketed, since its colons would make the port
// ambiguous. kInvalidArgument, quoting the input, for anything else.
Result<std::pair<std::string, uint16_t>> ParseHostPort(std::string_view s);

// Whether `host` may name a host: a DNS name, an IPv4 address or an unbracketed IPv6 address
// (with an optional %zone). Rejects empty strings, spaces and URL punctuation, which only
// ever come from a mistyped variable.
bool IsPlausibleHost(std::string_view host);

}  // namespace weft::backends
