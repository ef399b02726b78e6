// Handles that are not live (SPEC §6.1, §10): for every handle type of the C ABI (context,
// mesh, layout, redistribute plan, halo plan, work), a call given a destroyed handle, a handle
// destroyed twice, a handle of another type (cast through void*) or an address that was never
// a handle returns WEFT_ERR_INVALID_ARGUMENT with a message naming the argument, and touches no
// freed memory (this suite runs under AddressSanitizer). A handle destroyed while another
// thread is inside a call with it stays usable by that call: the call returns normally, and
// the calls after the destroy are rejected. Objects that outlive their context (a plan, a
// posted receive) are rejected once it is gone, without touching it.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "tests/api/bad_input.hpp"
#include "weft/weft.h"

namespace {

using weft_test::ExpectInvalid;

constexpr DLDataType kF32 = {kDLFloat, 32, 1};

weft_context_t* NewContext() {
  weft_context_options_t opts = WEFT_CONTEXT_OPTIONS_INIT;
  opts.rank = 0;
  opts.world_size = 1;
  opts.backend = "self";
  opts.timeout_ms = 20000;  // a bug that makes a call wait fails the test instead of hanging
  weft_context_t* ctx = nullptr;
  EXPECT_EQ(weft_context_create(&opts, &ctx), WEFT_OK) << weft_last_error();
  return ctx;
}

// A world of one rank: a context, a mesh [1] of it, a float32 [4] layout on the mesh, and the
// buffers of that layout (the local block is the whole tensor).
struct World {
  World() {
    ctx = NewContext();
    const int64_t one[1] = {1};
    EXPECT_EQ(weft_mesh_create(ctx, 1, one, nullptr, &mesh), WEFT_OK) << weft_last_error();
    const int64_t shape[1] = {4};
    const weft_placement_t s0[1] = {WEFT_PLACEMENT_SHARD(0)};
    EXPECT_EQ(weft_layout_create(mesh, 1, shape, kF32, s0, &layout), WEFT_OK) << weft_last_error();
  }
  ~World() {
    weft_layout_destroy(layout);
    weft_mesh_destroy(mesh);
    if (ctx) {
      EXPECT_EQ(weft_context_destroy(ctx), WEFT_OK) << weft_last_error();
    }
  }
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  weft_plan_t* RedistributePlan() const {
    weft_plan_t* plan = nullptr;
    EXPECT_EQ(weft_redistribute_plan_create(layout, layout, nullptr, &plan), WEFT_OK)
        << weft_last_error();
    return plan;
  }
  // One windowed dim, a row of CONSTANT padding on each side: the padded block has 6 rows.
  weft_plan_t* HaloPlan() const {
    weft_halo_dim_t dim = {0,      WEFT_BOUNDARY_CONSTANT, WEFT_BOUNDARY_CONSTANT, 0, 1, 1, 1, 1,
                           nullptr};
    weft_halo_desc_t desc = WEFT_HALO_DESC_INIT;
    desc.ndims = 1;
    desc.dims = &dim;
    weft_plan_t* plan = nullptr;
    EXPECT_EQ(weft_halo_plan_create(layout, &desc, nullptr, &plan), WEFT_OK) << weft_last_error();
    return plan;
  }
  // A posted receive nobody sends to: it stays pending until it is cancelled.
  weft_work_t* PendingWork() {
    weft_work_t* work = nullptr;
    EXPECT_EQ(weft_recv(ctx, nullptr, 0, &out, 0, 7, nullptr, nullptr, &work), WEFT_OK)
        << weft_last_error();
    return work;
  }

  weft_context_t* ctx = nullptr;
  weft_mesh_t* mesh = nullptr;
  weft_layout_t* layout = nullptr;
  float in_data[4] = {1, 2, 3, 4}, out_data[4] = {}, padded_data[6] = {};
  int64_t shape4[1] = {4}, shape6[1] = {6};
  DLTensor in{in_data, {kDLCPU, 0}, 1, kF32, shape4, nullptr, 0};
  DLTensor out{out_data, {kDLCPU, 0}, 1, kF32, shape4, nullptr, 0};
  DLTensor padded{padded_data, {kDLCPU, 0}, 1, kF32, shape6, nullptr, 0};
};

// One handle type: how to make a live handle in a World, how to destroy it, and a call that
// uses it (the name of that call and of the handle's argument).
struct Kind {
  std::string label;
  std::function<void*(World&)> make;
  std::function<weft_status_t(void*)> destroy;
  std::string destroy_fn, use_fn, arg;
  std::function<weft_status_t(World&, void*)> use;
};

// gtest prints the parameter by its label, not its bytes.
void PrintTo(const Kind& k, std::ostream* os) { *os << k.label; }

std::vector<Kind> Kinds() {
  static int32_t i32;
  static int64_t i64[4];
  return {
      {"Context", [](World&) -> void* { return NewContext(); },
       [](void* h) { return weft_context_destroy(static_cast<weft_context_t*>(h)); },
       "weft_context_destroy", "weft_context_rank", "ctx",
       [](World&, void* h) { return weft_context_rank(static_cast<weft_context_t*>(h), &i32); }},
      {"Mesh",
       [](World& w) -> void* {
         const int64_t one[1] = {1};
         weft_mesh_t* m = nullptr;
         EXPECT_EQ(weft_mesh_create(w.ctx, 1, one, nullptr, &m), WEFT_OK);
         return m;
       },
       [](void* h) { return weft_mesh_destroy(static_cast<weft_mesh_t*>(h)); }, "weft_mesh_destroy",
       "weft_mesh_ndim", "mesh",
       [](World&, void* h) { return weft_mesh_ndim(static_cast<weft_mesh_t*>(h), &i32); }},
      {"Layout",
       [](World& w) -> void* {
         const weft_placement_t r[1] = {WEFT_PLACEMENT_REPLICATE};
         weft_layout_t* l = nullptr;
         EXPECT_EQ(weft_layout_create(w.mesh, 1, w.shape4, kF32, r, &l), WEFT_OK);
         return l;
       },
       [](void* h) { return weft_layout_destroy(static_cast<weft_layout_t*>(h)); },
       "weft_layout_destroy", "weft_layout_local_shape", "layout",
       [](World&, void* h) {
         return weft_layout_local_shape(static_cast<weft_layout_t*>(h), 0, i64, nullptr);
       }},
      {"RedistributePlan", [](World& w) -> void* { return w.RedistributePlan(); },
       [](void* h) { return weft_plan_destroy(static_cast<weft_plan_t*>(h)); }, "weft_plan_destroy",
       "weft_plan_execute", "plan",
       [](World& w, void* h) {
         return weft_plan_execute(static_cast<weft_plan_t*>(h), &w.in, &w.out, nullptr, nullptr,
                                  nullptr);
       }},
      {"HaloPlan", [](World& w) -> void* { return w.HaloPlan(); },
       [](void* h) { return weft_plan_destroy(static_cast<weft_plan_t*>(h)); }, "weft_plan_destroy",
       "weft_halo_exchange", "plan",
       [](World& w, void* h) {
         return weft_halo_exchange(static_cast<weft_plan_t*>(h), &w.in, &w.padded, nullptr, nullptr,
                                   nullptr);
       }},
      {"Work", [](World& w) -> void* { return w.PendingWork(); },
       [](void* h) { return weft_work_release(static_cast<weft_work_t*>(h)); }, "weft_work_release",
       "weft_work_test", "work",
       [](World&, void* h) { return weft_work_test(static_cast<weft_work_t*>(h), &i32); }},
  };
}

class HandleSafety : public testing::TestWithParam<Kind> {
 protected:
  World w;
};

TEST_P(HandleSafety, LiveHandleWorks) {
  const Kind& k = GetParam();
  void* h = k.make(w);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(k.use(w, h), WEFT_OK) << weft_last_error();
  EXPECT_EQ(k.destroy(h), WEFT_OK) << weft_last_error();
}

TEST_P(HandleSafety, UseAfterDestroyIsRejected) {
  const Kind& k = GetParam();
  void* h = k.make(w);
  ASSERT_EQ(k.destroy(h), WEFT_OK) << weft_last_error();
  ExpectInvalid(k.use(w, h), k.use_fn, k.arg);
  EXPECT_NE(std::string(weft_last_error()).find("destroyed"), std::string::npos)
      << weft_last_error();
}

TEST_P(HandleSafety, DoubleDestroyIsRejected) {
  const Kind& k = GetParam();
  void* h = k.make(w);
  ASSERT_EQ(k.destroy(h), WEFT_OK) << weft_last_error();
  ExpectInvalid(k.destroy(h), k.destroy_fn, k.arg);
}

// A handle of every other type, cast through void*, is refused by this type's calls (and a
// plan of the other plan kind is accepted by the call's type check, so it is left out).
TEST_P(HandleSafety, HandleOfAnotherTypeIsRejected) {
  const Kind& k = GetParam();
  for (const Kind& other : Kinds()) {
    const bool both_plans = other.arg == "plan" && k.arg == "plan";
    if (other.label == k.label || both_plans) continue;
    SCOPED_TRACE(other.label);
    void* h = other.make(w);
    ExpectInvalid(k.use(w, h), k.use_fn, k.arg);
    EXPECT_NE(std::string(weft_last_error()).find("not a"), std::string::npos) << weft_last_error();
    ExpectInvalid(k.destroy(h), k.destroy_fn, k.arg);
    EXPECT_EQ(other.destroy(h), WEFT_OK) << weft_last_error();  // the refusals left it alone
  }
}

TEST_P(HandleSafety, AddressThatIsNoHandleIsRejected) {
  const Kind& k = GetParam();
  // A live object of the caller's, an unmapped low address, and a live handle with one bit of
  // its value changed.
  alignas(64) static char caller_object[256] = {};
  void* live = k.make(w);
  void* fakes[] = {
      caller_object, reinterpret_cast<void*>(uintptr_t{0x1000}),
      reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(live) ^ (uintptr_t{1} << 30))};
  for (void* h : fakes) {
    SCOPED_TRACE(reinterpret_cast<uintptr_t>(h));
    ExpectInvalid(k.use(w, h), k.use_fn, k.arg);
    ExpectInvalid(k.destroy(h), k.destroy_fn, k.arg);
  }
  EXPECT_EQ(k.destroy(live), WEFT_OK) << weft_last_error();
}

// Another thread keeps calling with the handle while this one destroys it: every call either
// works or is rejected as a destroyed handle, and once the destroy returned, all are rejected.
TEST_P(HandleSafety, DestroyWhileAnotherThreadUsesIt) {
  const Kind& k = GetParam();
  for (int round = 0; round < 20; ++round) {
    void* h = k.make(w);
    std::atomic<int> calls{0};
    std::atomic<bool> destroyed{false};
    weft_status_t after = WEFT_OK;
    std::string unexpected;
    std::thread user([&] {
      while (true) {
        const bool was_destroyed = destroyed.load();
        const weft_status_t s = k.use(w, h);
        calls.fetch_add(1);
        if (s != WEFT_OK && s != WEFT_ERR_INVALID_ARGUMENT && unexpected.empty())
          unexpected = std::to_string(s) + ": " + weft_last_error();
        if (was_destroyed) {
          after = s;
          return;
        }
      }
    });
    while (calls.load() < round % 4) std::this_thread::yield();
    EXPECT_EQ(k.destroy(h), WEFT_OK) << weft_last_error();
    destroyed = true;
    user.join();
    EXPECT_EQ(unexpected, "");
    EXPECT_EQ(after, WEFT_ERR_INVALID_ARGUMENT);
  }
}

INSTANTIATE_TEST_SUITE_P(Api, HandleSafety, testing::ValuesIn(Kinds()),
                         [](const testing::TestParamInfo<Kind>& info) { return info.param.label; });

// ---- objects that outlive their context ---------------------------------------------------------

TEST(HandleSafetyContext, PlanOfADestroyedContextIsRejected) {
  World w;
  weft_plan_t* plan = w.RedistributePlan();
  weft_plan_t* halo = w.HaloPlan();
  ASSERT_EQ(weft_context_destroy(w.ctx), WEFT_OK) << weft_last_error();
  w.ctx = nullptr;
  ExpectInvalid(weft_plan_execute(plan, &w.in, &w.out, nullptr, nullptr, nullptr),
                "weft_plan_execute", "plan");
  ExpectInvalid(weft_halo_exchange(halo, &w.in, &w.padded, nullptr, nullptr, nullptr),
                "weft_halo_exchange", "plan");
  ExpectInvalid(weft_redistribute(w.layout, &w.in, w.layout, &w.out, nullptr, nullptr, nullptr),
                "weft_redistribute", "src_layout");
  // Metadata stays readable: the plan, its layout and mesh do not need the context.
  size_t needed = 0;
  EXPECT_EQ(weft_plan_describe(plan, nullptr, 0, &needed), WEFT_OK) << weft_last_error();
  int32_t ndim = 0;
  EXPECT_EQ(weft_mesh_ndim(w.mesh, &ndim), WEFT_OK) << weft_last_error();
  EXPECT_EQ(weft_plan_destroy(plan), WEFT_OK);
  EXPECT_EQ(weft_plan_destroy(halo), WEFT_OK);
}

// A posted receive that never completed: the context's destroy cancels it, and the work
// handle, still the caller's, reports that without touching the freed backend.
TEST(HandleSafetyContext, PendingWorkOfADestroyedContextIsAborted) {
  World w;
  weft_work_t* work = w.PendingWork();
  int32_t done = 1;
  ASSERT_EQ(weft_work_test(work, &done), WEFT_OK) << weft_last_error();
  EXPECT_EQ(done, 0);
  ASSERT_EQ(weft_context_destroy(w.ctx), WEFT_OK) << weft_last_error();
  w.ctx = nullptr;
  EXPECT_EQ(weft_work_wait(work, 0), WEFT_ERR_ABORTED) << weft_last_error();
  EXPECT_NE(std::string(weft_last_error()).find("destroyed"), std::string::npos)
      << weft_last_error();
  EXPECT_EQ(weft_work_test(work, &done), WEFT_OK) << weft_last_error();
  EXPECT_EQ(done, 1);
  EXPECT_EQ(weft_work_release(work), WEFT_OK) << weft_last_error();
}

// Releasing the handle of a pending receive detaches it (SPEC §6.3): the receive still
// completes when its message comes, into the buffer it was given.
TEST(HandleSafetyContext, ReleasedPendingReceiveStillCompletes) {
  World w;
  weft_work_t* work = w.PendingWork();
  ASSERT_EQ(weft_work_release(work), WEFT_OK) << weft_last_error();
  ASSERT_EQ(weft_send(w.ctx, nullptr, 0, &w.in, 0, 7, nullptr, nullptr, nullptr), WEFT_OK)
      << weft_last_error();
  EXPECT_EQ(std::vector<float>(w.out_data, w.out_data + 4), std::vector<float>({1, 2, 3, 4}));
}

// A collective on a mesh whose context was destroyed, issued on another context.
TEST(HandleSafetyContext, MeshOfADestroyedContextIsRejected) {
  World w;
  weft_context_t* other = NewContext();
  ASSERT_EQ(weft_context_destroy(w.ctx), WEFT_OK) << weft_last_error();
  w.ctx = nullptr;
  ExpectInvalid(weft_barrier(other, w.mesh, 0, nullptr, nullptr, nullptr), "weft_barrier", "mesh");
  EXPECT_EQ(weft_context_destroy(other), WEFT_OK) << weft_last_error();
}

}  // namespace
