// Relays one rank's stdout or stderr as whole, prefixed lines, so that lines from different
// ranks never interleave mid-line on weftrun's own stdout and stderr.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace weft::tools {

// A line longer than this is relayed in pieces: a rank printing binary data or one enormous
// line must not make weftrun buffer without bound.
inline constexpr size_t kMaxLineBytes = 64 * 1024;

// Splits a byte stream into lines and prefixes each. Pure: no I/O.
class LinePrefixer {
 public:
  explicit LinePrefixer(std::string prefix, size_t max_line = kMaxLineBytes);

  // The complete lines in `bytes` (with what earlier calls left pending), each prefixed and
  // ending in '\n'. An unfinished last line is kept for the next call.
  std::string Feed(std::string_view bytes);
  // The pending unfinished line, prefixed and newline-terminated; "" when there is none.
  std::string Finish();

 private:
  void EmitPending(std::string& out);

  std::string prefix_;
  std::string pending_;  // never longer than max_line_
  size_t max_line_;
};

// Writes all of `bytes` to `fd`, retrying short writes. Output that cannot be written (a
// closed pipe) is dropped: the ranks must still be supervised when nobody reads their output.
void WriteAll(int fd, std::string_view bytes);

class OutputRelay {
 public:
  OutputRelay(std::string prefix, int out_fd) : lines_(std::move(prefix)), out_fd_(out_fd) {}
  void Feed(std::string_view bytes) { WriteAll(out_fd_, lines_.Feed(bytes)); }
  void Finish() { WriteAll(out_fd_, lines_.Finish()); }

 private:
  LinePrefixer lines_;
  int out_fd_;
};

}  // namespace weft::tools
