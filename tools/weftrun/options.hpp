// weftrun's command line (SPEC §8): `weftrun -n N [options] [--] prog args...`, or
// `weftrun --print-params [--backend B]`.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace weft::tools {

// Beyond this a single node runs out of file descriptors and pids long before it runs out of
// work; it also bounds what a typo in -n can start.
inline constexpr int kMaxRanks = 4096;

struct Options {
  int ranks = 0;
  std::optional<std::string> backend;  // WEFT_BACKEND for every rank; unset: inherited
  std::optional<double> timeout_s;     // stop everything after this long
  double grace_s = 3.0;                // SIGTERM → SIGKILL delay when stopping ranks
  bool prefix = true;                  // "[rank] " before each output line
  bool help = false;                   // --help: print the usage and nothing else
  bool print_params = false;           // --print-params: list the WEFT_* variables and exit
  std::vector<std::string> command;    // the program and its arguments
};

// Parses the arguments after argv[0]. Options end at the first argument that does not start
// with '-' or after "--"; the rest is the command. Errors are kInvalidUsage and their message
// is meant for the user.
Result<Options> ParseOptions(std::span<const std::string> args);

// The --help text, exit statuses included.
const char* UsageText();

}  // namespace weft::tools
