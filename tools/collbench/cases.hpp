// One row of the sweep: an op at one size, its buffers on this rank, how to fill them, how to
// check them, and nccl-tests' conventions for its size and bus bandwidth.
//
// Size (the "size" column, nccl-tests' convention): allreduce, broadcast, sendrecv: the
// buffer; allgather(v): the gathered output; reduce_scatter(v): the full input; alltoall(v):
// one rank's send buffer. The v-ops split it unevenly: member i's share is proportional to
// i + 1, and in alltoallv rank s sends (1 + (s + d) % n) units to rank d, so every rank still
// sends and receives the same total.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <vector>

#include "tools/collbench/dtypes.hpp"
#include "tools/collbench/options.hpp"

namespace weft::collbench {

struct Geometry {
  int64_t size_bytes = 0;  // the "size" column; 0: too small for this world, skip the row
  int64_t count = 0;       // size in elements
  int64_t send_count = 0, recv_count = 0;
  std::vector<int64_t> counts;       // per member: allgatherv / reduce_scatterv blocks
  std::vector<int64_t> send_counts;  // alltoallv, this rank's
  std::vector<int64_t> recv_counts;
  int64_t unit = 0;  // alltoallv: elements per weight unit
};

Geometry MakeGeometry(Op op, int64_t nominal_bytes, const DType& t, int32_t nranks, int32_t rank);

// nccl-tests' busbw / algbw factor.
double BusFactor(Op op, int32_t nranks);

class DeviceMemory;

class Case {
 public:
  // `device`: the buffers live in CUDA memory (-d cuda), mirrored on the host for Fill and
  // CountWrong; null: host memory.
  Case(Op op, const Geometry& g, const DType& t, int redop, int32_t nranks, int32_t rank,
       DeviceMemory* device = nullptr);
  ~Case();
  Case(const Case&) = delete;
  Case& operator=(const Case&) = delete;

  // Writes the inputs from the closed form and poisons the outputs, so a check after one
  // run sees only what that run delivered.
  void Fill();
  // The number of wrong output elements on this rank (device buffers: copied back first).
  int64_t CountWrong();
  // Device buffers: waits until the work enqueued on them has run (a timed iteration's end).
  void Sync();

  Op op() const { return op_; }
  const Geometry& geometry() const { return g_; }
  const DType& dtype() const { return t_; }
  int redop() const { return redop_; }
  int32_t nranks() const { return nranks_; }
  int32_t rank() const { return rank_; }
  uint8_t* send() { return dsend_ ? dsend_ : send_.data(); }
  uint8_t* recv() { return drecv_ ? drecv_ : recv_.data(); }
  DLDevice device() const { return device_ ? DLDevice{kDLCUDA, 0} : DLDevice{kDLCPU, 0}; }
  bool on_device() const { return device_ != nullptr; }

 private:
  void FillHost();
  int64_t CountWrongReduced(int64_t first_index) const;
  int64_t CountWrongMoved() const;

  Op op_;
  Geometry g_;
  const DType& t_;
  int redop_;
  int32_t nranks_, rank_;
  std::vector<uint8_t> send_, recv_;  // broadcast uses send_ as its one buffer
  DeviceMemory* device_ = nullptr;
  uint8_t* dsend_ = nullptr;  // the device copies, with -d cuda
  uint8_t* drecv_ = nullptr;
};

}  // namespace weft::collbench
