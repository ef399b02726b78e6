// A library collbench compares Weft with, driven directly on the same rows (--raw gloo,
// --raw nccl): same sizes, interleaved with Weft's runs in the same process.
#pragma once

#include "tools/collbench/cases.hpp"

namespace weft::collbench {

class Raw {
 public:
  virtual ~Raw() = default;
  virtual const char* name() const = 0;  // "gloo", "nccl"
  // Whether the library has this row (op, dtype, redop, memory).
  virtual bool Supports(const Case& c) const = 0;
  // What the library runs for `op`, for the report ("ncclAllReduce").
  virtual const char* Describe(Op op) const = 0;
  // Runs the row once, complete on return; throws std::runtime_error on failure.
  virtual void Run(Case& c) = 0;
  virtual void Barrier() = 0;
};

}  // namespace weft::collbench
