// Result<T>: a value or a non-ok Status (std::expected is C++23; we build as C++20).
#pragma once

#include <cassert>
#include <utility>
#include <variant>

#include "common/status.hpp"

namespace weft {

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(v_).ok() && "a Result holds a value or an error, not Ok");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

#define WEFT_CONCAT_INNER_(a, b) a##b
#define WEFT_CONCAT_(a, b) WEFT_CONCAT_INNER_(a, b)
#define WEFT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
// `WEFT_ASSIGN_OR_RETURN(auto x, MakeX());` binds x or returns the error.
#define WEFT_ASSIGN_OR_RETURN(lhs, expr) \
  WEFT_ASSIGN_OR_RETURN_IMPL_(WEFT_CONCAT_(weft_result_, __LINE__), lhs, expr)

}  // namespace weft
