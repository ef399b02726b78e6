// One plan step on one rank. Each side of a collective (what this rank sends, what it
// receives) is either direct — every piece is a contiguous run of the buffer, addressed by a
// displacement from the lowest one — or staged: packed into (unpacked from) the workspace.
#include <algorithm>
#include <string>

#include "placement/executor/executor.hpp"
#include "placement/executor/pairwise.hpp"

namespace weft::placement::executor {
namespace {

using backends::Communicator;
using backends::OpArgs;
using device::Queue;
using planner::RankStep;
using planner::Step;
using planner::StepKind;

// Collectives take a pointer even for zero elements; some transports reject NULL there.
char* NonNull(char* p) {
  static char dummy[16];
  return p ? p : dummy;
}

// Element offset of global index `g` from v.data.
int64_t Offset(const TensorView& v, const int64_t* g) {
  int64_t e = 0;
  for (int32_t d = 0; d < v.block.ndim; ++d) e += (g[d] - v.block.offset[d]) * v.strides[d];
  return e;
}

// How one side of a v-collective addresses its pieces (one box per member, empty: none).
struct Side {
  bool direct = true;
  int64_t base = 0;  // direct: element offset in the view that displacements count from
  std::vector<uint64_t> counts, displs;
  int64_t staged = 0;  // staged: elements in the workspace buffer
};

Side PlanSide(const std::vector<Box>& boxes, const TensorView& v) {
  const size_t n = boxes.size();
  Side s;
  s.counts.assign(n, 0);
  s.displs.assign(n, 0);
  for (const Box& b : boxes)
    if (!b.Empty() && !IsContiguous(v, b)) s.direct = false;
  if (s.direct) {
    bool any = false;
    for (const Box& b : boxes) {
      if (b.Empty()) continue;
      const int64_t off = Offset(v, b.offset.data());
      s.base = any ? std::min(s.base, off) : off;
      any = true;
    }
    // An empty member gets the displacement where the previous member's piece ends: a
    // backend that needs the pieces back to back in member order (Gloo's alltoallv) then
    // takes them in place whenever the non-empty ones are, instead of staging them.
    uint64_t end = 0;
    for (size_t k = 0; k < n; ++k) {
      if (boxes[k].Empty()) {
        s.displs[k] = end;
        continue;
      }
      s.counts[k] = static_cast<uint64_t>(boxes[k].Volume());
      s.displs[k] = static_cast<uint64_t>(Offset(v, boxes[k].offset.data()) - s.base);
      end = s.displs[k] + s.counts[k];
    }
    return s;
  }
  // Packed in member order; a box equal to the previous one (an all-gather sends one block to
  // everyone) is packed once.
  const Box* prev = nullptr;
  for (size_t k = 0; k < n; ++k) {
    if (boxes[k].Empty()) {
      s.displs[k] = static_cast<uint64_t>(s.staged);  // back to back, as above
      continue;
    }
    s.counts[k] = static_cast<uint64_t>(boxes[k].Volume());
    if (prev && *prev == boxes[k]) {
      s.displs[k] = static_cast<uint64_t>(s.staged - boxes[k].Volume());
      continue;
    }
    s.displs[k] = static_cast<uint64_t>(s.staged);
    s.staged += boxes[k].Volume();
    prev = &boxes[k];
  }
  return s;
}

std::vector<Box> ByMember(const std::vector<planner::Transfer>& list, size_t n, int32_t ndim) {
  std::vector<Box> boxes(n);
  for (Box& b : boxes) b.ndim = ndim;
  for (const auto& t : list) boxes[static_cast<size_t>(t.member)] = t.box;
  return boxes;
}

// At least `bytes` of the workspace buffer, on the queue's device.
Result<char*> Stage(const Queue& q, device::Workspace& buf, int64_t bytes) {
  WEFT_ASSIGN_OR_RETURN(char* p, q.Reserve(buf, static_cast<size_t>(bytes)));
  return NonNull(p);
}

// Pointer to the base of a side: the view's own memory (direct) or the staging buffer.
Result<char*> SideBase(const Queue& q, const Side& s, const TensorView& v,
                       device::Workspace& stage) {
  if (s.direct) return NonNull(v.data ? v.data + s.base * v.item : nullptr);
  return Stage(q, stage, s.staged * v.item);
}

Status UnpackSide(const Queue& q, const Side& s, const std::vector<Box>& boxes, const TensorView& v,
                  const char* base) {
  if (s.direct) return Status::Ok();
  for (size_t k = 0; k < boxes.size(); ++k)
    WEFT_RETURN_IF_ERROR(Unpack(q, base + s.displs[k] * v.item, v, boxes[k]));
  return Status::Ok();
}

// The receive side of an all-gather includes this rank's own block (the collective places it),
// so that the gather can land straight in `to`.
struct MovementSides {
  std::vector<Box> recv_boxes;
  Side recv;
  bool own_direct = true;  // this rank's block is sent from `from` in place
};

MovementSides PlanMovement(const RankStep& rs, const TensorView& from, const TensorView& to) {
  MovementSides m;
  // Always an allgatherv, whatever the buffers: the collective must not depend on one rank's
  // strides. This rank's own block travels with the others (the collective places it), so a
  // contiguous `to` receives everything in place.
  m.recv_boxes = ByMember(rs.recvs, rs.group.size(), rs.to_block.ndim);
  if (rs.keep) m.recv_boxes[static_cast<size_t>(rs.self_index)] = *rs.keep;
  m.recv = PlanSide(m.recv_boxes, to);
  m.own_direct = !rs.keep || IsContiguous(from, *rs.keep);
  return m;
}

Status Movement(const Step& step, const RankStep& rs, const TensorView& from, const TensorView& to,
                Workspace& ws, const Queue& q, Communicator& comm, const OpArgs& args) {
  if (step.kind != StepKind::kAllGather) {
    // Pipelined point-to-point rather than the backend's all-to-all-v: packing, the kept
    // block's copy and unpacking overlap the transfers (pairwise.hpp).
    const size_t n = rs.group.size();
    return PairwiseExchange(ByMember(rs.sends, n, rs.from_block.ndim),
                            ByMember(rs.recvs, n, rs.to_block.ndim),
                            static_cast<size_t>(rs.self_index), rs.keep ? &*rs.keep : nullptr, from,
                            to, ws.send, ws.recv, q, comm, args);
  }
  const DType t = step.from->dtype();
  MovementSides m = PlanMovement(rs, from, to);
  WEFT_ASSIGN_OR_RETURN(char* recv, SideBase(q, m.recv, to, ws.recv));
  const int64_t mine = rs.keep ? rs.keep->Volume() : 0;
  const char* send = NonNull(rs.keep ? from.At(rs.keep->offset.data()) : nullptr);
  if (!m.own_direct) {
    WEFT_ASSIGN_OR_RETURN(char* packed, Stage(q, ws.send, mine * from.item));
    WEFT_RETURN_IF_ERROR(Pack(q, from, *rs.keep, packed));
    send = packed;
  }
  WEFT_RETURN_IF_ERROR(comm.Allgatherv(send, static_cast<uint64_t>(mine), recv, m.recv.counts,
                                       m.recv.displs, t, args));
  return UnpackSide(q, m.recv, m.recv_boxes, to, recv);
}

// Reduce-scatter: the send side is from_block cut into the members' new blocks, in member
// order; direct when those lie back to back in `from`.
Side PlanScatterSend(const RankStep& rs, const TensorView& from, std::vector<Box>* pieces) {
  const size_t n = rs.group.size();
  *pieces = ByMember(rs.sends, n, rs.from_block.ndim);
  (*pieces)[static_cast<size_t>(rs.self_index)] = rs.to_block;
  Side s;
  s.counts.assign(n, 0);
  s.displs.assign(n, 0);
  bool direct = IsContiguous(from, rs.from_block);
  int64_t at = direct ? Offset(from, rs.from_block.offset.data()) : 0;
  s.base = at;
  for (size_t k = 0; k < n; ++k) {
    const Box& b = (*pieces)[k];
    if (b.Empty()) continue;
    s.counts[k] = static_cast<uint64_t>(b.Volume());
    s.displs[k] = static_cast<uint64_t>(s.staged);
    if (direct && (!IsContiguous(from, b) || Offset(from, b.offset.data()) != at)) direct = false;
    at += b.Volume();
    s.staged += b.Volume();
  }
  s.direct = direct;
  if (direct) s.staged = 0;
  return s;
}

Status Reduction(const Step& step, const RankStep& rs, const TensorView& from, const TensorView& to,
                 Workspace& ws, const Queue& q, Communicator& comm, const OpArgs& args) {
  const DType t = step.from->dtype();
  const int64_t item = from.item;
  // Every member of a Partial group holds the same block: all skip an empty one together.
  if (rs.from_block.Empty()) return Status::Ok();
  const bool recv_direct = rs.to_block.Empty() || IsContiguous(to, rs.to_block);
  char* recv = NonNull(rs.to_block.Empty() ? nullptr : to.At(rs.to_block.offset.data()));
  if (!recv_direct) {
    WEFT_ASSIGN_OR_RETURN(recv, Stage(q, ws.recv, rs.to_block.Volume() * item));
  }
  if (step.kind == StepKind::kAllReduce) {
    char* send = from.At(rs.from_block.offset.data());
    if (!IsContiguous(from, rs.from_block)) {
      WEFT_ASSIGN_OR_RETURN(send, Stage(q, ws.send, rs.from_block.Volume() * item));
      WEFT_RETURN_IF_ERROR(Pack(q, from, rs.from_block, send));
    }
    WEFT_RETURN_IF_ERROR(
        comm.Allreduce(send, recv, static_cast<uint64_t>(rs.to_block.Volume()), t, step.op, args));
  } else {
    std::vector<Box> pieces;
    const Side s = PlanScatterSend(rs, from, &pieces);
    char* send = from.At(rs.from_block.offset.data());
    if (!s.direct) {
      WEFT_ASSIGN_OR_RETURN(send, Stage(q, ws.send, s.staged * item));
      for (size_t k = 0; k < pieces.size(); ++k)
        WEFT_RETURN_IF_ERROR(Pack(q, from, pieces[k], send + s.displs[k] * item));
    }
    WEFT_RETURN_IF_ERROR(comm.ReduceScatterv(send, recv, s.counts, t, step.op, args));
  }
  return recv_direct ? Status::Ok() : Unpack(q, recv, to, rs.to_block);
}

Status Local(const Step& step, const RankStep& rs, const TensorView& from, const TensorView& to,
             const Queue& q) {
  // SPEC §2.4: a conjugate writes the op's identity wherever this rank does not keep the value.
  // Where it keeps the whole block (avg, max and min from R: every rank keeps x) it is only
  // the copy below; avg has no identity element to fill with.
  const bool keeps_all = rs.keep && *rs.keep == rs.to_block;
  if (step.conjugate && !rs.to_block.Empty() && !keeps_all) {
    if (step.op == ReduceOp::kAvg)
      return Internal("redistribute: a P(avg) conjugate that does not keep its whole block");
    WEFT_RETURN_IF_ERROR(q.FillIdentity(step.from->dtype(), step.op, RegionOf(to, rs.to_block),
                                        ShapeOf(rs.to_block)));
  }
  return rs.keep ? CopyBox(q, from, to, *rs.keep) : Status::Ok();
}

}  // namespace

Status RunStep(const Step& step, const RankStep& rs, const TensorView& from, const TensorView& to,
               Workspace& ws, const Queue& q, Communicator* comm, const OpArgs& args) {
  if (step.kind == StepKind::kLocal) return Local(step, rs, from, to, q);
  if (!comm) return Internal("redistribute: a communicating step has no communicator");
  if (step.kind == StepKind::kAllReduce || step.kind == StepKind::kReduceScatter)
    return Reduction(step, rs, from, to, ws, q, *comm, args);
  return Movement(step, rs, from, to, ws, q, *comm, args);
}

int64_t StagedBytes(const Step& step, const RankStep& rs, const TensorView& from,
                    const TensorView& to) {
  const int64_t item = from.item;
  switch (step.kind) {
    case StepKind::kLocal:
      return 0;
    case StepKind::kAllReduce:
    case StepKind::kReduceScatter: {
      int64_t bytes = 0;
      if (!IsContiguous(to, rs.to_block)) bytes += rs.to_block.Volume() * item;
      std::vector<Box> pieces;
      const bool send_direct = step.kind == StepKind::kAllReduce
                                   ? IsContiguous(from, rs.from_block)
                                   : PlanScatterSend(rs, from, &pieces).direct;
      if (!send_direct) bytes += rs.from_block.Volume() * item;
      return bytes;
    }
    case StepKind::kAllToAll:
    case StepKind::kExchange:
      return PairwiseStagedBytes(ByMember(rs.sends, rs.group.size(), rs.from_block.ndim),
                                 ByMember(rs.recvs, rs.group.size(), rs.to_block.ndim),
                                 static_cast<size_t>(rs.self_index), from, to);
    default: {  // all-gather
      const MovementSides m = PlanMovement(rs, from, to);
      const int64_t own = rs.keep ? rs.keep->Volume() : 0;
      return (m.own_direct ? 0 : own) * item + m.recv.staged * item;
    }
  }
}

}  // namespace weft::placement::executor
