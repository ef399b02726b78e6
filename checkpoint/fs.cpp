#include "checkpoint/fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace weft::checkpoint {
namespace {

Status SysError(const std::string& what, const std::string& path) {
  return Status(Code::kSystem, what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

File& File::operator=(File&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    o.fd_ = -1;
  }
  return *this;
}

Result<File> File::Create(const std::string& path) {
  File f;
  f.fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (f.fd_ < 0) return SysError("cannot create", path);
  f.path_ = path;
  return f;
}

Result<File> File::Open(const std::string& path) {
  File f;
  f.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd_ < 0) return SysError("cannot open", path);
  f.path_ = path;
  return f;
}

Status File::WriteAll(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return SysError("cannot write", path_);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

Status File::Sync() {
  if (::fsync(fd_) != 0) return SysError("cannot fsync", path_);
  return Status::Ok();
}

Status File::ReadAt(void* data, size_t n, uint64_t offset) const {
  char* p = static_cast<char*>(data);
  size_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(fd_, p + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return SysError("cannot read", path_);
    }
    if (r == 0) {
      const auto size = Size();
      return Status(Code::kSystem,
                    path_ + " is truncated: bytes [" + std::to_string(offset) + ", " +
                        std::to_string(offset + n) + ") wanted but the file has " +
                        (size.ok() ? std::to_string(*size) : std::string("?")) + " bytes");
    }
    done += static_cast<size_t>(r);
  }
  return Status::Ok();
}

Result<uint64_t> File::Size() const {
  struct stat st;
  if (::fstat(fd_, &st) != 0) return SysError("cannot stat", path_);
  return static_cast<uint64_t>(st.st_size);
}

Result<std::string> ReadWholeFile(const std::string& path) {
  WEFT_ASSIGN_OR_RETURN(File f, File::Open(path));
  WEFT_ASSIGN_OR_RETURN(uint64_t size, f.Size());
  std::string text(size, '\0');
  WEFT_RETURN_IF_ERROR(f.ReadAt(text.data(), size, 0));
  return text;
}

Status WriteWholeFile(const std::string& path, const std::string& text) {
  WEFT_ASSIGN_OR_RETURN(File f, File::Create(path));
  WEFT_RETURN_IF_ERROR(f.WriteAll(text.data(), text.size()));
  return f.Sync();
}

Status MakeDir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0) return SysError("cannot create directory", path);
  return Status::Ok();
}

Status SyncDir(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return SysError("cannot open directory", path);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return SysError("cannot fsync directory", path);
  return Status::Ok();
}

Status RemoveTree(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) {
    if (errno == ENOENT) return Status::Ok();
    if (errno == ENOTDIR) {
      if (::unlink(path.c_str()) != 0) return SysError("cannot remove", path);
      return Status::Ok();
    }
    return SysError("cannot open directory", path);
  }
  Status s;
  while (const dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string child = path + "/" + name;
    if (e->d_type == DT_DIR) {
      s = RemoveTree(child);
    } else if (::unlink(child.c_str()) != 0) {
      s = SysError("cannot remove", child);
    }
    if (!s.ok()) break;
  }
  ::closedir(dir);
  WEFT_RETURN_IF_ERROR(s);
  if (::rmdir(path.c_str()) != 0) return SysError("cannot remove directory", path);
  return Status::Ok();
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

Status PublishDir(const std::string& from, const std::string& to, bool replace) {
  // renameat2 makes both cases atomic: NOREPLACE never clobbers a checkpoint the caller did
  // not ask to replace, EXCHANGE never leaves a moment with no checkpoint under `to`.
  const unsigned flags = (replace && Exists(to)) ? RENAME_EXCHANGE : RENAME_NOREPLACE;
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), flags) != 0) {
    if (errno == EEXIST)
      return Status(Code::kInvalidUsage,
                    to + " already exists (set overwrite to replace it atomically)");
    return SysError("cannot rename " + from + " to", to);
  }
  return Status::Ok();
}

std::string StripSlashes(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

std::string ParentDir(const std::string& path) {
  const std::string p = StripSlashes(path);
  const size_t slash = p.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

std::string TempDirFor(const std::string& path) {
  const std::string p = StripSlashes(path);
  const size_t slash = p.rfind('/');
  const std::string base = slash == std::string::npos ? p : p.substr(slash + 1);
  const std::string dir = slash == std::string::npos ? std::string() : p.substr(0, slash + 1);
  return dir + "." + base + ".weft-tmp";
}

}  // namespace weft::checkpoint
