// The tuning file `collbench tune` writes and the runtime reads (WEFT_TUNING_FILE; schema in
// docs/tuning.md): each rank's place (host, NUMA node, L3), an alpha-beta fit per link class,
// local copy and reduce speeds, and values for tuning parameters. Two readers, one loader:
// the planner's cost model (placement/planner/tuned_model.*) takes the link fits, and the
// parameter registry (param::RawValue) takes the parameter values where the environment has
// none, for libweft and the plugins alike (this file is compiled into both).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace weft::tuning {

inline constexpr int kVersion = 1;  // the "weft_tuning" field a reader accepts

// How two ranks are linked, closest first. The classes nest (an L3 lies in a NUMA node, a NUMA
// node in a host), so the slowest link of a group is its first member's slowest link.
enum class LinkClass : int32_t { kSameL3 = 0, kSameNuma, kCrossNuma, kCrossHost };
inline constexpr int kLinkClasses = 4;
// "same_l3", "same_numa", "cross_numa", "cross_host": the keys of the file's "links".
const char* LinkClassName(LinkClass c);

struct LinkFit {
  bool measured = false;
  double alpha = 0;      // seconds per message
  double beta = 0;       // seconds per byte
  double alpha_err = 0;  // standard errors of the fit, same units
  double beta_err = 0;
};

// A rank's place as numbers that are equal exactly when two ranks share it (-1: unknown, which
// shares nothing).
struct Place {
  int32_t host = -1, numa = -1, l3 = -1;
};

LinkClass ClassOf(const Place& a, const Place& b);

struct File {
  std::string path;
  std::vector<Place> ranks;  // by world rank
  std::array<LinkFit, kLinkClasses> links{};
  double copy_beta = 0, reduce_beta = 0;      // seconds per byte; 0: not measured
  std::map<std::string, std::string> params;  // WEFT_* name -> value text

  // The fit for `c`, or where `c` was not measured the nearest slower measured class, else the
  // nearest faster one; nullptr when the file measured none.
  const LinkFit* Fit(LinkClass c) const;
};

// Parses the file's text; kInvalidArgument naming `path` and the field that is wrong.
Result<File> Parse(std::string_view text, const std::string& path);
// Reads and parses `path`; kept per path while its size and modification time stay the same,
// so planning does not re-read it.
Result<std::shared_ptr<const File>> Load(const std::string& path);

// The file WEFT_TUNING_FILE names (read from the environment now); nullptr when it is unset,
// an error when it cannot be read or parsed.
Result<std::shared_ptr<const File>> FromEnvironment();

// The text the tuning file gives parameter `name`, or nullptr when there is no file, it cannot
// be read (FromEnvironment reports that when a context is created), or it does not set `name`.
// The text stays valid for the life of the process.
const char* ParamText(const char* name);

}  // namespace weft::tuning
