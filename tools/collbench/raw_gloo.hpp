// The same rows driven through Gloo's C++ API directly (Debian's libgloo, TCP transport), for
// comparing Weft-over-Gloo with what Gloo alone achieves in the same run. Only headers that
// Debian's libgloo-dev ships and that compile are included (not the TCP pair/buffer headers,
// which need gloo/common/memory.h, absent from the package).
#pragma once

#include <weft/weft.h>

#include <memory>
#include <string>
#include <vector>

#include "tools/collbench/cases.hpp"
#include "tools/collbench/raw.hpp"

namespace gloo {
class Context;
}

namespace weft::collbench {

class RawGloo : public Raw {
 public:
  // Connects a Gloo full mesh over TCP on 127.0.0.1 (weftrun is single-node). The ranks meet
  // through a gloo::rendezvous::FileStore in a fresh directory that rank 0 creates and
  // broadcasts with Weft; it is removed once everyone is connected. Collective over ctx.
  // nullptr with *error on failure.
  static std::unique_ptr<RawGloo> Connect(weft_context_t* ctx, int32_t rank, int32_t nranks,
                                          std::string* error);

  // Whether raw Gloo has this row: allreduce, allgather, broadcast, alltoall, and
  // reduce_scatter emulated the way PyTorch's Gloo process group does it (all-reduce of the
  // whole input, then keep the own block). Reductions need a dtype with a C++ type and
  // sum/prod/max/min.
  const char* name() const override { return "gloo"; }
  bool Supports(const Case& c) const override;
  const char* Describe(Op op) const override;

  explicit RawGloo(std::shared_ptr<::gloo::Context> context) : context_(std::move(context)) {}

  // Runs the row once; throws Gloo's exceptions.
  void Run(Case& c) override;
  void Barrier() override;

 private:
  uint32_t NextTag() { return tag_++; }

  std::shared_ptr<::gloo::Context> context_;
  uint32_t tag_ = 1;
  std::vector<uint8_t> scratch_;  // the reduce_scatter emulation's full-size output
};

}  // namespace weft::collbench
