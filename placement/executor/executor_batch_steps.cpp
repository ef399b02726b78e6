// The fused communicating steps of a batched plan. Every piece is packed: per member of the
// group the combined segment holds tensor 0's piece, then tensor 1's, ... (so a v-collective
// over bytes moves all tensors at once); reductions concatenate the tensors of one dtype.
#include <string>

#include "placement/executor/executor_batch.hpp"

namespace weft::placement::executor {
namespace {

using device::Queue;
using planner::RankStep;
using planner::StepKind;
using Parts = std::vector<std::shared_ptr<const Executor>>;

const DType kBytes{kCodeUInt, 8, 1};

char* NonNull(char* p) {
  static char dummy[16];
  return p ? p : dummy;
}

// At least `bytes` of the workspace buffer, on the queue's device.
Result<char*> Stage(const Queue& q, device::Workspace& buf, int64_t bytes) {
  WEFT_ASSIGN_OR_RETURN(char* p, q.Reserve(buf, static_cast<size_t>(bytes)));
  return NonNull(p);
}

// boxes[i][j]: tensor i's piece for member j (empty: none).
using Pieces = std::vector<std::vector<Box>>;

std::vector<Box> ByMember(const std::vector<planner::Transfer>& list, size_t n, int32_t ndim) {
  std::vector<Box> boxes(n);
  for (Box& b : boxes) b.ndim = ndim;
  for (const auto& t : list) boxes[static_cast<size_t>(t.member)] = t.box;
  return boxes;
}

// Member-major combined layout of `pieces` over the tensors in `which`, in `unit` bytes.
struct Combined {
  std::vector<uint64_t> counts, displs;
  int64_t total = 0;  // bytes
};

Combined Combine(const Pieces& pieces, const std::vector<size_t>& which,
                 const std::vector<int64_t>& item, size_t members, int64_t unit) {
  Combined c;
  c.counts.assign(members, 0);
  c.displs.assign(members, 0);
  for (size_t j = 0; j < members; ++j) {
    c.displs[j] = static_cast<uint64_t>(c.total / unit);
    for (size_t i : which) c.total += pieces[i][j].Volume() * item[i];
    c.counts[j] = static_cast<uint64_t>(c.total / unit) - c.displs[j];
  }
  return c;
}

Status PackAll(const Queue& q, const Pieces& pieces, const std::vector<size_t>& which,
               const std::vector<TensorView>& v, char* base) {
  int64_t at = 0;
  for (size_t j = 0; j < (which.empty() ? 0 : pieces[which[0]].size()); ++j)
    for (size_t i : which) {
      const Box& b = pieces[i][j];
      if (b.Empty()) continue;
      WEFT_RETURN_IF_ERROR(Pack(q, v[i], b, base + at));
      at += b.Volume() * v[i].item;
    }
  return Status::Ok();
}

Status UnpackAll(const Queue& q, const Pieces& pieces, const std::vector<size_t>& which,
                 const std::vector<TensorView>& v, const char* base) {
  int64_t at = 0;
  for (size_t j = 0; j < (which.empty() ? 0 : pieces[which[0]].size()); ++j)
    for (size_t i : which) {
      const Box& b = pieces[i][j];
      if (b.Empty()) continue;
      WEFT_RETURN_IF_ERROR(Unpack(q, base + at, v[i], b));
      at += b.Volume() * v[i].item;
    }
  return Status::Ok();
}

Status Movement(const Parts& parts, size_t k, const std::vector<TensorView>& from,
                const std::vector<TensorView>& to, BatchWorkspace& ws, const Queue& q,
                backends::Communicator& comm, const backends::OpArgs& args) {
  const size_t n = parts.size();
  const RankStep& rs0 = parts[0]->steps()[k];
  const size_t members = rs0.group.size(), self = static_cast<size_t>(rs0.self_index);
  const bool gather = parts[0]->plan().steps[k].kind == StepKind::kAllGather;
  Pieces send(n), recv(n);
  std::vector<size_t> all(n);
  std::vector<int64_t> item(n);
  for (size_t i = 0; i < n; ++i) {
    const RankStep& rs = parts[i]->steps()[k];
    all[i] = i;
    item[i] = from[i].item;
    send[i] = ByMember(rs.sends, members, rs.from_block.ndim);
    recv[i] = ByMember(rs.recvs, members, rs.to_block.ndim);
    // An all-gather places each member's own block too (its only piece, sent to everyone).
    if (gather && rs.keep) recv[i][self] = *rs.keep;
  }
  const Combined r = Combine(recv, all, item, members, 1);
  WEFT_ASSIGN_OR_RETURN(char* rbuf, Stage(q, ws.recv, r.total));
  if (gather) {
    Pieces mine(n, std::vector<Box>(1));
    for (size_t i = 0; i < n; ++i) mine[i][0] = recv[i][self];
    WEFT_ASSIGN_OR_RETURN(char* sbuf, Stage(q, ws.send, static_cast<int64_t>(r.counts[self])));
    WEFT_RETURN_IF_ERROR(PackAll(q, mine, all, from, sbuf));
    WEFT_RETURN_IF_ERROR(
        comm.Allgatherv(sbuf, r.counts[self], rbuf, r.counts, r.displs, kBytes, args));
  } else {
    const Combined s = Combine(send, all, item, members, 1);
    WEFT_ASSIGN_OR_RETURN(char* sbuf, Stage(q, ws.send, s.total));
    WEFT_RETURN_IF_ERROR(PackAll(q, send, all, from, sbuf));
    for (size_t i = 0; i < n; ++i)
      if (const auto& keep = parts[i]->steps()[k].keep)
        WEFT_RETURN_IF_ERROR(CopyBox(q, from[i], to[i], *keep));
    WEFT_RETURN_IF_ERROR(
        comm.Alltoallv(sbuf, s.counts, s.displs, rbuf, r.counts, r.displs, kBytes, args));
  }
  return UnpackAll(q, recv, all, to, rbuf);
}

// One collective per dtype, over the tensors of that dtype with a non-empty block (the
// members of a Partial group hold the same blocks, so they agree on which those are).
Status Reduction(const Parts& parts, size_t k, const std::vector<TensorView>& from,
                 const std::vector<TensorView>& to, BatchWorkspace& ws, const Queue& q,
                 backends::Communicator& comm, const backends::OpArgs& args) {
  const size_t n = parts.size();
  const planner::Step& step0 = parts[0]->plan().steps[k];
  const RankStep& rs0 = parts[0]->steps()[k];
  const size_t members = rs0.group.size(), self = static_cast<size_t>(rs0.self_index);
  std::vector<bool> done(n, false);
  for (size_t first = 0; first < n; ++first) {
    if (done[first]) continue;
    const DType t = parts[first]->plan().steps[k].from->dtype();
    std::vector<size_t> which;
    std::vector<int64_t> item(n, 0);
    Pieces in(n), out(n);
    for (size_t i = first; i < n; ++i) {
      if (done[i] || !(parts[i]->plan().steps[k].from->dtype() == t)) continue;
      done[i] = true;
      const RankStep& rs = parts[i]->steps()[k];
      if (rs.from_block.Empty()) continue;
      which.push_back(i);
      item[i] = from[i].item;
      out[i] = {rs.to_block};
      if (step0.kind == StepKind::kAllReduce) {
        in[i] = {rs.from_block};
      } else {
        in[i] = ByMember(rs.sends, members, rs.from_block.ndim);
        in[i][self] = rs.to_block;
      }
    }
    if (which.empty()) continue;
    const int64_t unit = ItemSize(t);
    const Combined s = Combine(in, which, item, in[which[0]].size(), unit);
    const Combined r = Combine(out, which, item, 1, unit);
    WEFT_ASSIGN_OR_RETURN(char* sbuf, Stage(q, ws.send, s.total));
    WEFT_ASSIGN_OR_RETURN(char* rbuf, Stage(q, ws.recv, r.total));
    WEFT_RETURN_IF_ERROR(PackAll(q, in, which, from, sbuf));
    if (step0.kind == StepKind::kAllReduce) {
      WEFT_RETURN_IF_ERROR(comm.Allreduce(sbuf, rbuf, r.counts[0], t, step0.op, args));
    } else {
      WEFT_RETURN_IF_ERROR(comm.ReduceScatterv(sbuf, rbuf, s.counts, t, step0.op, args));
    }
    WEFT_RETURN_IF_ERROR(UnpackAll(q, out, which, to, rbuf));
  }
  return Status::Ok();
}

}  // namespace

Status RunFusedStep(const Parts& parts, size_t k, const std::vector<TensorView>& from,
                    const std::vector<TensorView>& to, BatchWorkspace& ws, const Queue& q,
                    backends::Communicator& comm, const backends::OpArgs& args) {
  switch (parts[0]->plan().steps[k].kind) {
    case StepKind::kLocal:
      return Internal("redistribute: a local step reached the fused collective path");
    case StepKind::kAllReduce:
    case StepKind::kReduceScatter:
      return Reduction(parts, k, from, to, ws, q, comm, args);
    default:
      return Movement(parts, k, from, to, ws, q, comm, args);
  }
}

int64_t FusedStagedBytes(const Parts& parts, size_t k) {
  int64_t bytes = 0;
  for (const auto& p : parts) {
    const RankStep& rs = p->steps()[k];
    const int64_t item = ItemSize(p->plan().src->dtype());
    switch (p->plan().steps[k].kind) {
      case StepKind::kLocal:
        break;
      case StepKind::kAllReduce:
      case StepKind::kReduceScatter:
        bytes += (rs.from_block.Volume() + rs.to_block.Volume()) * item;
        break;
      default:
        for (const auto& t : rs.sends) bytes += t.box.Volume() * item;
        for (const auto& t : rs.recvs) bytes += t.box.Volume() * item;
        if (rs.keep) bytes += 2 * rs.keep->Volume() * item;
    }
  }
  return bytes;
}

}  // namespace weft::placement::executor
