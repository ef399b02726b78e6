#include "backends/gloo/gloo_guard.hpp"

#include <gloo/common/error.h>
#include <gloo/transport/pair.h>

namespace weft::backends::gloo_plugin {

std::shared_ptr<::gloo::transport::Context> GuardedDevice::createContext(int rank, int size) {
  return std::make_shared<GuardedContext>(tcp_->createContext(rank, size), rank, size);
}

std::unique_ptr<::gloo::transport::Pair>& GuardedContext::getPair(int rank) {
  return tcp_->getPair(rank);
}

std::unique_ptr<::gloo::transport::Pair>& GuardedContext::createPair(int rank) {
  // The rendezvous sets the timeout on this context; pairs take the TCP context's.
  tcp_->setTimeout(getTimeout());
  return tcp_->createPair(rank);
}

std::unique_ptr<::gloo::transport::UnboundBuffer> GuardedContext::createUnboundBuffer(void* ptr,
                                                                                      size_t size) {
  return CreateGuarded(ptr, size);
}

std::unique_ptr<GuardedBuffer> GuardedContext::CreateGuarded(void* ptr, size_t size) {
  return std::make_unique<GuardedBuffer>(shared_from_this(), tcp_->createUnboundBuffer(ptr, size));
}

void GuardedContext::Interrupt(const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (failure_.empty()) failure_ = message;
  for (GuardedBuffer* buffer : buffers_) buffer->Fail(failure_);
}

void GuardedContext::Fail(const std::string& message) {
  // Closing first: once a wait returns, the caller may free the memory a pair would write.
  for (int i = 0; i < size; ++i) {
    auto& pair = tcp_->getPair(i);
    if (pair) pair->close();
  }
  Interrupt(message);
}

void GuardedContext::Track(GuardedBuffer* buffer) {
  std::lock_guard<std::mutex> lock(mu_);
  buffers_.insert(buffer);
  // A buffer of a failed communicator fails at once: its op must not wait on healthy pairs
  // for members that are failing too.
  if (!failure_.empty()) buffer->Fail(failure_);
}

void GuardedContext::Untrack(GuardedBuffer* buffer) {
  std::lock_guard<std::mutex> lock(mu_);
  buffers_.erase(buffer);
}

GuardedBuffer::GuardedBuffer(std::shared_ptr<GuardedContext> owner,
                             std::unique_ptr<::gloo::transport::UnboundBuffer> tcp)
    : ::gloo::transport::UnboundBuffer(tcp->ptr, tcp->size),
      owner_(std::move(owner)),
      tcp_(std::move(tcp)) {
  owner_->Track(this);
}

GuardedBuffer::~GuardedBuffer() { owner_->Untrack(this); }

void GuardedBuffer::ThrowIfFailed() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!failure_.empty()) throw ::gloo::IoException(failure_);
}

bool GuardedBuffer::waitRecv(int* rank, std::chrono::milliseconds timeout) {
  ThrowIfFailed();
  const bool done = tcp_->waitRecv(rank, timeout);
  if (!done) ThrowIfFailed();  // interrupted by Fail(), not by a caller of abortWaitRecv()
  return done;
}

bool GuardedBuffer::waitSend(int* rank, std::chrono::milliseconds timeout) {
  ThrowIfFailed();
  const bool done = tcp_->waitSend(rank, timeout);
  if (!done) ThrowIfFailed();
  return done;
}

void GuardedBuffer::send(int dst_rank, uint64_t slot, size_t offset, size_t nbytes) {
  ThrowIfFailed();
  tcp_->send(dst_rank, slot, offset, nbytes);
}

void GuardedBuffer::recv(int src_rank, uint64_t slot, size_t offset, size_t nbytes) {
  ThrowIfFailed();
  tcp_->recv(src_rank, slot, offset, nbytes);
}

void GuardedBuffer::recv(std::vector<int> src_ranks, uint64_t slot, size_t offset, size_t nbytes) {
  ThrowIfFailed();
  tcp_->recv(std::move(src_ranks), slot, offset, nbytes);
}

void GuardedBuffer::Fail(const std::string& message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (failure_.empty()) failure_ = message;
  }
  // A wait in progress returns false (and sees the failure); without one, Gloo keeps the
  // flag and the next wait returns false at once.
  tcp_->abortWaitRecv();
  tcp_->abortWaitSend();
}

}  // namespace weft::backends::gloo_plugin
