#include "ops/check/ranks.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

namespace weft::ops::check {
namespace {

// The all-gathers of one run: a rank deposits its tensor under (mesh dim, group, call number)
// and waits until its group is complete.
class Gatherer {
 public:
  explicit Gatherer(const placement::Mesh& mesh) : mesh_(mesh) {}

  Result<std::vector<DenseTensor>> Gather(int32_t rank, int32_t mesh_dim, const DenseTensor& mine) {
    if (mesh_dim < 0 || mesh_dim >= mesh_.ndim())
      return InvalidArgument("all_gather over mesh dim " + std::to_string(mesh_dim));
    std::vector<int64_t> c(static_cast<size_t>(mesh_.ndim()));
    mesh_.Coordinate(rank, c.data());
    const int64_t member = c[static_cast<size_t>(mesh_dim)];
    c[static_cast<size_t>(mesh_dim)] = 0;
    const int32_t group = mesh_.RankAt(c.data());
    const int64_t n = mesh_.shape()[mesh_dim];
    std::unique_lock lock(mu_);
    const int64_t call = calls_[{rank, mesh_dim}]++;
    Slot& slot = slots_[{mesh_dim, group, call}];
    if (slot.parts.empty()) slot.parts.resize(static_cast<size_t>(n));
    slot.parts[static_cast<size_t>(member)] = mine;
    if (++slot.arrived == n) cv_.notify_all();
    const bool done =
        cv_.wait_for(lock, std::chrono::seconds(10), [&] { return slot.arrived == n; });
    if (!done)
      return Internal("rank " + std::to_string(rank) + ": all_gather over mesh dim " +
                      std::to_string(mesh_dim) + " that its group never completed");
    return slot.parts;
  }

 private:
  struct Slot {
    std::vector<DenseTensor> parts;
    int64_t arrived = 0;
  };
  const placement::Mesh& mesh_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::pair<int32_t, int32_t>, int64_t> calls_;
  std::map<std::tuple<int32_t, int32_t, int64_t>, Slot> slots_;  // std::map: stable addresses
};

}  // namespace

Result<std::vector<std::vector<DenseTensor>>> RunRanks(
    const KernelFn& kernel, const Strategy& strategy, std::span<const TensorInfo> global_inputs,
    const Attributes& attrs, const std::vector<std::vector<RankBlock>>& inputs) {
  const placement::Mesh& mesh = strategy.inputs[0]->mesh();
  const auto n = static_cast<int32_t>(mesh.size());
  Gatherer gatherer(mesh);
  bool sequential = true;
  std::atomic<bool> gathered{false};
  std::vector<std::vector<DenseTensor>> outputs(static_cast<size_t>(n));
  std::vector<Status> status(static_cast<size_t>(n));
  auto run = [&](int32_t r) {
    std::vector<DenseTensor> blocks;
    std::vector<std::vector<int64_t>> offsets, shapes;
    for (const auto& per_rank : inputs) {
      blocks.push_back(per_rank[static_cast<size_t>(r)].block);
      offsets.push_back(per_rank[static_cast<size_t>(r)].offset);
    }
    for (const placement::LayoutPtr& l : strategy.outputs) {
      std::vector<int64_t> shape(static_cast<size_t>(l->ndim())), offset(shape.size());
      l->LocalBlock(r, shape.data(), offset.data());
      shapes.push_back(std::move(shape));
    }
    KernelCall call;
    call.inputs = blocks;
    call.input_offsets = offsets;
    call.output_shapes = shapes;
    call.global_inputs = global_inputs;
    call.input_layouts = strategy.inputs;
    call.output_layouts = strategy.outputs;
    call.attrs = &attrs;
    call.rank = r;
    call.halos = strategy.halos;
    call.all_gather = [&, r](int32_t mesh_dim,
                             const DenseTensor& mine) -> Result<std::vector<DenseTensor>> {
      if (sequential) {
        gathered = true;
        return Internal("(rerun with a thread per rank)");
      }
      return gatherer.Gather(r, mesh_dim, mine);
    };
    Status s;
    try {
      s = kernel(call, &outputs[static_cast<size_t>(r)]);
    } catch (const std::exception& e) {
      s = Internal(std::string("the kernel threw: ") + e.what());
    }
    status[static_cast<size_t>(r)] = std::move(s);
  };
  // Ranks one after another first: most kernels never communicate, and a thread per rank
  // per candidate is most of the harness's time. A kernel that asks to all-gather sends the
  // run round again with a thread per rank.
  for (int32_t r = 0; r < n && !gathered; ++r) run(r);
  if (gathered) {
    sequential = false;
    for (auto& o : outputs) o.clear();
    std::vector<std::thread> threads;
    for (int32_t r = 0; r < n; ++r) threads.emplace_back(run, r);
    for (std::thread& t : threads) t.join();
  }
  for (int32_t r = 0; r < n; ++r)
    if (!status[static_cast<size_t>(r)].ok())
      return Status(status[static_cast<size_t>(r)].code(),
                    "rank " + std::to_string(r) + ": " + status[static_cast<size_t>(r)].message());
  return outputs;
}

}  // namespace weft::ops::check
