// The C ABI's handles as seen from inside: a handle type names its object type (HandleTraits,
// specialized next to each object), calls take references with Use, creates hand out handles
// with Publish, destroys retire them with Destroy (handle_table.hpp says how a handle is
// checked). A weft_*_t is never dereferenced: its struct is never defined, so the compiler
// refuses any `handle->`.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

#include "api/src/handle_table.hpp"
#include "common/result.hpp"

namespace weft::api {

// HandleTraits<weft_x>: Object (what the handle names) and kKind.
template <class H>
struct HandleTraits;

// A call's reference to the object of a live handle: the object is not freed while it is held,
// even if another thread destroys the handle meanwhile.
template <class T>
class Ref {
 public:
  Ref() = default;
  explicit Ref(HandleTable::Slot* slot) : slot_(slot) {}
  Ref(Ref&& o) noexcept : slot_(std::exchange(o.slot_, nullptr)) {}
  Ref& operator=(Ref&& o) noexcept {
    if (this != &o) {
      Reset();
      slot_ = std::exchange(o.slot_, nullptr);
    }
    return *this;
  }
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  ~Ref() { Reset(); }

  T* get() const { return static_cast<T*>(slot_->object); }
  T* operator->() const { return get(); }
  T& operator*() const { return *get(); }

 private:
  void Reset() {
    if (slot_ != nullptr) HandleTable::Release(std::exchange(slot_, nullptr));
  }
  HandleTable::Slot* slot_ = nullptr;
};

// The error for a value that is not a live handle of `kind`, naming the argument `name`
// ("mesh", "src[2]", "plan's context"). Cold: built only on failure.
[[gnu::cold]] Status HandleError(HandleFault fault, uintptr_t handle, HandleKind kind,
                                 const char* name);

// Takes a reference to the object behind `handle` into *ref, or returns INVALID_ARGUMENT naming
// `name`. A Status and an out-parameter rather than a Result: every call takes this path, and
// this form inlines into it.
template <class H>
Status UseValue(uintptr_t value, const char* name, Ref<typename HandleTraits<H>::Object>* ref) {
  HandleFault fault = HandleFault::kNone;
  HandleTable::Slot* s = HandleTable::Acquire(value, HandleTraits<H>::kKind, &fault);
  if (s == nullptr) [[unlikely]]
    return HandleError(fault, value, HandleTraits<H>::kKind, name);
  *ref = Ref<typename HandleTraits<H>::Object>(s);
  return Status::Ok();
}
// UseValue for a handle pointer. UseValue itself serves a handle held as its value (a mesh's
// owner identity, placement::ContextId), so that no one casts an integer back to a pointer.
template <class H>
Status Use(const H* handle, const char* name, Ref<typename HandleTraits<H>::Object>* ref) {
  return UseValue<H>(reinterpret_cast<uintptr_t>(handle), name, ref);
}

// A new handle owning `object`.
template <class H>
Result<H*> Publish(std::unique_ptr<typename HandleTraits<H>::Object> object) {
  using Object = typename HandleTraits<H>::Object;
  const uintptr_t value = HandleTable::Insert(HandleTraits<H>::kKind, object.get(), [](void* p) {
    std::unique_ptr<Object> owned(static_cast<Object*>(p));
  });
  if (value == 0) return Status(Code::kOutOfMemory, "2^24 handles are live: no room for another");
  (void)object.release();  // the table owns it now
  return reinterpret_cast<H*>(value);
}

// Publish, writing the handle to *out only on success.
template <class H>
Status PublishTo(std::unique_ptr<typename HandleTraits<H>::Object> object, H** out) {
  WEFT_ASSIGN_OR_RETURN(H * h, Publish<H>(std::move(object)));
  *out = h;
  return Status::Ok();
}

// Destroys `handle` (NULL is accepted). Calls that hold a reference finish first; the object
// is freed when the last of them returns.
template <class H>
Status Destroy(H* handle, const char* name) {
  if (handle == nullptr) return Status::Ok();
  const auto value = reinterpret_cast<uintptr_t>(handle);
  const HandleFault fault = HandleTable::Retire(value, HandleTraits<H>::kKind);
  if (fault == HandleFault::kNone) return Status::Ok();
  return HandleError(fault, value, HandleTraits<H>::kKind, name);
}

}  // namespace weft::api

namespace weft::api {
// The reference type for a handle pointer type (const weft_mesh_t* -> Ref<MeshObject>).
template <class P>
using RefFor = Ref<typename HandleTraits<std::remove_cv_t<std::remove_pointer_t<P>>>::Object>;
}  // namespace weft::api

// `WEFT_USE(m, mesh);` binds m to a reference to the object of the handle `mesh`, or returns
// the error naming the argument "mesh".
#define WEFT_USE(var, handle)                \
  ::weft::api::RefFor<decltype(handle)> var; \
  WEFT_RETURN_IF_ERROR(::weft::api::Use(handle, #handle, &var))
