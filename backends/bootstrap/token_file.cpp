#include "backends/bootstrap/token_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "backends/bootstrap/handshake.hpp"

namespace weft::backends::bootstrap::detail {
namespace {

constexpr size_t kMaxTokenFileBytes = 4096;

std::string Octal(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof(text), "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

Status Untrusted(const std::string& path, const std::string& why) {
  return InvalidUsage("bootstrap store: will not trust " + path + " for the store's secret: " +
                      why + " (remove it, or set WEFT_STORE_TOKEN on every rank instead)");
}

Status Errno(const std::string& what, const std::string& path, int err) {
  return {Code::kSystem,
          "bootstrap store: cannot " + what + " " + path + ": " + std::strerror(err)};
}

// Owned by this euid, nothing for group or others, of the wanted type.
Status CheckPrivate(const struct stat& st, const std::string& path, bool directory) {
  const bool right_type = directory ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
  if (!right_type) {
    return Untrusted(path, directory ? "it is not a directory" : "it is not a regular file");
  }
  if (st.st_uid != ::geteuid()) {
    return Untrusted(path, "it belongs to uid " + std::to_string(st.st_uid) + ", not " +
                               std::to_string(::geteuid()));
  }
  if ((st.st_mode & 077) != 0) {
    return Untrusted(
        path, "its mode is " + Octal(st.st_mode) + "; group and others must have " + "no access");
  }
  return Status::Ok();
}

// kNotAvailable if the directory does not exist (and is not to be created).
Status PrivateDirectory(const std::string& dir, bool create) {
  if (create && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Errno("create the directory", dir, errno);
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return {Code::kNotAvailable, dir + " does not exist"};
    return Errno("inspect", dir, errno);
  }
  return CheckPrivate(st, dir, true);
}

Status WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return {Code::kSystem, std::strerror(errno)};
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Writes under a fresh temporary name, then renames into place.
Status WriteAtomically(const std::string& dir, const std::string& name, const std::string& token) {
  WEFT_ASSIGN_OR_RETURN(std::string salt, handshake::NewToken());
  const std::string temp =
      dir + "/." + name + "." + std::to_string(::getpid()) + "." + salt.substr(0, 8);
  const std::string path = dir + "/" + name;
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("create", temp, errno);
  Status written = WriteAll(fd, token + "\n");
  if (::close(fd) != 0 && written.ok()) written = {Code::kSystem, std::strerror(errno)};
  if (written.ok() && ::rename(temp.c_str(), path.c_str()) != 0) {
    written = {Code::kSystem, std::strerror(errno)};
  }
  if (!written.ok()) {
    ::unlink(temp.c_str());
    return {Code::kSystem, "bootstrap store: cannot write " + path + ": " + written.message()};
  }
  return Status::Ok();
}

// The token in `path`; kNotAvailable if there is no such file.
Result<std::string> ReadToken(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status{Code::kNotAvailable, path + " does not exist"};
    if (errno == ELOOP) return Untrusted(path, "it is a symbolic link");
    return Errno("open", path, errno);
  }
  struct stat st {};
  Status checked =
      ::fstat(fd, &st) == 0 ? CheckPrivate(st, path, false) : Errno("inspect", path, errno);
  std::string token(kMaxTokenFileBytes, '\0');
  ssize_t n = checked.ok() ? ::read(fd, token.data(), token.size()) : 0;
  ::close(fd);
  WEFT_RETURN_IF_ERROR(checked);
  if (n < 0) return Errno("read", path, errno);
  token.resize(static_cast<size_t>(n));
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  // Empty: caught between create and write by a writer that does not rename (not ours).
  if (token.empty()) return Status{Code::kNotAvailable, path + " is empty"};
  return token;
}

}  // namespace

std::vector<std::string> TokenDirectories() {
  std::vector<std::string> dirs;
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  if (runtime != nullptr && runtime[0] == '/') dirs.push_back(std::string(runtime) + "/weft");
  dirs.push_back("/tmp/weft-" + std::to_string(::geteuid()));
  return dirs;
}

std::string TokenFileName(const std::string& host, uint16_t port) {
  std::string safe = host;
  for (char& c : safe) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  }
  return "store-" + safe + "-" + std::to_string(port) + ".token";
}

Result<std::unique_ptr<PublishedToken>> PublishedToken::Publish(const std::string& host,
                                                                uint16_t port,
                                                                const std::string& token) {
  const std::string name = TokenFileName(host, port);
  const std::vector<std::string> dirs = TokenDirectories();
  Status last;
  for (size_t i = 0; i < dirs.size(); ++i) {
    last = PrivateDirectory(dirs[i], true);
    // $XDG_RUNTIME_DIR may be stale (its session ended): fall back to /tmp.
    if (!last.ok() && last.code() != Code::kInvalidUsage && i + 1 < dirs.size()) continue;
    WEFT_RETURN_IF_ERROR(last);
    WEFT_RETURN_IF_ERROR(WriteAtomically(dirs[i], name, token));
    return std::make_unique<PublishedToken>(dirs[i] + "/" + name, token);
  }
  return last;
}

PublishedToken::~PublishedToken() {
  auto current = ReadToken(path_);
  if (current.ok() && *current == token_) ::unlink(path_.c_str());
}

Result<std::string> ReadPublishedToken(const std::string& host, uint16_t port) {
  const std::string name = TokenFileName(host, port);
  std::string looked;
  for (const std::string& dir : TokenDirectories()) {
    looked += (looked.empty() ? "" : " and ") + dir;
    Status safe = PrivateDirectory(dir, false);
    if (safe.code() == Code::kNotAvailable) continue;
    WEFT_RETURN_IF_ERROR(safe);
    auto token = ReadToken(dir + "/" + name);
    if (token.ok() || token.status().code() != Code::kNotAvailable) return token;
  }
  return Status{Code::kNotAvailable, "no " + name + " in " + looked + " yet"};
}

}  // namespace weft::backends::bootstrap::detail
