// Running a halo case on the world and checking it cell by cell against the reference: the
// padded shapes of every rank, the exchange (out of place and in place) and the accumulate.
#pragma once

#include <functional>
#include <memory>

#include "harness.hpp"
#include "reference.hpp"

namespace halo {

struct Case {
  std::vector<int64_t> mesh, shape;
  std::vector<int32_t> mesh_ranks;  // world rank per mesh position; empty: 0..n-1
  std::string type = "float64";
  std::vector<std::string> placements;
  std::vector<std::vector<int64_t>> splits;  // per tensor dim, empty = chunk
  HaloSpec halo;
  Style local_style = Style::kRowMajor, padded_style = Style::kRowMajor;
  bool nan_payload = false;  // data cells as NaN payloads (float64), see EncodeValue
  std::string Name() const;
};

// Data held by the group of mesh position r at global element g.
using DataFn = std::function<double(int32_t r, const std::vector<int64_t>& g)>;

constexpr double kSentinel = -7;  // pre-filled into written buffers; no formula produces it

// A case on the world: its mesh, layout, plan and reference geometry.
struct Setup {
  Case c;
  const Type* type = nullptr;
  std::unique_ptr<Mesh> mesh;
  std::unique_ptr<Layout> layout;
  Plan plan;
  Geometry geo;
  weft_status_t status = WEFT_OK;  // of weft_halo_plan_create
  int32_t me = 0;                  // this rank's mesh position
  const Box& Owned() const { return geo.owned[static_cast<size_t>(me)]; }
  const Box& Window() const { return geo.window[static_cast<size_t>(me)]; }
};

// Creates the setup; with expect_ok a failed plan is reported. status says how it went.
std::unique_ptr<Setup> MakeSetup(const Case& c, bool expect_ok = true);

// The formula data: integers 1..239 of the global linear index (exact in every tested
// dtype), plus 300 times the group's Partial index (so Partial groups hold different terms).
DataFn FormulaData(const Geometry& geo);

// weft_halo_padded_shape of every rank equals the reference window.
void CheckWindows(Setup& s);

// Runs the exchange (in place: the padded buffer's interior holds the local data first) and
// returns the padded block; the local block, the guards and (in place) interior bytes are
// checked. Every written cell starts at kSentinel.
std::unique_ptr<Block> RunExchange(Setup& s, const DataFn& data, bool inplace);
// Checks every padded cell (out of place: star-skipped cells are 0; in place: kSentinel).
void CheckPadded(Setup& s, Block& padded, const DataFn& data, bool inplace);
// Both.
void ExchangeAndCheck(Setup& s, const DataFn& data, bool inplace = false);

// Accumulate of padded_grad = y (every cell, skipped and constant ones included) into a local
// block pre-filled with z (add != 0) or kSentinel (add == 0).
std::unique_ptr<Block> RunAccumulate(Setup& s, const DataFn& y, int32_t add, const DataFn& z);
// The reference local gradient of this rank (row-major over its owned block).
std::vector<double> ExpectedGrad(const Setup& s, const DataFn& y, int32_t add, const DataFn& z);
// Exact comparison of every local element with the reference.
void CheckGrad(Setup& s, Block& grad, const DataFn& y, int32_t add, const DataFn& z);
void AccumulateAndCheck(Setup& s, const DataFn& y, int32_t add, const DataFn& z);

// Small integer gradients of (rank, padded cell), different on every rank.
DataFn SmallGrad(uint64_t salt);

}  // namespace halo
