// Gloo's TCP transport (Debian's Gloo 0.5), wrapped through its abstract interfaces
// (transport::Device, Context, UnboundBuffer: all virtual) so that a communicator can be
// failed from outside.
//
// Gloo fails the buffers queued on a pair when that pair fails, and nothing else: a wait on
// a buffer whose bytes are in flight on the failed pair, or on a healthy pair, sleeps until
// its timeout. Every unbound buffer of a GuardedContext (those Gloo's collectives create
// included) is a GuardedBuffer, so the context can interrupt every wait (Gloo's public
// abortWaitRecv/abortWaitSend) and make it throw, now and for every later wait.
//
// Only headers Debian's libgloo-dev ships are used (not the TCP pair and buffer headers,
// which need gloo/common/memory.h, absent from the package).
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include <gloo/rendezvous/context.h>
#include <gloo/transport/context.h>
#include <gloo/transport/device.h>
#include <gloo/transport/unbound_buffer.h>

namespace weft::backends::gloo_plugin {

class GuardedBuffer;

// A device whose contexts are GuardedContexts around the TCP device's own.
class GuardedDevice final : public ::gloo::transport::Device {
 public:
  explicit GuardedDevice(std::shared_ptr<::gloo::transport::Device> tcp) : tcp_(std::move(tcp)) {}

  std::string str() const override { return tcp_->str(); }
  const std::string& getPCIBusID() const override { return tcp_->getPCIBusID(); }
  int getInterfaceSpeed() const override { return tcp_->getInterfaceSpeed(); }
  bool hasGPUDirect() const override { return tcp_->hasGPUDirect(); }
  std::shared_ptr<::gloo::transport::Context> createContext(int rank, int size) override;

 private:
  std::shared_ptr<::gloo::transport::Device> tcp_;
};

class GuardedContext final : public ::gloo::transport::Context,
                             public std::enable_shared_from_this<GuardedContext> {
 public:
  GuardedContext(std::shared_ptr<::gloo::transport::Context> tcp, int rank, int size)
      : ::gloo::transport::Context(rank, size), tcp_(std::move(tcp)) {}

  // The pairs are the TCP context's.
  std::unique_ptr<::gloo::transport::Pair>& getPair(int rank) override;
  std::unique_ptr<::gloo::transport::Pair>& createPair(int rank) override;
  std::unique_ptr<::gloo::transport::UnboundBuffer> createUnboundBuffer(void* ptr,
                                                                        size_t size) override;
  std::unique_ptr<GuardedBuffer> CreateGuarded(void* ptr, size_t size);

  // Every wait on a buffer of this context, now or later, throws gloo::IoException(message).
  // Connections stay as they are. Thread-safe; the first message wins.
  void Interrupt(const std::string& message);
  // Closes every connection (no byte moves into or out of a buffer afterwards; the peers see
  // a reset), then Interrupt(message). Thread-safe.
  void Fail(const std::string& message);

 private:
  friend class GuardedBuffer;
  void Track(GuardedBuffer* buffer);
  void Untrack(GuardedBuffer* buffer);

  std::shared_ptr<::gloo::transport::Context> tcp_;
  std::mutex mu_;  // taken before a buffer's own lock
  std::unordered_set<GuardedBuffer*> buffers_;
  std::string failure_;  // empty while healthy
};

class GuardedBuffer final : public ::gloo::transport::UnboundBuffer {
 public:
  GuardedBuffer(std::shared_ptr<GuardedContext> owner,
                std::unique_ptr<::gloo::transport::UnboundBuffer> tcp);
  ~GuardedBuffer() override;

  // Gloo's waits, which throw once the buffer failed. A timeout is still Gloo's: fatal for
  // every pair of the context.
  bool waitRecv(int* rank, std::chrono::milliseconds timeout) override;
  bool waitSend(int* rank, std::chrono::milliseconds timeout) override;
  void abortWaitRecv() override { tcp_->abortWaitRecv(); }
  void abortWaitSend() override { tcp_->abortWaitSend(); }
  void send(int dst_rank, uint64_t slot, size_t offset, size_t nbytes) override;
  void recv(int src_rank, uint64_t slot, size_t offset, size_t nbytes) override;
  void recv(std::vector<int> src_ranks, uint64_t slot, size_t offset, size_t nbytes) override;

  // Interrupts the waits on this buffer; they and later ones throw IoException(message).
  void Fail(const std::string& message);

 private:
  void ThrowIfFailed() const;

  std::shared_ptr<GuardedContext> owner_;  // the TCP buffer refers into its context
  std::unique_ptr<::gloo::transport::UnboundBuffer> tcp_;
  mutable std::mutex mu_;
  std::string failure_;
};

// A rendezvous context that hands out its transport context (protected in gloo::Context).
class MeshContext final : public ::gloo::rendezvous::Context {
 public:
  using ::gloo::rendezvous::Context::Context;
  // Null before connectFullMesh() succeeded.
  std::shared_ptr<GuardedContext> guarded() const {
    return std::dynamic_pointer_cast<GuardedContext>(transportContext_);
  }
};

}  // namespace weft::backends::gloo_plugin
