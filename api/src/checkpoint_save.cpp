#include "api/src/checkpoint_save.hpp"

#include <chrono>
#include <cstddef>
#include <cstring>
#include <random>

#include "api/src/checkpoint_async.hpp"
#include "api/src/checkpoint_common.hpp"
#include "api/src/checkpoint_device.hpp"
#include "api/src/checkpoint_write.hpp"
#include "api/src/context.hpp"
#include "api/src/guard.hpp"
#include "api/src/plan_cache.hpp"
#include "api/src/plan_handle.hpp"
#include "checkpoint/fs.hpp"

namespace weft::api::ckpt {
namespace {

namespace ck = weft::checkpoint;
using placement::Layout;
using placement::LayoutPtr;
using Clock = std::chrono::steady_clock;

// Callers built before `stream` pass a struct that ends before it.
constexpr size_t kStreamEnd = offsetof(weft_checkpoint_save_options_t, stream) + sizeof(void*);

Status CheckArgs(const World& w, const char* path, int32_t n, const char* const* names,
                 const weft_layout_t* const* layouts, const DLTensor* const* tensors,
                 const weft_checkpoint_save_options_t* opts, std::vector<Item>* out) {
  if (opts != nullptr)
    WEFT_RETURN_IF_ERROR(CheckStructSize(opts, sizeof(*opts),
                                         offsetof(weft_checkpoint_save_options_t, stream), "opts"));
  if (opts != nullptr && opts->overwrite != 0 && opts->overwrite != 1)
    return InvalidArgument("opts->overwrite is " + std::to_string(opts->overwrite) +
                           " but must be 0 or 1");
  WEFT_ASSIGN_OR_RETURN(std::vector<Item> items, CheckItems(w, path, n, names, layouts));
  if (n > 0 && tensors == nullptr) return InvalidArgument("tensors is NULL");
  for (int32_t i = 0; i < n; ++i) {
    WEFT_RETURN_IF_ERROR(ck::StDTypeName(items[i].layout->dtype()).status());
    WEFT_RETURN_IF_ERROR(
        CheckBlockView(w, tensors[i], "tensors[" + std::to_string(i) + "]", false, items[i]));
  }
  *out = std::move(items);
  return Status::Ok();
}

// The layout with Partial replaced by Replicate (same mesh, same pieces).
Result<LayoutPtr> Reduced(const Layout& l) {
  Layout::Spec spec;
  spec.mesh = l.mesh_ptr();
  spec.shape = l.shape();
  spec.dtype = l.dtype();
  for (const auto& p : l.placements())
    spec.placements.push_back(placement::IsPartial(p) ? placement::Placement(placement::Replicate{})
                                                      : p);
  for (int32_t d = 0; d < l.ndim(); ++d) {
    if (l.split(d).is_explicit())
      spec.splits.emplace_back(l.ResolvedSizes(d));
    else
      spec.splits.emplace_back(std::nullopt);
  }
  return Layout::Create(std::move(spec));
}

DLTensor CompactTensor(char* data, DType t, int64_t* shape, int32_t ndim) {
  DLTensor x{};
  x.data = data;
  x.device = {kDLCPU, 0};
  x.ndim = ndim;
  x.dtype = DLDataType{t.code, t.bits, t.lanes};
  x.shape = shape;
  return x;
}

// Replaces every Partial tensor by its reduction (collective, in item order on every rank);
// the reduced blocks live in `buffers`.
Status ReducePartials(const World& w, const DLTensor* const* tensors, std::vector<Item>& items,
                      std::vector<std::vector<char>>& buffers) {
  for (size_t i = 0; i < items.size(); ++i) {
    Item& it = items[i];
    bool partial = false;
    for (const auto& p : it.layout->placements()) partial |= placement::IsPartial(p);
    if (!partial) continue;
    WEFT_ASSIGN_OR_RETURN(LayoutPtr saved, Reduced(*it.layout));
    Box in_block = it.view.block, out_block = ck::BlockOf(*saved, w.rank);
    buffers.emplace_back(static_cast<size_t>(out_block.Volume() * it.view.item));
    char* data = buffers.back().data();
    DLTensor empty_in =
        CompactTensor(nullptr, it.layout->dtype(), in_block.shape.data(), in_block.ndim);
    // A block copied to the host (checkpoint_device.hpp) is reduced from its compact copy.
    DLTensor host_in =
        CompactTensor(it.view.data, it.layout->dtype(), in_block.shape.data(), in_block.ndim);
    const DLTensor* in = tensors[i] == nullptr     ? &empty_in
                         : IsHostMemory(it.device) ? tensors[i]
                                                   : &host_in;
    DLTensor out = CompactTensor(data, saved->dtype(), out_block.shape.data(), out_block.ndim);
    DLTensor* outp = &out;
    Ref<Context> c;
    WEFT_RETURN_IF_ERROR(RunContext(it.layout->mesh().context(), "layouts", &c));
    WEFT_ASSIGN_OR_RETURN(PlanRunner runner, c->plan_cache().Get(it.layout, saved));
    WEFT_RETURN_IF_ERROR(
        ExecutePlan(*c, std::move(runner), {}, 1, &in, &outp, nullptr, &w.call, nullptr, true));
    it.layout = saved;
    it.view = placement::executor::CompactView(data, out_block, it.view.item);
  }
  return Status::Ok();
}

struct Common {
  World w;
  std::string path, tmp;
  bool overwrite = false;
  int64_t timeout_ms = 0;
};

Status SaveNow(const Common& c, const std::vector<Item>& items) {
  Result<MyFile> mine = PlanMine(c.w, items);
  Result<Written> written =
      mine.ok() ? WriteMine(c.tmp, c.w, items, *mine) : Result<Written>(mine.status());
  WEFT_RETURN_IF_ERROR(Agree(c.w, written.status()));
  const AllBoxes all = PlanAll(items);
  WEFT_ASSIGN_OR_RETURN(auto gathered, Gather(c.w, all, *written, 0));
  Status commit;
  if (c.w.rank == 0)
    commit = Commit(c.tmp, c.path, c.overwrite, BuildIndex(c.w, items, all, gathered));
  return Agree(c.w, commit);
}

// Packs into staging and gathers the checksums here (collective); files are written and
// published by the background half.
Status SaveLater(const Common& c, const std::vector<Item>& items, weft_work_t** work) {
  BackgroundSave job;
  Result<MyFile> mine = PlanMine(c.w, items);
  Result<Written> packed = mine.status();
  if (mine.ok()) {
    job.data = Staging(mine->data_bytes());
    job.data_bytes = mine->data_bytes();
    packed = PackMine(items, *mine, job.data.data());
  }
  WEFT_RETURN_IF_ERROR(Agree(c.w, packed.status()));
  const AllBoxes all = PlanAll(items);
  // Rank 0's token names this save in the index, for the other ranks to recognise it.
  const uint64_t token = ((std::random_device{}() * 0x100000001ull) ^
                          static_cast<uint64_t>(Clock::now().time_since_epoch().count())) |
                         1;
  WEFT_ASSIGN_OR_RETURN(auto gathered, Gather(c.w, all, *packed, token));
  job.index = BuildIndex(c.w, items, all, gathered);
  job.save_id = job.index.save_id;
  if (c.w.rank == 0) job.writers = Writers(all);
  job.tmp = c.tmp;
  job.path = c.path;
  job.rank = c.w.rank;
  job.overwrite = c.overwrite;
  job.timeout_ms = c.timeout_ms;
  job.header = mine->header;
  return Launch(std::move(job), work);
}

}  // namespace

Status Save(weft_context_t* ctx, const char* path, int32_t n, const char* const* names,
            const weft_layout_t* const* layouts, const DLTensor* const* tensors,
            const weft_checkpoint_save_options_t* opts, weft_work_t** work) {
  const bool opts_ok =
      opts != nullptr && opts->struct_size >= offsetof(weft_checkpoint_save_options_t, stream);
  Common c;
  c.timeout_ms = opts_ok ? opts->timeout_ms : 0;
  HostCopies host(opts != nullptr && opts->struct_size >= kStreamEnd ? opts->stream : nullptr);
  WEFT_ASSIGN_OR_RETURN(c.w, WorldOf(ctx, c.timeout_ms));
  std::vector<Item> items;
  const Status args = CheckArgs(c.w, path, n, names, layouts, tensors, opts, &items);
  uint64_t digest = 0;
  if (args.ok()) digest = Fnv(DigestOf(items), path, std::strlen(path));
  WEFT_RETURN_IF_ERROR(Agree(c.w, args, digest));
  WEFT_RETURN_IF_ERROR(Agree(c.w, host.Download(items)));
  c.overwrite = opts_ok && opts->overwrite == 1;
  c.path = ck::StripSlashes(path);
  c.tmp = ck::TempDirFor(path);
  std::vector<std::vector<char>> buffers;
  WEFT_RETURN_IF_ERROR(Agree(c.w, ReducePartials(c.w, tensors, items, buffers)));
  WEFT_RETURN_IF_ERROR(
      Agree(c.w, c.w.rank == 0 ? MakeTemp(c.tmp, c.path, c.overwrite) : Status::Ok()));
  return work == nullptr ? SaveNow(c, items) : SaveLater(c, items, work);
}

}  // namespace weft::api::ckpt
