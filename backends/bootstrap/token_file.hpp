// The secret of a loopback store that was given none (StoreSecret::LocalFile): the store
// writes a random token into a file that only this user can read, and the ranks on this host
// read it from there, so that a loopback store is authenticated with nothing to configure.
//
// Directories, in order: $XDG_RUNTIME_DIR/weft (when XDG_RUNTIME_DIR is an absolute path)
// and /tmp/weft-<uid>. A directory is trusted only if it is a real directory (not a link)
// owned by this effective uid with no group or other permissions (0700); a file only if it is
// a regular file owned by this uid with mode 0600. The file is written under a temporary
// name and renamed into place, so a reader never sees half a token.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace weft::backends::bootstrap::detail {

// The candidate directories, most preferred first.
std::vector<std::string> TokenDirectories();
// "store-<host>-<port>.token", the host's characters other than [A-Za-z0-9.-] as '_'.
std::string TokenFileName(const std::string& host, uint16_t port);

// A token written for host:port; the file is removed on destruction if it still holds it.
class PublishedToken {
 public:
  // Writes `token` into the first usable directory. kSystem or kInvalidUsage naming the
  // directory when none can be used (e.g. /tmp/weft-<uid> belongs to someone else).
  static Result<std::unique_ptr<PublishedToken>> Publish(const std::string& host, uint16_t port,
                                                         const std::string& token);
  PublishedToken(std::string path, std::string token)
      : path_(std::move(path)), token_(std::move(token)) {}
  PublishedToken(const PublishedToken&) = delete;
  PublishedToken& operator=(const PublishedToken&) = delete;
  ~PublishedToken();

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string token_;
};

// The token for host:port. kNotAvailable when no directory holds it yet (the store has not
// started: wait and retry), kInvalidUsage naming the path when a directory or the file fails
// the checks above.
Result<std::string> ReadPublishedToken(const std::string& host, uint16_t port);

}  // namespace weft::backends::bootstrap::detail
