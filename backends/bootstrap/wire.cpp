#include "backends/bootstrap/wire.hpp"

namespace weft::backends::bootstrap::wire {
namespace {

template <class T>
void PutInt(std::string& out, T v) {
  for (int shift = 8 * (static_cast<int>(sizeof(T)) - 1); shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((static_cast<uint64_t>(v) >> shift) & 0xFF));
  }
}

void PutBlob(std::string& out, const std::string& blob) {
  PutInt<uint32_t>(out, static_cast<uint32_t>(blob.size()));
  out.append(blob);
}

// A bounds-checked cursor over a received body: every read fails cleanly past the end.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  template <class T>
  bool Int(T& v) {
    if (data_.size() - pos_ < sizeof(T)) return false;
    uint64_t acc = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      acc = (acc << 8) | static_cast<unsigned char>(data_[pos_ + i]);
    }
    pos_ += sizeof(T);
    v = static_cast<T>(acc);
    return true;
  }

  bool Blob(std::string& out) {
    uint32_t n = 0;
    if (!Int(n) || data_.size() - pos_ < n) return false;
    out.assign(data_.substr(pos_, n));
    pos_ += n;
    return true;
  }

  bool Blobs(uint16_t count, std::vector<std::string>& out) {
    out.resize(count);
    for (auto& blob : out) {
      if (!Blob(blob)) return false;
    }
    return true;
  }

  bool AtEnd() const { return pos_ == data_.size(); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

Status Malformed(const std::string& why) {
  return {Code::kSystem, "bootstrap store: malformed frame: " + why};
}

void PutHeader(std::string& out, const Frame& frame, size_t value_count) {
  PutInt<uint8_t>(out, kMagic);
  PutInt<uint8_t>(out, kVersion);
  PutInt<uint8_t>(out, static_cast<uint8_t>(frame.verb));
  PutInt<uint8_t>(out, static_cast<uint8_t>(frame.code));
  PutInt<uint8_t>(out, frame.flags);
  PutInt<uint64_t>(out, frame.id);
  PutInt<uint32_t>(out, frame.timeout_ms);
  PutInt<uint16_t>(out, static_cast<uint16_t>(frame.keys.size()));
  PutInt<uint16_t>(out, static_cast<uint16_t>(value_count));
}

Status ReadHeader(Reader& in, Frame& f, uint16_t& nkeys, uint16_t& nvalues) {
  uint8_t magic = 0, version = 0, verb = 0, code = 0;
  if (!in.Int(magic) || !in.Int(version) || !in.Int(verb) || !in.Int(code) || !in.Int(f.flags) ||
      !in.Int(f.id) || !in.Int(f.timeout_ms) || !in.Int(nkeys) || !in.Int(nvalues)) {
    return Malformed("truncated header");
  }
  if (magic != kMagic) return Malformed("bad magic " + std::to_string(magic));
  if (version != kVersion) {
    return Status{Code::kVersionMismatch, "bootstrap store: peer speaks protocol version " +
                                              std::to_string(version) + ", expected " +
                                              std::to_string(kVersion)};
  }
  f.verb = static_cast<Verb>(verb);
  f.code = static_cast<int8_t>(code);
  return Status::Ok();
}

}  // namespace

uint64_t EncodedBodySize(const Frame& frame) {
  uint64_t body = kFixedBodyBytes;
  for (const auto& k : frame.keys) body += 4 + k.size();
  for (const auto& v : frame.values) body += 4 + v.size();
  return body;
}

std::string EncodeWithTrailingValue(const Frame& frame, size_t value_size) {
  const uint64_t body = EncodedBodySize(frame) + 4 + value_size;
  std::string out;
  out.reserve(kLengthBytes + body - value_size);
  PutInt<uint32_t>(out, static_cast<uint32_t>(body));
  PutHeader(out, frame, frame.values.size() + 1);
  for (const auto& k : frame.keys) PutBlob(out, k);
  for (const auto& v : frame.values) PutBlob(out, v);
  PutInt<uint32_t>(out, static_cast<uint32_t>(value_size));
  return out;
}

std::string Encode(const Frame& frame) {
  const uint64_t body = EncodedBodySize(frame);
  std::string out;
  out.reserve(kLengthBytes + body);
  PutInt<uint32_t>(out, static_cast<uint32_t>(body));
  PutHeader(out, frame, frame.values.size());
  for (const auto& k : frame.keys) PutBlob(out, k);
  for (const auto& v : frame.values) PutBlob(out, v);
  return out;
}

Result<uint32_t> DecodeLength(const unsigned char* prefix) {
  uint32_t n = (uint32_t{prefix[0]} << 24) | (uint32_t{prefix[1]} << 16) |
               (uint32_t{prefix[2]} << 8) | uint32_t{prefix[3]};
  if (n < kFixedBodyBytes) {
    return Malformed("body length " + std::to_string(n) + " is below the fixed part's " +
                     std::to_string(kFixedBodyBytes) + " bytes");
  }
  return n;
}

Result<Frame> DecodeFixed(std::string_view fixed) {
  Reader in(fixed);
  Frame f;
  uint16_t nkeys = 0, nvalues = 0;
  WEFT_RETURN_IF_ERROR(ReadHeader(in, f, nkeys, nvalues));
  return f;
}

Result<Frame> DecodeBody(std::string_view body) {
  Reader in(body);
  uint16_t nkeys = 0, nvalues = 0;
  Frame f;
  WEFT_RETURN_IF_ERROR(ReadHeader(in, f, nkeys, nvalues));
  if (!in.Blobs(nkeys, f.keys) || !in.Blobs(nvalues, f.values)) {
    return Malformed("a key or value runs past the end of the frame");
  }
  if (!in.AtEnd()) return Malformed("trailing bytes after the last value");
  return f;
}

uint32_t TimeoutMs(Clock::time_point deadline) {
  auto now = Clock::now();
  if (deadline <= now) return 0;
  // Anything beyond ~49 days is "no deadline"; also keeps the subtraction below in range.
  if (deadline - now >= std::chrono::milliseconds(kNoTimeout)) return kNoTimeout;
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
  return static_cast<uint32_t>(left);
}

const char* VerbName(Verb verb) {
  switch (verb) {
    case Verb::kSet:
      return "Set";
    case Verb::kGet:
      return "Get";
    case Verb::kWait:
      return "Wait";
    case Verb::kCheck:
      return "Check";
    case Verb::kAdd:
      return "Add";
    case Verb::kCompareSet:
      return "CompareSet";
    case Verb::kDelete:
      return "Delete";
    case Verb::kRegister:
      return "Register";
    case Verb::kLeave:
      return "Leave";
    case Verb::kPublish:
      return "Publish";
    case Verb::kHello:
      return "Hello";
    case Verb::kProof:
      return "Proof";
    case Verb::kChallenge:
      return "Challenge";
    case Verb::kReply:
      return "Reply";
    case Verb::kEvent:
      return "Event";
  }
  return "Unknown";
}

bool IsRequestVerb(Verb verb) {
  auto v = static_cast<uint8_t>(verb);
  return v >= static_cast<uint8_t>(Verb::kSet) && v <= static_cast<uint8_t>(Verb::kPublish);
}

}  // namespace weft::backends::bootstrap::wire
