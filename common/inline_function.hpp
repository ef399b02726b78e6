// A copyable callable wrapper like std::function, but one that keeps the callable inside the
// object instead of on the heap. The ABI's blocking calls wrap their operation in one: a heap
// allocation and free there cost about as much as the rest of a small collective's dispatch.
// A callable larger than the capacity does not compile (raise the capacity).
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace weft {

template <typename Signature, size_t Capacity = 160>
class InlineFunction;

template <typename R, typename... Args, size_t Capacity>
class InlineFunction<R(Args...), Capacity> {
 public:
  InlineFunction() = default;

  template <typename F, typename D = std::decay_t<F>,
            typename = std::enable_if_t<!std::is_same_v<D, InlineFunction> &&
                                        std::is_invocable_r_v<R, D&, Args...>>>
  InlineFunction(F&& f) {  // NOLINT(google-explicit-constructor): as std::function
    static_assert(sizeof(D) <= Capacity, "callable too large for this InlineFunction");
    static_assert(alignof(D) <= alignof(std::max_align_t), "callable over-aligned");
    static_assert(std::is_copy_constructible_v<D>, "callable must be copyable");
    ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
    ops_ = &kOps<D>;
  }

  InlineFunction(const InlineFunction& o) : ops_(o.ops_) {
    if (ops_) ops_->copy(o.storage_, storage_);
  }
  InlineFunction(InlineFunction&& o) noexcept : ops_(o.ops_) {
    if (ops_) {
      ops_->move(o.storage_, storage_);
      o.Reset();
    }
  }
  InlineFunction& operator=(const InlineFunction& o) {
    if (this != &o) {
      InlineFunction copy(o);
      *this = std::move(copy);
    }
    return *this;
  }
  InlineFunction& operator=(InlineFunction&& o) noexcept {
    if (this != &o) {
      Reset();
      if (o.ops_) {
        o.ops_->move(o.storage_, storage_);
        ops_ = o.ops_;
        o.Reset();
      }
    }
    return *this;
  }
  ~InlineFunction() { Reset(); }

  explicit operator bool() const { return ops_ != nullptr; }

  // Like std::function, calls the callable as an lvalue (const or not, as it was stored).
  R operator()(Args... args) const {
    return ops_->call(const_cast<unsigned char*>(storage_), std::forward<Args>(args)...);
  }

 private:
  struct Ops {
    R (*call)(void*, Args&&...);
    void (*copy)(const void*, void*);
    void (*move)(void*, void*);  // move-constructs into the second, leaves the first alive
    void (*destroy)(void*);
  };
  template <typename D>
  static constexpr Ops kOps = {
      [](void* p, Args&&... a) -> R {
        return static_cast<R>((*static_cast<D*>(p))(std::forward<Args>(a)...));
      },
      [](const void* from, void* to) { ::new (to) D(*static_cast<const D*>(from)); },
      [](void* from, void* to) { ::new (to) D(std::move(*static_cast<D*>(from))); },
      [](void* p) { static_cast<D*>(p)->~D(); },
  };

  void Reset() {
    if (ops_) ops_->destroy(storage_);
    ops_ = nullptr;
  }

  const Ops* ops_ = nullptr;
  alignas(std::max_align_t) unsigned char storage_[Capacity];
};

}  // namespace weft
