// The file-system operations a checkpoint needs to be crash-safe: files written in full and
// fsynced, directories fsynced after entries change, and the atomic rename that publishes a
// finished checkpoint. Every error names the path and the system's reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/result.hpp"

namespace weft::checkpoint {

// An open file descriptor, closed on destruction.
class File {
 public:
  File() = default;
  ~File();
  File(File&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  File& operator=(File&& o) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  static Result<File> Create(const std::string& path);  // new file, truncated, write-only
  static Result<File> Open(const std::string& path);    // read-only
  Status WriteAll(const void* data, size_t n);
  Status Sync();
  // Reads exactly n bytes at `offset`; a short read (the file ends first) is an error that
  // says how many bytes the file has.
  Status ReadAt(void* data, size_t n, uint64_t offset) const;
  Result<uint64_t> Size() const;
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

Result<std::string> ReadWholeFile(const std::string& path);
// Writes `text` to `path`, fsynced.
Status WriteWholeFile(const std::string& path, const std::string& text);

Status MakeDir(const std::string& path);
Status SyncDir(const std::string& path);
// Removes a directory and everything in it (no error when it does not exist).
Status RemoveTree(const std::string& path);
bool Exists(const std::string& path);

// Renames directory `from` to `to`. When `to` exists: with replace, the two are swapped
// atomically (the old one then sits at `from`, for the caller to remove); without, an error.
Status PublishDir(const std::string& from, const std::string& to, bool replace);

// "a/b/c" -> "a/b" ("." when there is no slash); trailing slashes ignored.
std::string ParentDir(const std::string& path);
std::string StripSlashes(const std::string& path);
// The temporary directory a save of `path` writes into, next to it (same file system, so the
// final rename is atomic).
std::string TempDirFor(const std::string& path);

}  // namespace weft::checkpoint
