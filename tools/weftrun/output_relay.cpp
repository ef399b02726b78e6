#include "tools/weftrun/output_relay.hpp"

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace weft::tools {

LinePrefixer::LinePrefixer(std::string prefix, size_t max_line)
    : prefix_(std::move(prefix)), max_line_(max_line > 0 ? max_line : 1) {}

std::string LinePrefixer::Feed(std::string_view bytes) {
  std::string out;
  while (!bytes.empty()) {
    const size_t newline = bytes.find('\n');
    const size_t segment = newline == std::string_view::npos ? bytes.size() : newline;
    const size_t room = max_line_ - pending_.size();
    if (segment > room) {  // too long for one line: relay what fits as a line of its own
      pending_.append(bytes.substr(0, room));
      bytes.remove_prefix(room);
      EmitPending(out);
      continue;
    }
    pending_.append(bytes.substr(0, segment));
    if (newline == std::string_view::npos) break;
    bytes.remove_prefix(segment + 1);
    EmitPending(out);
  }
  return out;
}

std::string LinePrefixer::Finish() {
  std::string out;
  if (!pending_.empty()) EmitPending(out);
  return out;
}

void LinePrefixer::EmitPending(std::string& out) {
  out.append(prefix_).append(pending_).push_back('\n');
  pending_.clear();
}

void WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace weft::tools
