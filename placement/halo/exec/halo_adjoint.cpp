// The accumulate (SPEC §4.4): the exchange run backwards. Every box a rank received forward it
// now sends back (summed where several cells read one source cell: replicate's edge row), and
// every box it served it now receives and adds into the cells it was read from. PHASES runs its
// phases in reverse on a copy of the padded gradient, so contributions to corner cells travel
// back through the faces they came through.
#include "device/element.hpp"
#include "device/queue.hpp"
#include "placement/halo/exec/halo_executor.hpp"
#include "placement/halo/exec/strided_walk.hpp"

namespace weft::placement::halo {
namespace {

using device::Queue;
using executor::ShapeOf;
using executor::TensorView;

// to[i] += from[i] over `shape` (a box: its extent counts, not its offset).
Status Add(const Queue& q, const device::Region& to, const device::ConstRegion& from,
           const Box& shape, DType t) {
  if (shape.Empty()) return Status::Ok();
  return q.Reduce(t, ReduceOp::kSum, to, from, ShapeOf(shape));
}

// Waits for every request and calls fn(i) as each completes: in index order (deterministic
// summation), or in the order they arrive.
template <class Fn>
Status WaitEach(backends::Communicator* comm, detail::Requests& reqs, bool ordered,
                const backends::OpArgs& a, Fn&& fn) {
  if (ordered) {
    for (size_t i = 0; i < reqs.size(); ++i) {
      WEFT_RETURN_IF_ERROR(comm->WaitOne(*reqs[i], -1, a));
      WEFT_RETURN_IF_ERROR(fn(i));
    }
    return Status::Ok();
  }
  std::vector<bool> done(reqs.size(), false);
  size_t left = reqs.size();
  while (left > 0) {
    bool any = false;
    for (size_t i = 0; i < reqs.size(); ++i) {
      if (done[i]) continue;
      const Status s = comm->WaitOne(*reqs[i], 0, a);
      if (s.code() == Code::kInProgress) continue;
      WEFT_RETURN_IF_ERROR(s);
      WEFT_RETURN_IF_ERROR(fn(i));
      done[i] = any = true;
      --left;
    }
    if (any || left == 0) continue;
    // Nothing arrived: block briefly on the first pending one rather than spin.
    for (size_t i = 0; i < reqs.size(); ++i) {
      if (done[i]) continue;
      const Status s = comm->WaitOne(*reqs[i], 1, a);
      if (s.code() == Code::kInProgress) break;
      WEFT_RETURN_IF_ERROR(s);
      WEFT_RETURN_IF_ERROR(fn(i));
      done[i] = true;
      --left;
      break;
    }
  }
  return Status::Ok();
}

// Writes the adjoint contributions of region r (cells `reads` at r.dst) into its packed source
// box at buf.
Status PackAdjoint(const Queue& q, const Region& r, const TensorView& reads, char* buf, DType t) {
  const int64_t item = ItemSize(t);
  if (r.identity()) return executor::Pack(q, reads, r.dst, buf);
  if (r.dst.Empty()) return Status::Ok();
  bool repeats = false;
  for (int32_t d = 0; d < r.dst.ndim; ++d) repeats = repeats || r.step[static_cast<size_t>(d)] == 0;
  device::Dims mapped;
  if (!repeats)  // a permutation of the cells: copy
    return q.Copy(MappedPacked(buf, r, item, mapped), Plain(reads, r.dst), ShapeOf(r.dst), item);
  // Several cells read one source cell: their contributions add up from zero, in the order of
  // the cells.
  const device::Element zero{};
  device::Dims packed;
  WEFT_RETURN_IF_ERROR(
      q.Fill(device::Compact(buf, ShapeOf(r.src), packed), ShapeOf(r.src), zero.data(), item));
  return Add(q, MappedPacked(buf, r, item, mapped), Plain(reads, r.dst), r.dst, t);
}

// local (=|+=) from over `interior`; owned cells outside it become zero when !add.
Status Finish(const Queue& q, const TensorView& local, const TensorView& from, const Box& owned,
              const Box& interior, bool add, DType t) {
  const device::Element zero{};
  if (!add) {
    if (interior == owned && !interior.Empty()) return executor::CopyBox(q, from, local, interior);
    WEFT_RETURN_IF_ERROR(executor::FillBox(q, local, owned, zero.data()));
  }
  return Add(q, Plain(local, interior), Plain(from, interior), interior, t);
}

// What the readers send back in a phase: per box they received forward, the adjoint of its
// cells (read from `work`), straight from place where the box is one contiguous run there,
// else packed at `out`.
Status PostSendsBack(const Queue& q, const Phase& ph, const TensorView& work, char* out, DType t,
                     int64_t tag, backends::Communicator* comm, const backends::OpArgs& a,
                     detail::Requests& sends) {
  return detail::PostRegionSends(
      ph.recvs, work, false, out, ItemSize(t), tag, comm, a, sends,
      [&](const Region& r, char* at) { return PackAdjoint(q, r, work, at, t); });
}

}  // namespace

Status RunAccumulate(const HaloPlan& p, const TensorView& padded_grad, const TensorView& local_grad,
                     bool add, executor::BatchWorkspace& ws, backends::Communicator* comm,
                     const backends::OpArgs& a) {
  if (!p.in_mesh()) return Status::Ok();
  WEFT_ASSIGN_OR_RETURN(const Queue q, Queue::For(a.device, a.stream));
  const DType t = p.layout().dtype();
  const int64_t item = ItemSize(t);
  const bool phases = p.transport() == Transport::kPhases;
  const bool ordered = p.geometry().spec().deterministic;
  // PHASES works on a copy of the padded gradient (its ghost cells gather what later phases
  // send back); NEIGHBOR reads padded_grad and adds straight into local_grad.
  TensorView work = padded_grad;
  if (phases) {
    const auto bytes = static_cast<size_t>(p.window().Volume() * item);
    WEFT_ASSIGN_OR_RETURN(char* grad, q.Reserve(ws.copy, bytes));
    work = executor::CompactView(grad, p.window(), item);
    WEFT_RETURN_IF_ERROR(executor::CopyBox(q, padded_grad, work, p.window()));
  } else {
    WEFT_RETURN_IF_ERROR(Finish(q, local_grad, padded_grad, p.owned(), p.interior(), add, t));
  }
  for (size_t n = p.phases().size(); n-- > 0;) {
    const Phase& ph = p.phases()[n];
    // PHASES: later phases add into the padded copy (their sources include forwarded rows);
    // phase 0's sources are owned rows, which the window may not contain: it adds into
    // local_grad, after the copy's interior has gone there.
    if (phases && n == 0)
      WEFT_RETURN_IF_ERROR(Finish(q, local_grad, work, p.owned(), p.interior(), add, t));
    const TensorView& target = (phases && n > 0) ? work : local_grad;
    const int64_t tag = comm ? comm->NextInternalTag() : 0;
    if ((!ph.recvs.empty() || !ph.sends.empty()) && !comm)
      return Internal("halo: a message without a communicator");
    int64_t rbytes = 0;
    for (const Message& m : ph.sends) rbytes += m.elements * item;
    const int64_t sbytes = detail::StagedBytes(ph.recvs, work, false, item);
    WEFT_ASSIGN_OR_RETURN(char* stage, q.Reserve(ws.recv, static_cast<size_t>(rbytes)));
    WEFT_ASSIGN_OR_RETURN(char* out, q.Reserve(ws.send, static_cast<size_t>(sbytes)));

    // Contributions to the boxes this rank served come back from their readers, one message
    // per box as forward.
    detail::Requests recvs, sends;
    std::vector<std::pair<const Region*, char*>> landing;
    for (const Message& m : ph.sends) {
      for (const Region& r : m.regions) {
        const auto bytes = static_cast<uint64_t>(r.src.Volume() * item);
        landing.emplace_back(&r, stage);
        WEFT_ASSIGN_OR_RETURN(auto req,
                              comm->PostRecv(stage, bytes, static_cast<int32_t>(m.peer), tag, a));
        recvs.push_back(std::move(req));
        stage += bytes;
      }
    }
    WEFT_RETURN_IF_ERROR(PostSendsBack(q, ph, work, out, t, tag, comm, a, sends));
    device::Dims mapped;
    for (const Region& r : ph.self)
      WEFT_RETURN_IF_ERROR(Add(q, Mapped(target, r, mapped), Plain(work, r.dst), r.dst, t));
    if (comm) {
      WEFT_RETURN_IF_ERROR(WaitEach(comm, recvs, ordered, a, [&](size_t i) -> Status {
        const auto& [r, from] = landing[i];
        const TensorView packed = executor::CompactView(from, r->src, item);
        return Add(q, Plain(target, r->src), Plain(packed, r->src), r->src, t);
      }));
      WEFT_RETURN_IF_ERROR(comm->WaitAll(sends, a));
    }
  }
  return Status::Ok();
}

}  // namespace weft::placement::halo
