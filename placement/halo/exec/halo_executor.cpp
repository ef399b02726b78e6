#include "placement/halo/exec/halo_executor.hpp"

#include "device/element.hpp"
#include "device/queue.hpp"
#include "placement/halo/exec/strided_walk.hpp"

namespace weft::placement::halo {

using executor::ShapeOf;
using executor::TensorView;

namespace detail {

bool Direct(const Region& r, const TensorView& v, bool at_src) {
  return r.identity() && executor::IsContiguous(v, at_src ? r.src : r.dst);
}

int64_t StagedBytes(const std::vector<Message>& list, const TensorView& v, bool at_src,
                    int64_t item) {
  int64_t b = 0;
  for (const Message& m : list)
    for (const Region& r : m.regions)
      if (!Direct(r, v, at_src)) b += r.src.Volume() * item;
  return b;
}

}  // namespace detail

namespace {

// Where a received box arrives: staged (then copied into place) or null (landed in place).
using Landing = std::vector<std::pair<const Region*, char*>>;

// A phase's receives, one message per box (in plan order, so both ends match them up), each
// landing in place where its box is one contiguous run of padded, else at `stage`.
Status PostRecvs(const Phase& ph, const TensorView& padded, char* stage, int64_t item, int64_t tag,
                 backends::Communicator* comm, const backends::OpArgs& a, detail::Requests& recvs,
                 Landing& landing) {
  for (const Message& m : ph.recvs) {
    for (const Region& r : m.regions) {
      const auto bytes = static_cast<uint64_t>(r.src.Volume() * item);
      char* to = nullptr;
      if (detail::Direct(r, padded, false)) {
        landing.emplace_back(&r, nullptr);
        to = padded.At(r.dst.offset.data());
      } else {
        landing.emplace_back(&r, stage);
        to = stage;
        stage += bytes;
      }
      WEFT_ASSIGN_OR_RETURN(auto req,
                            comm->PostRecv(to, bytes, static_cast<int32_t>(m.peer), tag, a));
      recvs.push_back(std::move(req));
    }
  }
  return Status::Ok();
}

// A phase's sends, one message per box, leaving from `src` where the box is one contiguous
// run there, else packed at `out`.
Status PostSends(const Phase& ph, const TensorView& src, char* out, const device::Queue& q,
                 int64_t item, int64_t tag, backends::Communicator* comm, const backends::OpArgs& a,
                 detail::Requests& sends) {
  return detail::PostRegionSends(
      ph.sends, src, true, out, item, tag, comm, a, sends,
      [&](const Region& r, char* at) { return executor::Pack(q, src, r.src, at); });
}

}  // namespace

Status CheckSameHalo(const HaloPlan& p, backends::Communicator* comm, const backends::OpArgs& a) {
  if (!comm) return Status::Ok();
  // max(h) and max(~h) = ~min(h): all equal iff both come back unchanged.
  uint64_t v[2] = {p.fingerprint(), ~p.fingerprint()};
  WEFT_RETURN_IF_ERROR(
      comm->Allreduce(v, v, 2, DType{kCodeUInt, 64, 1}, ReduceOp::kMax, a.ForHostMemory()));
  if (v[0] != p.fingerprint() || v[1] != ~p.fingerprint())
    return InvalidUsage(
        "the ranks of the mesh built different halo plans (their layouts or descriptors "
        "differ); every rank must plan the same halo");
  return Status::Ok();
}

Status RunExchange(const HaloPlan& p, const TensorView* local, const TensorView& padded,
                   executor::BatchWorkspace& ws, backends::Communicator* comm,
                   const backends::OpArgs& a) {
  if (!p.in_mesh()) return Status::Ok();
  WEFT_ASSIGN_OR_RETURN(const device::Queue q, device::Queue::For(a.device, a.stream));
  const DType t = p.layout().dtype();
  const int64_t item = ItemSize(t);
  const device::Element constant = device::ElementOf(t, p.geometry().spec().constant);
  const device::Element zero{};
  for (size_t k = 0; k < p.phases().size(); ++k) {
    const Phase& ph = p.phases()[k];
    // Every rank draws a tag per phase, messages or not, so the sequences stay in step.
    const int64_t tag = comm ? comm->NextInternalTag() : 0;
    const TensorView& src = (k == 0 && local) ? *local : padded;
    const auto rbytes = static_cast<size_t>(detail::StagedBytes(ph.recvs, padded, false, item));
    const auto sbytes = static_cast<size_t>(detail::StagedBytes(ph.sends, src, true, item));
    WEFT_ASSIGN_OR_RETURN(char* stage, q.Reserve(ws.recv, rbytes));
    WEFT_ASSIGN_OR_RETURN(char* out, q.Reserve(ws.send, sbytes));
    if ((!ph.recvs.empty() || !ph.sends.empty()) && !comm)
      return Internal("halo: a message without a communicator");

    detail::Requests recvs, sends;
    Landing landing;
    WEFT_RETURN_IF_ERROR(PostRecvs(ph, padded, stage, item, tag, comm, a, recvs, landing));
    WEFT_RETURN_IF_ERROR(PostSends(ph, src, out, q, item, tag, comm, a, sends));
    // Local work while the messages fly.
    if (k == 0 && local) {
      WEFT_RETURN_IF_ERROR(executor::CopyBox(q, *local, padded, p.interior()));
      for (const Box& b : p.skipped())
        WEFT_RETURN_IF_ERROR(executor::FillBox(q, padded, b, zero.data()));
    }
    for (const Box& b : ph.constants)
      WEFT_RETURN_IF_ERROR(executor::FillBox(q, padded, b, constant.data()));
    device::Dims mapped;
    for (const Region& r : ph.self)
      if (!r.dst.Empty())
        WEFT_RETURN_IF_ERROR(
            q.Copy(Plain(padded, r.dst), Mapped(src, r, mapped), ShapeOf(r.dst), item));
    for (size_t i = 0; i < recvs.size(); ++i) {
      WEFT_RETURN_IF_ERROR(comm->WaitOne(*recvs[i], -1, a));
      const auto& [r, from] = landing[i];
      if (from && !r->dst.Empty())
        WEFT_RETURN_IF_ERROR(q.Copy(Plain(padded, r->dst), MappedPacked(from, *r, item, mapped),
                                    ShapeOf(r->dst), item));
    }
    WEFT_RETURN_IF_ERROR(comm ? comm->WaitAll(sends, a) : Status::Ok());
  }
  if (p.phases().empty() && local)  // a plan with no phases still copies its interior
    return executor::CopyBox(q, *local, padded, p.interior());
  return Status::Ok();
}

}  // namespace weft::placement::halo
