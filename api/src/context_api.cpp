// extern "C" layer for contexts.
#include <memory>

#include "api/src/context.hpp"
#include "api/src/context_link.hpp"
#include "api/src/guard.hpp"

using weft::Status;
using weft::api::Guard;

namespace weft::api {

int64_t ContextWorldSize(const weft_context_t* ctx) noexcept {
  return ctx && ctx->impl ? ctx->impl->world_size() : -1;
}
int32_t ContextRank(const weft_context_t* ctx) noexcept {
  return ctx && ctx->impl ? ctx->impl->rank() : -1;
}

}  // namespace weft::api

extern "C" {

weft_status_t weft_context_create(const weft_context_options_t* opts, weft_context_t** ctx) {
  return Guard(__func__, [&] {
    WEFT_REQUIRE(ctx);
    if (opts)
      WEFT_RETURN_IF_ERROR(
          weft::api::CheckStructSize(opts, sizeof(*opts), sizeof(weft_context_options_t), "opts"));
    WEFT_ASSIGN_OR_RETURN(auto impl, weft::api::Context::Create(opts));
    *ctx = std::make_unique<weft_context>(weft_context{std::move(impl)}).release();
    return Status::Ok();
  });
}

weft_status_t weft_context_destroy(weft_context_t* ctx) {
  return Guard(__func__, [&] {
    std::unique_ptr<weft_context> owned(ctx);
    if (!owned) return Status::Ok();
    Status s = owned->impl->Leave();
    // Leaked rather than freed while its work still runs on it (Context::Leave).
    if (owned->impl->work_outlived_abort()) (void)owned.release();
    return s;
  });
}

weft_status_t weft_context_rank(const weft_context_t* ctx, int32_t* rank) {
  return Guard(__func__, [&] {
    WEFT_REQUIRE(ctx);
    WEFT_REQUIRE(rank);
    *rank = ctx->impl->rank();
    return Status::Ok();
  });
}

weft_status_t weft_context_world_size(const weft_context_t* ctx, int32_t* world_size) {
  return Guard(__func__, [&] {
    WEFT_REQUIRE(ctx);
    WEFT_REQUIRE(world_size);
    *world_size = ctx->impl->world_size();
    return Status::Ok();
  });
}

weft_status_t weft_context_backend_name(const weft_context_t* ctx, char* buf, size_t len,
                                        size_t* needed) {
  return Guard(__func__, [&] {
    WEFT_REQUIRE(ctx);
    return weft::api::WriteText(ctx->impl->backend_name(), buf, len, needed);
  });
}

weft_status_t weft_context_abort(weft_context_t* ctx) {
  return Guard(__func__, [&] {
    WEFT_REQUIRE(ctx);
    ctx->impl->Abort(Status(weft::Code::kAborted, "weft_context_abort was called"),
                     ctx->impl->rank());
    return Status::Ok();
  });
}

weft_status_t weft_context_error(const weft_context_t* ctx, weft_status_t* status,
                                 int32_t* failed_rank, char* buf, size_t len, size_t* needed) {
  return Guard(__func__, [&] {
    WEFT_REQUIRE(ctx);
    WEFT_REQUIRE(status);
    WEFT_REQUIRE(failed_rank);
    const Status s = ctx->impl->sticky_error();
    WEFT_RETURN_IF_ERROR(weft::api::WriteText(s.message(), buf, len, needed));
    *status = static_cast<weft_status_t>(s.code());
    *failed_rank = s.ok() ? -1 : ctx->impl->failed_rank();
    return Status::Ok();
  });
}

}  // extern "C"
