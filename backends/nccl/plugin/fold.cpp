#include "backends/nccl/plugin/fold.hpp"

#include <cstring>
#include <memory>
#include <vector>

#include "backends/nccl/plugin/group.hpp"

namespace weft::backends::nccl_plugin {
namespace {

uint64_t Item(DLDataType t) { return uint64_t{t.bits} / 8 * (t.lanes ? t.lanes : 1u); }

weft_status_t NeedsHost(Launch& l, DLDataType t, int32_t op) {
  if (l.host) return WEFT_OK;
  return l.Fail(WEFT_ERR_UNSUPPORTED,
                "NCCL cannot reduce dtype (code " + std::to_string(t.code) + ", " +
                    std::to_string(t.bits) + " bits) with op " + std::to_string(op) +
                    " exactly, and folding device buffers needs the CUDA device operations");
}

// out = blocks[0] op blocks[1] op ... in member order, with the host's kernel.
weft_status_t FoldBlocks(const weft_bk_host_api_t& h, const char* blocks, int32_t n, void* out,
                         uint64_t count, DLDataType t, int32_t op) {
  const uint64_t bytes = count * Item(t);
  if (bytes == 0) return WEFT_OK;
  std::memcpy(out, blocks, bytes);
  for (int32_t p = 1; p < n; ++p) {
    if (weft_status_t s = h.reduce(h.host_data, t, op, out, blocks + p * bytes, count);
        s != WEFT_OK)
      return s;
  }
  return WEFT_OK;
}

}  // namespace

weft_status_t FoldAllreduce(Launch& l, const void* send, void* recv, uint64_t count, DLDataType t,
                            int32_t op, weft_bk_request_t** req) {
  if (weft_status_t s = NeedsHost(l, t, op); s != WEFT_OK) return s;
  const int32_t n = l.comm.size();
  const uint64_t bytes = count * Item(t);
  auto gathered = std::make_shared<std::vector<char>>(bytes * static_cast<uint64_t>(n));
  l.staging.In(send, bytes);
  l.staging.Out(gathered->data(), gathered->size());
  const weft_bk_host_api_t& h = l.comm.state().host();
  return Run(
      l, req,
      [&]() -> weft_status_t {
        if (bytes == 0) return WEFT_OK;
        return l.comm.Issue("ncclAllGather (fold)", [&](ncclComm_t c) {
          return l.nccl().AllGather(l.Dev(send), l.Dev(gathered->data()), bytes, nccl::kUint8, c,
                                    l.stream);
        });
      },
      [&h, gathered, n, recv, count, t, op] {
        return FoldBlocks(h, gathered->data(), n, recv, count, t, op);
      });
}

weft_status_t FoldReduceScatterv(Launch& l, const void* send, void* recv, const uint64_t* counts,
                                 DLDataType t, int32_t op, weft_bk_request_t** req) {
  if (weft_status_t s = NeedsHost(l, t, op); s != WEFT_OK) return s;
  const int32_t n = l.comm.size(), me = l.comm.index();
  const uint64_t item = Item(t), mine = counts[me] * item;
  uint64_t total = 0;
  for (int32_t i = 0; i < n; ++i) total += counts[i] * item;
  auto blocks = std::make_shared<std::vector<char>>(mine * static_cast<uint64_t>(n));
  l.staging.In(send, total);
  l.staging.Out(blocks->data(), blocks->size());
  std::vector<Transfer> moves;
  const char* in = static_cast<const char*>(send);
  uint64_t offset = 0;
  for (int32_t p = 0; p < n; ++p) {
    moves.push_back({true, const_cast<char*>(in) + offset, counts[p] * item, p});
    moves.push_back({false, blocks->data() + p * mine, mine, p});
    offset += counts[p] * item;
  }
  const weft_bk_host_api_t& h = l.comm.state().host();
  const uint64_t count = counts[me];
  return Run(
      l, req, [&]() -> weft_status_t { return Exchange(l, "reduce-scatter (fold)", moves); },
      [&h, blocks, n, recv, count, t, op] {
        return FoldBlocks(h, blocks->data(), n, recv, count, t, op);
      });
}

}  // namespace weft::backends::nccl_plugin
