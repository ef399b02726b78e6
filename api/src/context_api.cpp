// extern "C" layer for contexts.
#include <chrono>
#include <memory>
#include <thread>

#include "api/src/context.hpp"
#include "api/src/context_link.hpp"
#include "api/src/guard.hpp"
#include "common/clock.hpp"

using weft::Status;
using weft::api::Context;
using weft::api::Guard;
using weft::api::HandleTable;

namespace weft::api {

Result<int32_t> ContextWorldSize(const weft_context_t* ctx, const char* name) {
  Ref<Context> c;
  WEFT_RETURN_IF_ERROR(Use(ctx, name, &c));
  return c->world_size();
}
Result<int32_t> ContextRank(const weft_context_t* ctx, const char* name) {
  return ContextRank(IdOf(ctx), name);
}
Result<int32_t> ContextRank(placement::ContextId ctx, const char* name) {
  Ref<Context> c;
  WEFT_RETURN_IF_ERROR(UseValue<weft_context>(ctx.value(), name, &c));
  return c->rank();
}

}  // namespace weft::api

namespace {

using Clock = std::chrono::steady_clock;

// How long the destroy waits for calls that other threads are in after it aborted them.
constexpr std::chrono::seconds kAbortedCallGrace{10};

// Waits until no call holds the retired context's slot, or `deadline`.
bool WaitUnused(const HandleTable::Slot* slot, Clock::time_point deadline) {
  auto pause = std::chrono::microseconds(50);
  while (!HandleTable::Unused(slot)) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(10000));
  }
  return true;
}

// The context stops being a live handle at once (calls that start now are rejected); calls
// other threads are already in finish first, then the collective teardown runs.
Status DestroyContext(weft_context_t* ctx) {
  if (ctx == nullptr) return Status::Ok();
  const auto value = reinterpret_cast<uintptr_t>(ctx);
  weft::api::HandleFault fault = weft::api::HandleFault::kNone;
  HandleTable::Slot* slot =
      HandleTable::BeginRetire(value, weft::api::HandleKind::kContext, &fault);
  if (slot == nullptr)
    return weft::api::HandleError(fault, value, weft::api::HandleKind::kContext, "ctx");
  auto* c = static_cast<Context*>(slot->object);
  const Clock::time_point deadline = weft::DeadlineFromTimeoutMs(c->timeout_ms());
  if (!WaitUnused(slot, deadline)) {
    c->Abort(Status(weft::Code::kAborted,
                    "weft_context_destroy: calls on other threads did not return by the deadline"),
             c->rank());
    // Left allocated (and its slot retired) rather than freed under a call that never ends.
    if (!WaitUnused(slot, Clock::now() + kAbortedCallGrace))
      return Status(weft::Code::kTimeout,
                    "calls on other threads did not return even when aborted; the context is "
                    "left allocated");
  }
  Status s = c->Leave();
  // Leaked rather than freed while its work still runs on it (Context::Leave).
  if (c->work_outlived_abort()) return s;
  HandleTable::FinishRetire(slot);  // after a weft_context_abort that came meanwhile
  std::unique_ptr<Context> owned(c);
  return s;
}

}  // namespace

extern "C" {

weft_status_t weft_context_create(const weft_context_options_t* opts, weft_context_t** ctx) {
  return Guard(__func__, [&] {
    WEFT_REQUIRE(ctx);
    if (opts)
      WEFT_RETURN_IF_ERROR(
          weft::api::CheckStructSize(opts, sizeof(*opts), sizeof(weft_context_options_t), "opts"));
    WEFT_ASSIGN_OR_RETURN(auto impl, Context::Create(opts));
    return weft::api::PublishTo(std::move(impl), ctx);
  });
}

weft_status_t weft_context_destroy(weft_context_t* ctx) {
  return Guard(__func__, [&] { return DestroyContext(ctx); });
}

weft_status_t weft_context_rank(const weft_context_t* ctx, int32_t* rank) {
  return Guard(__func__, [&] {
    WEFT_USE(c, ctx);
    WEFT_REQUIRE(rank);
    *rank = c->rank();
    return Status::Ok();
  });
}

weft_status_t weft_context_world_size(const weft_context_t* ctx, int32_t* world_size) {
  return Guard(__func__, [&] {
    WEFT_USE(c, ctx);
    WEFT_REQUIRE(world_size);
    *world_size = c->world_size();
    return Status::Ok();
  });
}

weft_status_t weft_context_backend_name(const weft_context_t* ctx, char* buf, size_t len,
                                        size_t* needed) {
  return Guard(__func__, [&] {
    WEFT_USE(c, ctx);
    return weft::api::WriteText(c->backend_name(), buf, len, needed);
  });
}

weft_status_t weft_context_abort(weft_context_t* ctx) {
  return Guard(__func__, [&] {
    // Also while another thread destroys ctx: that is how a destroy stuck on a peer ends.
    const auto value = reinterpret_cast<uintptr_t>(ctx);
    weft::api::HandleFault fault = weft::api::HandleFault::kNone;
    HandleTable::Slot* slot =
        HandleTable::AcquireRetiring(value, weft::api::HandleKind::kContext, &fault);
    if (slot == nullptr)
      return weft::api::HandleError(fault, value, weft::api::HandleKind::kContext, "ctx");
    const weft::api::Ref<Context> c(slot);
    c->Abort(Status(weft::Code::kAborted, "weft_context_abort was called"), c->rank());
    return Status::Ok();
  });
}

weft_status_t weft_context_error(const weft_context_t* ctx, weft_status_t* status,
                                 int32_t* failed_rank, char* buf, size_t len, size_t* needed) {
  return Guard(__func__, [&] {
    WEFT_USE(c, ctx);
    WEFT_REQUIRE(status);
    WEFT_REQUIRE(failed_rank);
    const Status s = c->sticky_error();
    WEFT_RETURN_IF_ERROR(weft::api::WriteText(s.message(), buf, len, needed));
    *status = static_cast<weft_status_t>(s.code());
    *failed_rank = s.ok() ? -1 : c->failed_rank();
    return Status::Ok();
  });
}

}  // extern "C"
