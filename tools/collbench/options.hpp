// collbench's command line (nccl-tests' letters where they have one).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/collbench/dtypes.hpp"

namespace weft::collbench {

enum class Op {
  kAllreduce,
  kAllgather,
  kReduceScatter,
  kAlltoall,
  kBroadcast,
  kAllgatherv,
  kReduceScatterv,
  kAlltoallv,
  kSendrecv,
};

const char* OpName(Op op);
bool OpReduces(Op op);

struct Options {
  int64_t min_bytes = 8;
  int64_t max_bytes = 64ll << 20;
  double factor = 2;
  int iters = 20;
  int warmup = 5;
  bool check = true;
  const DType* dtype = FindDType("float32");
  int redop = 0;  // WEFT_REDUCE_SUM
  std::vector<Op> ops = {Op::kAllreduce};
  bool ops_given = false;  // -op on the command line (with --pattern, ops run only then)
  std::string patterns;    // --pattern LIST (redistribute and halo items, validated); empty: none
  std::string json_path;   // empty: no JSON
  bool raw_gloo = false;
  bool raw_nccl = false;     // --raw nccl (needs device_cuda)
  bool device_cuda = false;  // -d cuda / --device cuda: the rows' buffers in CUDA memory
  bool raw() const { return raw_gloo || raw_nccl; }
  bool help = false;
};

// "64", "1K", "64M", "2G" (powers of 1024). -1 when malformed.
int64_t ParseBytes(const std::string& text);

// Parses argv; on a bad command line returns false with *error naming the argument.
bool ParseOptions(int argc, char** argv, Options* options, std::string* error);
std::string Usage();

}  // namespace weft::collbench
