#include "tools/collbench/options.hpp"

#include "tools/collbench/halo_pattern.hpp"
#include "tools/collbench/pattern.hpp"

#include <weft/types.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <utility>

namespace weft::collbench {
namespace {

const std::vector<std::pair<const char*, Op>>& OpNames() {
  static const std::vector<std::pair<const char*, Op>> names = {
      {"allreduce", Op::kAllreduce},
      {"allgather", Op::kAllgather},
      {"reduce_scatter", Op::kReduceScatter},
      {"alltoall", Op::kAlltoall},
      {"broadcast", Op::kBroadcast},
      {"allgatherv", Op::kAllgatherv},
      {"reduce_scatterv", Op::kReduceScatterv},
      {"alltoallv", Op::kAlltoallv},
      {"sendrecv", Op::kSendrecv},
  };
  return names;
}

bool ParseOps(const std::string& list, std::vector<Op>* ops) {
  ops->clear();
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    bool found = false;
    for (const auto& [name, op] : OpNames()) {
      if (item == name) {
        ops->push_back(op);
        found = true;
      }
    }
    if (!found) return false;
  }
  return !ops->empty();
}

int ParseRedop(const std::string& name) {
  if (name == "sum") return WEFT_REDUCE_SUM;
  if (name == "avg") return WEFT_REDUCE_AVG;
  if (name == "max") return WEFT_REDUCE_MAX;
  if (name == "min") return WEFT_REDUCE_MIN;
  if (name == "prod") return WEFT_REDUCE_PROD;
  return -1;
}

bool ParseInt(const std::string& text, int lo, int* out) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0' || v < lo || v > 1000000000) return false;
  *out = static_cast<int>(v);
  return true;
}

// -d takes a dtype (nccl-tests' meaning) or, as the GPU check spells it, a device; --device
// only a device.
bool ApplyDtypeOrDevice(const std::string& flag, const std::string& value, Options* o) {
  if (value == "cuda" || value == "cpu") {
    o->device_cuda = value == "cuda";
    return true;
  }
  return flag == "-d" && (o->dtype = FindDType(value)) != nullptr;
}

// --raw gloo | nccl.
bool ApplyRaw(const std::string& value, Options* o) {
  o->raw_gloo = value == "gloo";
  o->raw_nccl = value == "nccl";
  return o->raw();
}

// Applies one option with its value; false when the value is bad.
bool Apply(const std::string& flag, const std::string& value, Options* o) {
  int n = 0;
  if (flag == "-b") return (o->min_bytes = ParseBytes(value)) >= 0;
  if (flag == "-e") return (o->max_bytes = ParseBytes(value)) >= 0;
  if (flag == "-f") {
    char* end = nullptr;
    o->factor = std::strtod(value.c_str(), &end);
    return end != value.c_str() && *end == '\0' && o->factor > 1.0;
  }
  if (flag == "-n") return ParseInt(value, 1, &o->iters);
  if (flag == "-w") return ParseInt(value, 0, &o->warmup);
  if (flag == "-c") {
    if (!ParseInt(value, 0, &n) || n > 1) return false;
    o->check = n == 1;
    return true;
  }
  if (flag == "-d" || flag == "--device") return ApplyDtypeOrDevice(flag, value, o);
  if (flag == "-o") return (o->redop = ParseRedop(value)) >= 0;
  if (flag == "-op" || flag == "--ops") return o->ops_given = ParseOps(value, &o->ops);
  if (flag == "--pattern") {
    std::vector<Pattern> patterns;
    std::vector<HaloPattern> halos;
    std::string ignored;
    o->patterns = value;
    return ParsePatterns(value, &patterns, &ignored) && ParseHaloPatterns(value, &halos, &ignored);
  }
  if (flag == "--json") return !(o->json_path = value).empty();
  if (flag == "--raw") return ApplyRaw(value, o);
  return false;
}

}  // namespace

const char* OpName(Op op) {
  for (const auto& [name, o] : OpNames()) {
    if (o == op) return name;
  }
  return "?";
}

bool OpReduces(Op op) {
  return op == Op::kAllreduce || op == Op::kReduceScatter || op == Op::kReduceScatterv;
}

int64_t ParseBytes(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || v < 0) return -1;
  int shift = 0;
  const std::string suffix(end);
  if (suffix == "K" || suffix == "k")
    shift = 10;
  else if (suffix == "M" || suffix == "m")
    shift = 20;
  else if (suffix == "G" || suffix == "g")
    shift = 30;
  else if (!suffix.empty())
    return -1;
  if (v > (INT64_MAX >> shift)) return -1;
  return static_cast<int64_t>(v) << shift;
}

bool ParseOptions(int argc, char** argv, Options* o, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "-h" || flag == "--help") {
      o->help = true;
      return true;
    }
    if (i + 1 >= argc) {
      *error = flag + ": missing value (or unknown option)";
      return false;
    }
    const std::string value = argv[++i];
    if (!Apply(flag, value, o)) {
      *error = "bad option " + flag + " " + value;
      return false;
    }
  }
  if (o->min_bytes > o->max_bytes) {
    *error = "-b " + std::to_string(o->min_bytes) + " exceeds -e " + std::to_string(o->max_bytes);
    return false;
  }
  return true;
}

std::string Usage() {
  std::string dtypes;
  for (const std::string& d : DTypeNames()) dtypes += (dtypes.empty() ? "" : ", ") + d;
  return "usage: weftrun -n N collbench [options]\n"
         "       weftrun -n N collbench topo [--out FILE] [--mesh AxB]  (topology, README.md)\n"
         "       weftrun -n N collbench tune [--out FILE] [--max BYTES] [--budget S]\n"
         "                              [--crossovers 0|1]  (tuning file, docs/tuning.md)\n"
         "  -b BYTES      smallest size (K/M/G suffixes; default 8)\n"
         "  -e BYTES      largest size (default 64M)\n"
         "  -f FACTOR     size step factor (default 2)\n"
         "  -n ITERS      timed iterations per size (default 20)\n"
         "  -w ITERS      warm-up iterations per size (default 5)\n"
         "  -c 0|1        check results against a closed form, count #wrong (default 1)\n"
         "  -d DTYPE      " +
         dtypes +
         " (default float32)\n"
         "  -d cuda | --device cpu|cuda\n"
         "                the rows' buffers in CUDA memory (the nccl backend; each timed\n"
         "                iteration ends when the stream has run it); default host memory\n"
         "  -o REDOP      sum, avg, max, min, prod (default sum)\n"
         "  -op LIST      comma-separated: allreduce, allgather, reduce_scatter, alltoall,\n"
         "                broadcast, allgatherv, reduce_scatterv, alltoallv, sendrecv\n"
         "                (--ops too; default allreduce)\n"
         "  --pattern LIST  redistribute patterns instead of (or, with -op, besides) the\n"
         "                ops: S0-R, P-S0, S0-S1, R-S0, P-R, Pmax-R, 2d:S0S1-S1S0, ... (a\n"
         "                2-D float32 tensor of `size` bytes), each next to the collective it\n"
         "                needs (Weft's, or raw Gloo's with --raw gloo); see README.md\n"
         "                Halo patterns: halo1d, halo1d-strided, halo2d-box, halo2d-star,\n"
         "                halo3d, halo3d-star, each optionally -inplace (halo1d-inplace: two\n"
         "                interior sizes, same halo): a periodic halo exchange with faces of\n"
         "                `size` bytes next to raw weft_send/weft_recv of the same messages\n"
         "                (+ the same packing and interior copy); see README.md\n"
         "  --json FILE   write one record per row (rank 0)\n"
         "  --raw gloo    also run each row through Gloo's C++ API directly, same sizes,\n"
         "                interleaved, and print Weft's busbw over raw Gloo's\n"
         "  --raw nccl    the same through NCCL's own calls (with -d cuda; WEFT_NCCL_LIBRARY)\n";
}

}  // namespace weft::collbench
