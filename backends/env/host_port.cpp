#include "backends/env/host_port.hpp"

#include <cctype>
#include <charconv>

namespace weft::backends {
namespace {

bool IsHostChar(char c) {
  // ':' for IPv6, '%' for an IPv6 zone ("fe80::1%eth0"), '_' because some clusters use it.
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
         c == ':' || c == '%';
}

Status Malformed(std::string_view s, std::string_view why) {
  return InvalidArgument("address '" + std::string(s) + "' is not host:port: " + std::string(why));
}

Result<uint16_t> ParsePortText(std::string_view s, std::string_view port) {
  if (port.empty()) return Malformed(s, "the port is empty");
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec == std::errc::result_out_of_range) return Malformed(s, "port out of range (1-65535)");
  if (ec != std::errc() || end != port.data() + port.size()) {
    return Malformed(s, "port '" + std::string(port) + "' is not a decimal number");
  }
  if (value < 1 || value > 65535) return Malformed(s, "port out of range (1-65535)");
  return static_cast<uint16_t>(value);
}

// "[v6]:port": returns the position of ':' before the port, or an error.
Result<size_t> BracketedHostEnd(std::string_view s) {
  const size_t close = s.find(']');
  if (close == std::string_view::npos) return Malformed(s, "'[' is never closed");
  if (close == 1) return Malformed(s, "the host between '[' and ']' is empty");
  if (close + 1 >= s.size() || s[close + 1] != ':') {
    return Malformed(s, "expected ':port' after ']'");
  }
  return close + 1;
}

}  // namespace

bool IsPlausibleHost(std::string_view host) {
  if (host.empty()) return false;
  for (char c : host) {
    if (!IsHostChar(c)) return false;
  }
  return true;
}

Result<std::pair<std::string, uint16_t>> ParseHostPort(std::string_view s) {
  if (s.empty()) return Malformed(s, "it is empty");
  std::string_view host;
  size_t colon = 0;
  if (s.front() == '[') {
    WEFT_ASSIGN_OR_RETURN(colon, BracketedHostEnd(s));
    host = s.substr(1, colon - 2);
  } else {
    colon = s.rfind(':');
    if (colon == std::string_view::npos) return Malformed(s, "missing ':port'");
    host = s.substr(0, colon);
    if (host.find(':') != std::string_view::npos) {
      return Malformed(s, "an IPv6 address needs brackets, as in [::1]:29500");
    }
    if (host.empty()) return Malformed(s, "the host is empty");
  }
  if (!IsPlausibleHost(host)) {
    return Malformed(s, "'" + std::string(host) + "' is not a host name or address");
  }
  WEFT_ASSIGN_OR_RETURN(uint16_t port, ParsePortText(s, s.substr(colon + 1)));
  return std::pair<std::string, uint16_t>(std::string(host), port);
}

}  // namespace weft::backends
