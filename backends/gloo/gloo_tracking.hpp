// Gloo's TCP transport (Debian's Gloo 0.5), subclassed where its failure handling has gaps.
//
// When a pair fails (peer closed, read error, a wait timed out, signalExceptionExternal),
// Gloo signals the unbound buffers it finds queued on that pair, but not one whose bytes are
// being read (rx_) or written (tx_) at that moment: a wait on such a buffer then sleeps until
// its timeout, however dead the peer. TrackedPair fails those too. And to fail a whole
// communicator (abort(), or the first failed op, see Comm::Poison), every unbound buffer of a
// context is tracked, so that all of them (and every buffer created later) can be failed.
//
// A pair failing alone does not fail the other pairs' operations: a peer closing its
// connections after its last op (comm_destroy) looks exactly like one that died, and must
// not break operations among the others. The first op that fails poisons the communicator.
//
// The subclasses use only public constructors, virtual overrides and protected members a
// derived class may use.
#pragma once

#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/attr.h>
#include <gloo/transport/tcp/context.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/tcp/pair.h>
#include <gloo/transport/tcp/unbound_buffer.h>

namespace weft::backends::gloo_plugin {

class TrackedBuffer;

// A device whose contexts are TrackingContexts. Replaces gloo::transport::tcp::CreateDevice.
class TrackingDevice final : public ::gloo::transport::tcp::Device {
 public:
  using ::gloo::transport::tcp::Device::Device;
  // Resolves `attr` as CreateDevice does; throws what it throws.
  static std::shared_ptr<TrackingDevice> Create(const ::gloo::transport::tcp::attr& attr);

  std::shared_ptr<::gloo::transport::Context> createContext(int rank, int size) override;
};

class TrackingContext final : public ::gloo::transport::tcp::Context {
 public:
  using ::gloo::transport::tcp::Context::Context;
  ~TrackingContext() override;

  std::unique_ptr<::gloo::transport::Pair>& createPair(int rank) override;
  std::unique_ptr<::gloo::transport::UnboundBuffer> createUnboundBuffer(void* ptr,
                                                                        size_t size) override;
  std::unique_ptr<TrackedBuffer> CreateTracked(void* ptr, size_t size);

  // Fails every live buffer, and every buffer created from now on, with `error` (the first
  // one wins for later buffers). Thread-safe.
  void FailAll(const std::exception_ptr& error);

 private:
  friend class TrackedBuffer;
  void Track(TrackedBuffer* buffer);
  void Untrack(TrackedBuffer* buffer);

  mutable std::mutex mu_;  // taken after a pair's lock, before a buffer's
  std::unordered_set<TrackedBuffer*> buffers_;
  std::exception_ptr failure_;
};

// A pair that, when it fails, also fails the buffers it was moving bytes for; and exposes
// what the plugin needs.
class TrackedPair final : public ::gloo::transport::tcp::Pair {
 public:
  TrackedPair(TrackingContext* context, ::gloo::transport::tcp::Device* device, int rank,
              std::chrono::milliseconds timeout)
      : ::gloo::transport::tcp::Pair(context, device, rank, timeout) {}

  // Every pair of a TrackingContext is a TrackedPair.
  static TrackedPair* Of(const std::unique_ptr<::gloo::transport::Pair>& pair) {
    return static_cast<TrackedPair*>(pair.get());
  }

  // Fails the pair (and so the context) with an IoException carrying `message` and closes
  // its socket; no-op if it failed already. Thread-safe.
  void Fail(const std::string& message) { signalExceptionExternal(message); }
  // "[127.0.0.1]:41235": the peer's address as Gloo writes it into its error messages.
  std::string PeerText() const { return peer().str(); }

 protected:
  void changeState(state next) noexcept override;
};

// An unbound buffer that can be failed from outside, and whose completion can be polled and
// waited for with a caller's own timeout (Gloo's waitSend/waitRecv treat their timeout as
// fatal for the whole context, which request_test and a short request_wait must not be).
class TrackedBuffer final : public ::gloo::transport::tcp::UnboundBuffer {
 public:
  TrackedBuffer(const std::shared_ptr<TrackingContext>& context, void* ptr, size_t size);
  ~TrackedBuffer() override;

  void Fail(const std::exception_ptr& error) { signalException(error); }
  // The same for any TCP unbound buffer, including one whose TrackedBuffer part is already
  // destroyed: the device thread can hold one while its destructor waits for that reference
  // (the base's members stay alive until then), so it must not be cast to TrackedBuffer.
  static void FailBase(::gloo::transport::tcp::UnboundBuffer* buffer,
                       const std::exception_ptr& error);

  enum class State { kPending, kDone, kFailed };
  // Waits until the posted send (recv == false) or recv completed or failed, or `until`
  // passed (kPending; nothing else happens). On kFailed *error is the failure.
  State WaitUntil(bool recv, std::chrono::steady_clock::time_point until,
                  std::exception_ptr* error);

 private:
  TrackingContext* tracking_;
};

// A rendezvous context that hands out its transport context (protected in gloo::Context).
class MeshContext final : public ::gloo::rendezvous::Context {
 public:
  using ::gloo::rendezvous::Context::Context;
  // Null before connectFullMesh() succeeded.
  std::shared_ptr<TrackingContext> tracking() const {
    return std::dynamic_pointer_cast<TrackingContext>(transportContext_);
  }
};

}  // namespace weft::backends::gloo_plugin
