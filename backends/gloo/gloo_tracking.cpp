#include "backends/gloo/gloo_tracking.hpp"

namespace weft::backends::gloo_plugin {

std::shared_ptr<TrackingDevice> TrackingDevice::Create(const ::gloo::transport::tcp::attr& attr) {
  return std::make_shared<TrackingDevice>(::gloo::transport::tcp::CreateDeviceAttr(attr));
}

std::shared_ptr<::gloo::transport::Context> TrackingDevice::createContext(int rank, int size) {
  auto self = std::static_pointer_cast<::gloo::transport::tcp::Device>(shared_from_this());
  return std::make_shared<TrackingContext>(std::move(self), rank, size);
}

TrackingContext::~TrackingContext() {
  // Pairs call back into this class when they fail: close them while it is still whole.
  pairs_.clear();
}

std::unique_ptr<::gloo::transport::Pair>& TrackingContext::createPair(int rank) {
  pairs_[rank] = std::make_unique<TrackedPair>(this, device_.get(), rank, getTimeout());
  return pairs_[rank];
}

std::unique_ptr<::gloo::transport::UnboundBuffer> TrackingContext::createUnboundBuffer(
    void* ptr, size_t size) {
  return CreateTracked(ptr, size);
}

std::unique_ptr<TrackedBuffer> TrackingContext::CreateTracked(void* ptr, size_t size) {
  auto self = std::static_pointer_cast<TrackingContext>(shared_from_this());
  return std::make_unique<TrackedBuffer>(self, ptr, size);
}

void TrackingContext::FailAll(const std::exception_ptr& error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (failure_ == nullptr) failure_ = error;
  for (TrackedBuffer* buffer : buffers_) buffer->Fail(error);
}

void TrackingContext::Track(TrackedBuffer* buffer) {
  std::lock_guard<std::mutex> lock(mu_);
  buffers_.insert(buffer);
  // A buffer of a failed communicator fails at once: its op must not wait on healthy pairs
  // for members that are failing too.
  if (failure_ != nullptr) buffer->Fail(failure_);
}

void TrackingContext::Untrack(TrackedBuffer* buffer) {
  std::lock_guard<std::mutex> lock(mu_);
  buffers_.erase(buffer);
}

void TrackedPair::changeState(state next) noexcept {
  ::gloo::transport::tcp::Pair::changeState(next);
  // signalException sets ex_, signals the buffers queued on this pair, then closes it (with
  // the pair's lock held, as here). A plain close() has no error and fails nothing.
  if (next != CLOSED || ex_ == nullptr) return;
  auto fail = [this](const ::gloo::WeakNonOwningPtr<::gloo::transport::tcp::UnboundBuffer>& weak) {
    ::gloo::NonOwningPtr<::gloo::transport::tcp::UnboundBuffer> buffer(weak);
    if (buffer) TrackedBuffer::FailBase(buffer.operator->(), ex_);
  };
  fail(rx_.ubuf);
  for (const auto& op : tx_) fail(op.ubuf);
}

TrackedBuffer::TrackedBuffer(const std::shared_ptr<TrackingContext>& context, void* ptr,
                             size_t size)
    : ::gloo::transport::tcp::UnboundBuffer(context, ptr, size), tracking_(context.get()) {
  tracking_->Track(this);
}

TrackedBuffer::~TrackedBuffer() { tracking_->Untrack(this); }

void TrackedBuffer::FailBase(::gloo::transport::tcp::UnboundBuffer* buffer,
                             const std::exception_ptr& error) {
  // signalException is protected; a pointer to it formed through this derived class is a
  // pointer to a member of the base, applicable to any base object.
  constexpr auto kSignal = &TrackedBuffer::signalException;
  (buffer->*kSignal)(error);
}

TrackedBuffer::State TrackedBuffer::WaitUntil(bool recv,
                                              std::chrono::steady_clock::time_point until,
                                              std::exception_ptr* error) {
  std::unique_lock<std::mutex> lock(m_);
  auto& cv = recv ? recvCv_ : sendCv_;
  const int& completions = recv ? recvCompletions_ : sendCompletions_;
  const bool ready =
      cv.wait_until(lock, until, [&] { return completions > 0 || ex_ != nullptr; });
  if (!ready) return State::kPending;
  // A completed operation stays completed even if the context failed afterwards.
  if (completions > 0) return State::kDone;
  *error = ex_;
  return State::kFailed;
}

}  // namespace weft::backends::gloo_plugin
