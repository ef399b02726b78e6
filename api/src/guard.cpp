#include "api/src/guard.hpp"

#include <cstring>
#include <string>

namespace weft::api {
namespace {
thread_local std::string t_last_error;
}  // namespace

const char* LastError() noexcept { return t_last_error.c_str(); }

weft_status_t Fail(const char* fn, const Status& status) noexcept {
  try {
    t_last_error = std::string(fn) + ": " + status.message();
  } catch (...) {
    t_last_error.clear();  // no memory for the message; the code still says what happened
  }
  return static_cast<weft_status_t>(status.code());
}

Status CheckStructSize(const void* opts, size_t known_size, size_t min_size, const char* name) {
  uint32_t size = 0;
  std::memcpy(&size, opts, sizeof(size));
  if (size < min_size)
    return InvalidArgument(std::string(name) + "->struct_size is " + std::to_string(size) +
                           " but must be at least " + std::to_string(min_size) +
                           " (initialize with its _INIT macro)");
  const auto* bytes = static_cast<const unsigned char*>(opts);
  for (size_t i = known_size; i < size; ++i)
    if (bytes[i] != 0)
      return InvalidArgument(std::string(name) + "->struct_size is " + std::to_string(size) +
                             " and byte " + std::to_string(i) +
                             " is non-zero, but this library knows only " +
                             std::to_string(known_size) + " bytes (is it older than the caller?)");
  return Status::Ok();
}

Status WriteText(const std::string& text, char* buf, size_t len, size_t* needed) {
  if (needed == nullptr) return InvalidArgument("needed is NULL");
  *needed = text.size() + 1;
  if (buf == nullptr && len == 0) return Status::Ok();  // a size query
  if (buf == nullptr) return InvalidArgument("buf is NULL but len is " + std::to_string(len));
  if (len < text.size() + 1)
    return InvalidArgument("len is " + std::to_string(len) + " but the text needs " +
                           std::to_string(text.size() + 1) + " bytes (see *needed)");
  std::memcpy(buf, text.c_str(), text.size() + 1);
  return Status::Ok();
}

}  // namespace weft::api
