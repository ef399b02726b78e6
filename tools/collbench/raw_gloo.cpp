#include "tools/collbench/raw_gloo.hpp"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/attr.h>
#include <gloo/transport/tcp/device.h>
#include <stdlib.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <type_traits>

namespace weft::collbench {
namespace {

// Generous: a 64 MiB ring on a loaded 2-core machine takes seconds.
constexpr std::chrono::milliseconds kTimeout{300000};

// Calls fn(T{}) with the C++ type of a reducible dtype; false when there is none.
template <typename Fn>
bool WithType(const DType& t, Fn&& fn) {
  const int bits = t.dl.bits;
  switch (t.kind) {
    case Kind::kFloat:
      return bits == 32 ? (fn(float{}), true) : (fn(double{}), true);
    case Kind::kInt:
      if (bits == 8) return fn(int8_t{}), true;
      if (bits == 16) return fn(int16_t{}), true;
      if (bits == 32) return fn(int32_t{}), true;
      return fn(int64_t{}), true;
    case Kind::kUInt:
      if (bits == 8) return fn(uint8_t{}), true;
      if (bits == 16) return fn(uint16_t{}), true;
      if (bits == 32) return fn(uint32_t{}), true;
      return fn(uint64_t{}), true;
    default:
      return false;
  }
}

template <typename T>
::gloo::AllreduceOptions::Func Reduction(int redop) {
  // Gloo's math.h overloads each name (a 3- and a 4-argument form): pick the 4-argument one.
  using Fn = void (*)(void*, const void*, const void*, size_t);
  switch (redop) {
    case WEFT_REDUCE_PROD:
      return static_cast<Fn>(&::gloo::product<T>);
    case WEFT_REDUCE_MAX:
      return static_cast<Fn>(&::gloo::max<T>);
    case WEFT_REDUCE_MIN:
      return static_cast<Fn>(&::gloo::min<T>);
    default:
      return static_cast<Fn>(&::gloo::sum<T>);
  }
}

std::string MakeRendezvousDir(weft_context_t* ctx, int32_t rank, std::string* error) {
  char path[256] = {};
  if (rank == 0) {
    std::strncpy(path, "/tmp/collbench-gloo-XXXXXX", sizeof(path) - 1);
    if (mkdtemp(path) == nullptr) path[0] = '\0';  // the others see the empty path and stop
  }
  int64_t shape[1] = {sizeof(path)};
  DLTensor t{path, {kDLCPU, 0}, 1, {kDLUInt, 8, 1}, shape, nullptr, 0};
  if (weft_broadcast(ctx, nullptr, 0, &t, 0, nullptr, nullptr, nullptr) != WEFT_OK) {
    *error = std::string("broadcast of the rendezvous directory: ") + weft_last_error();
    return {};
  }
  if (path[0] == '\0') *error = "rank 0 could not create a directory under /tmp";
  return path;
}

}  // namespace

std::unique_ptr<RawGloo> RawGloo::Connect(weft_context_t* ctx, int32_t rank, int32_t nranks,
                                          std::string* error) {
  const std::string dir = MakeRendezvousDir(ctx, rank, error);
  if (dir.empty()) return nullptr;
  std::unique_ptr<RawGloo> raw;
  try {
    ::gloo::transport::tcp::attr attr;
    attr.hostname = "127.0.0.1";
    std::shared_ptr<::gloo::transport::Device> device = ::gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<::gloo::rendezvous::Context>(rank, nranks);
    context->setTimeout(kTimeout);
    ::gloo::rendezvous::FileStore store(dir);
    context->connectFullMesh(store, device);
    raw = std::make_unique<RawGloo>(std::move(context));
  } catch (const std::exception& e) {
    *error = std::string("gloo rendezvous: ") + e.what();
  }
  // Everyone has read the store (or failed) before rank 0 removes it.
  const weft_status_t s = weft_barrier(ctx, nullptr, 0, nullptr, nullptr, nullptr);
  std::error_code ignored;
  if (rank == 0) std::filesystem::remove_all(dir, ignored);
  if (s != WEFT_OK && raw) {
    *error = std::string("barrier after the gloo rendezvous: ") + weft_last_error();
    raw.reset();
  }
  return raw;
}

bool RawGloo::Supports(const Case& c) const {
  if (c.on_device()) return false;  // Gloo's collectives take host memory
  switch (c.op()) {
    case Op::kAllgather:
    case Op::kBroadcast:
    case Op::kAlltoall:
      return true;
    case Op::kAllreduce:
    case Op::kReduceScatter:
      return c.redop() != WEFT_REDUCE_AVG && WithType(c.dtype(), [](auto) {});
    default:
      return false;
  }
}

const char* RawGloo::Describe(Op op) const {
  return op == Op::kReduceScatter ? "gloo allreduce + own block (PyTorch's emulation)" : "gloo";
}

void RawGloo::Barrier() {
  ::gloo::BarrierOptions opts(context_);
  opts.setTag(NextTag());
  opts.setTimeout(kTimeout);
  ::gloo::barrier(opts);
}

void RawGloo::Run(Case& c) {
  const Geometry& g = c.geometry();
  const auto item = static_cast<size_t>(c.dtype().bytes());
  const auto n = static_cast<size_t>(c.nranks());
  switch (c.op()) {
    case Op::kAllreduce:
    case Op::kReduceScatter: {
      uint8_t* out = c.recv();
      if (c.op() == Op::kReduceScatter) {
        scratch_.resize(static_cast<size_t>(g.send_count) * item);
        out = scratch_.data();
      }
      WithType(c.dtype(), [&](auto zero) {
        using T = decltype(zero);
        ::gloo::AllreduceOptions opts(context_);
        opts.setInput(reinterpret_cast<T*>(c.send()), static_cast<size_t>(g.send_count));
        opts.setOutput(reinterpret_cast<T*>(out), static_cast<size_t>(g.send_count));
        opts.setReduceFunction(Reduction<T>(c.redop()));
        opts.setTag(NextTag());
        opts.setTimeout(kTimeout);
        ::gloo::allreduce(opts);
      });
      if (c.op() == Op::kReduceScatter) {
        const size_t block = static_cast<size_t>(g.recv_count) * item;
        std::memcpy(c.recv(), out + static_cast<size_t>(c.rank()) * block, block);
      }
      return;
    }
    case Op::kAllgather: {
      ::gloo::AllgatherOptions opts(context_);
      opts.setInput(c.send(), static_cast<size_t>(g.send_count) * item);
      opts.setOutput(c.recv(), static_cast<size_t>(g.send_count) * item * n);
      opts.setTag(NextTag());
      opts.setTimeout(kTimeout);
      ::gloo::allgather(opts);
      return;
    }
    case Op::kAlltoall: {
      ::gloo::AlltoallOptions opts(context_);
      opts.setInput(c.send(), static_cast<size_t>(g.send_count) * item);
      opts.setOutput(c.recv(), static_cast<size_t>(g.recv_count) * item);
      opts.setTag(NextTag());
      opts.setTimeout(kTimeout);
      ::gloo::alltoall(opts);
      return;
    }
    case Op::kBroadcast: {
      ::gloo::BroadcastOptions opts(context_);
      opts.setOutput(c.send(), static_cast<size_t>(g.send_count) * item);
      opts.setRoot(0);
      opts.setTag(NextTag());
      opts.setTimeout(kTimeout);
      ::gloo::broadcast(opts);
      return;
    }
    default:
      return;
  }
}

}  // namespace weft::collbench
