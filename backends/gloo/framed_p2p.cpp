#include "backends/gloo/framed_p2p.hpp"

#include <gloo/common/error.h>

#include <string>
#include <vector>

#include "backends/gloo/staging.hpp"

namespace weft::backends::gloo_plugin {
namespace {

constexpr uint64_t kHeaderSlot = uint64_t{0x81} << 56;
constexpr uint64_t kPayloadSlot = uint64_t{0x82} << 56;
constexpr uint64_t kNumberMask = (uint64_t{1} << 24) - 1;

struct Header {
  uint64_t bytes = 0;
  uint64_t number = 0;
};

uint64_t HeaderSlot(int64_t tag) { return kHeaderSlot | static_cast<uint64_t>(tag); }
uint64_t PayloadSlot(int64_t tag, uint64_t number) {
  return kPayloadSlot | (number & kNumberMask) << 32 | static_cast<uint64_t>(tag);
}

class FramedSend final : public P2pOp {
 public:
  FramedSend(const FramedMessage& m, Deadline deadline)
      : P2pOp(deadline), header_(std::make_unique<Header>(Header{m.bytes, m.number})) {
    header_buf_ = m.context->CreateGuarded(header_.get(), sizeof(Header));
    payload_ = m.context->CreateGuarded(NonNull(m.buf), m.bytes);
    header_buf_->send(m.peer, HeaderSlot(m.tag), 0, sizeof(Header));
    payload_->send(m.peer, PayloadSlot(m.tag, m.number), 0, m.bytes);
  }

 private:
  Failure Run() override {
    Wait(*header_buf_, false);
    Wait(*payload_, false);
    return {};
  }
  void Release() override {
    header_buf_.reset();
    payload_.reset();
  }

  std::unique_ptr<Header> header_;  // Gloo reads it until the header's send completed
  std::unique_ptr<GuardedBuffer> header_buf_, payload_;
};

class FramedRecv final : public P2pOp {
 public:
  FramedRecv(const FramedMessage& m, Deadline deadline)
      : P2pOp(deadline), m_(m), header_(std::make_unique<Header>()) {
    header_buf_ = m.context->CreateGuarded(header_.get(), sizeof(Header));
    header_buf_->recv(m.peer, HeaderSlot(m.tag), 0, sizeof(Header));
  }

 private:
  Failure Run() override {
    Wait(*header_buf_, true);
    if (header_->number != m_.number)
      throw ::gloo::Exception("framed receive: the header of message " +
                              std::to_string(header_->number) + " arrived where message " +
                              std::to_string(m_.number) + " was due");
    const bool fits = header_->bytes == m_.bytes;
    // A message of another length is drained, so that the sender completes and the pair's
    // later messages still match.
    if (!fits) scratch_.resize(header_->bytes);
    void* into = fits ? m_.buf : static_cast<void*>(scratch_.data());
    payload_ = m_.context->CreateGuarded(NonNull(into), header_->bytes);
    payload_->recv(m_.peer, PayloadSlot(m_.tag, m_.number), 0, header_->bytes);
    Wait(*payload_, true);
    if (fits) return {};
    return {WEFT_ERR_INVALID_ARGUMENT, "the message has " + std::to_string(header_->bytes) +
                                           " bytes but the receive " + std::to_string(m_.bytes) +
                                           "; lengths must match"};
  }
  void Release() override {
    header_buf_.reset();
    payload_.reset();
    m_.context.reset();
    std::vector<char>().swap(scratch_);
  }

  FramedMessage m_;
  std::unique_ptr<Header> header_;
  std::unique_ptr<GuardedBuffer> header_buf_, payload_;
  std::vector<char> scratch_;
};

}  // namespace

std::shared_ptr<P2pOp> PostFramedSend(const FramedMessage& m, Deadline deadline) {
  return std::make_shared<FramedSend>(m, deadline);
}

std::shared_ptr<P2pOp> PostFramedRecv(const FramedMessage& m, Deadline deadline) {
  return std::make_shared<FramedRecv>(m, deadline);
}

}  // namespace weft::backends::gloo_plugin
