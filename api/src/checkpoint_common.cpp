#include "api/src/checkpoint_common.hpp"

#include <cstring>
#include <unordered_set>

#include "api/src/context_link.hpp"
#include "api/src/handles.hpp"
#include "api/src/tensor_check.hpp"
#include "checkpoint/save_plan.hpp"
#include "weft/collectives.h"
#include "weft/status.h"

namespace weft::api::ckpt {
namespace {

constexpr size_t kMessageBytes = 2048;

Status FromCall(weft_status_t s) {
  if (s == WEFT_OK) return Status::Ok();
  return Status(static_cast<Code>(s), weft_last_error());
}

DLTensor Vector(void* data, int64_t* count, DLDataType dt) {
  DLTensor t{};
  t.data = data;
  t.device = {kDLCPU, 0};
  t.ndim = 1;
  t.dtype = dt;
  t.shape = count;
  return t;
}

}  // namespace

Result<World> WorldOf(weft_context_t* ctx, int64_t timeout_ms) {
  World w;
  WEFT_ASSIGN_OR_RETURN(w.rank, ContextRank(ctx, "ctx"));
  WEFT_ASSIGN_OR_RETURN(w.size, ContextWorldSize(ctx, "ctx"));
  w.ctx = ctx;
  w.call.timeout_ms = timeout_ms;
  return w;
}

Status Agree(const World& w, const Status& mine, uint64_t digest) {
  // MIN over [first failing rank, digest, ~digest]: the digests agree iff min == ~min(~).
  uint64_t v[3] = {mine.ok() ? static_cast<uint64_t>(w.size) : static_cast<uint64_t>(w.rank),
                   digest, ~digest};
  int64_t count = 3;
  DLTensor t = Vector(v, &count, DLDataType{kDLUInt, 64, 1});
  WEFT_RETURN_IF_ERROR(FromCall(
      weft_allreduce(w.ctx, nullptr, 0, &t, &t, WEFT_REDUCE_MIN, nullptr, &w.call, nullptr)));
  if (v[0] == static_cast<uint64_t>(w.size)) {
    if (v[1] != ~v[2])
      return InvalidArgument(
          "the ranks passed different arguments (names, layouts or paths differ between ranks)");
    return Status::Ok();
  }
  const auto root = static_cast<int32_t>(v[0]);
  char msg[kMessageBytes] = {};
  if (root == w.rank) {
    const auto code = static_cast<int32_t>(mine.code());
    std::memcpy(msg, &code, sizeof(code));
    std::strncpy(msg + sizeof(code), mine.message().c_str(), kMessageBytes - sizeof(code) - 1);
  }
  int64_t bytes = kMessageBytes;
  DLTensor m = Vector(msg, &bytes, DLDataType{kDLUInt, 8, 1});
  WEFT_RETURN_IF_ERROR(
      FromCall(weft_broadcast(w.ctx, nullptr, 0, &m, root, nullptr, &w.call, nullptr)));
  if (root == w.rank) return mine;
  int32_t code = 0;
  std::memcpy(&code, msg, sizeof(code));
  msg[kMessageBytes - 1] = '\0';
  return Status(static_cast<Code>(code),
                "rank " + std::to_string(root) + " failed: " + (msg + sizeof(code)));
}

Status SumAll(const World& w, std::vector<uint64_t>& values) {
  if (values.empty()) return Status::Ok();
  auto count = static_cast<int64_t>(values.size());
  DLTensor t = Vector(values.data(), &count, DLDataType{kDLUInt, 64, 1});
  return FromCall(
      weft_allreduce(w.ctx, nullptr, 0, &t, &t, WEFT_REDUCE_SUM, nullptr, &w.call, nullptr));
}

Result<std::vector<Item>> CheckItems(const World& w, const char* path, int32_t n,
                                     const char* const* names,
                                     const weft_layout_t* const* layouts) {
  if (path == nullptr) return InvalidArgument("path is NULL");
  if (path[0] == '\0') return InvalidArgument("path is empty");
  if (n < 0) return InvalidArgument("n is " + std::to_string(n) + " but must be >= 0");
  if (n > 0 && names == nullptr) return InvalidArgument("names is NULL");
  if (n > 0 && layouts == nullptr) return InvalidArgument("layouts is NULL");
  std::vector<Item> items(static_cast<size_t>(n));
  std::unordered_set<std::string> seen;
  for (int32_t i = 0; i < n; ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    if (names[i] == nullptr) return InvalidArgument("names" + at + " is NULL");
    if (names[i][0] == '\0') return InvalidArgument("names" + at + " is empty");
    items[i].name = names[i];
    if (!seen.insert(items[i].name).second)
      return InvalidArgument("names" + at + " (" + items[i].name + ") appears twice");
    RefFor<const weft_layout_t*> ref;
    WEFT_RETURN_IF_ERROR(Use(layouts[i], ("layouts" + at).c_str(), &ref));
    items[i].layout = ref->layout;
    if (!(items[i].layout->mesh().context() == IdOf(w.ctx)))
      return InvalidArgument("layouts" + at + " (tensor " + items[i].name +
                             ") is not on a mesh of ctx");
  }
  return items;
}

Status CheckBlockView(const World& w, const DLTensor* t, const std::string& arg, bool output,
                      Item& item) {
  const Box block = checkpoint::BlockOf(*item.layout, w.rank);
  if (t == nullptr && block.Empty()) {
    item.view = {};
    item.view.item = ItemSize(item.layout->dtype());
    item.view.block = block;
    return Status::Ok();
  }
  const std::string what = "rank " + std::to_string(w.rank) + "'s block of " + item.name;
  WEFT_ASSIGN_OR_RETURN(item.view, CheckView(t, arg, item.layout->dtype(), block, what, output));
  item.device = t->device;
  return Status::Ok();
}

uint64_t Fnv(uint64_t h, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

uint64_t DigestOf(const std::vector<Item>& items) {
  uint64_t h = 14695981039346656037ull;
  for (const Item& it : items) {
    h = Fnv(h, it.name.data(), it.name.size() + 1);
    const DType t = it.layout->dtype();
    h = Fnv(h, &t, sizeof(t));
    h = Fnv(h, it.layout->shape().data(), it.layout->shape().size() * sizeof(int64_t));
  }
  return h;
}

}  // namespace weft::api::ckpt
