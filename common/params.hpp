// The registry of WEFT_* environment variables (docs/parameters.md): one declaration per
// variable (common/host_params.hpp for libweft's, a table in each plugin for the plugin's), one
// strict parser (common/param_parse.hpp), one listing (weftrun --print-params), and the
// must-match values every rank compares when a context is created.
//
// Host variables are read together and cached: on first use, and again whenever a context is
// created while no other context lives (each context holds a Pinned). So the values a living
// context works with never change under it, a program that changes its environment between
// contexts gets the new values, and no hot path calls getenv. A plugin's variables are read
// when a context loads the plugin (the plugin reads them then too, in init()).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "common/host_params.hpp"
#include "common/param_parse.hpp"
#include "common/result.hpp"

namespace weft::params {

// The value of a host variable; kInvalidArgument naming the variable, its text and what it
// must be when the text is malformed. Thread-safe.
Result<param::Value> Get(Key key);
// Get(key), but read from the environment now unless a context pins the values: for the few
// settings read when a plan is made, which happens without any context on abstract meshes.
Result<param::Value> GetFresh(Key key);
// Get(key).number (INT, BYTES, MS, BOOL, ENUM); kInternal for an unset variable without a
// default (read those with Get).
Result<int64_t> Int(Key key);
// Get(key).text: the canonical text, empty when unset without a default.
Result<std::string> Text(Key key);
// For the few readers that have no way to report an error (the logger, header code shared
// with plugins): the value, or the default when the text is malformed. Check() reports that
// error when a context is created.
param::Value ValueOrDefault(Key key);

// The first malformed host variable, as Get reports it. The launch variables (audience
// WEFT_BK_PARAM_LAUNCH) are left to backends/env, which reads them only where their launch
// convention applies (SPEC §8).
Status Check();

// Keeps the host values as they are while it lives; the first Pinned made while none lives
// re-reads the environment first.
class Pinned {
 public:
  Pinned();
  ~Pinned();
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
};

// Forgets the cached host values, so that the next read sees the environment as it is now.
// Tests only, and only while no context exists.
void ReloadForTesting();

// One variable as the environment has it.
struct Setting {
  const weft_bk_param_t* spec = nullptr;  // the declaration (a plugin's: valid while loaded)
  std::string raw;  // the text in effect (the environment's, else the tuning file's); empty: unset
  bool from_file = false;  // raw is the tuning file's
  param::Parsed parsed;
};

// The host variables, as cached.
std::vector<Setting> HostSettings();
// `specs` read from the environment now (a plugin's variables).
std::vector<Setting> ReadSettings(std::span<const weft_bk_param_t> specs);
// The first malformed one as kInvalidArgument, else Ok.
Status FirstError(const std::vector<Setting>& settings);

// The listing of weftrun --print-params: a title line, then one line per variable (name,
// value, default, where the value came from, must-match, audience, doc), then the errors.
std::string FormatListing(const std::string& title, const std::vector<Setting>& settings);

// Whose variables a group of declarations is, for docs/parameters.md.
struct Owner {
  std::string name;  // "libweft", "gloo plugin"
  std::span<const weft_bk_param_t> specs;
};
// The generated part of docs/parameters.md: one table per audience.
std::string MarkdownTables(const std::vector<Owner>& owners);

// A must-match variable's canonical value.
struct MatchValue {
  std::string name;
  std::string value;
};
// The must-match variables of `settings` (unset ones as "(unset)"), in order.
std::vector<MatchValue> MustMatch(const std::vector<Setting>& settings);
// A text form for the store, and back (kInvalidArgument for text Encode did not make).
std::string EncodeMatches(const std::vector<MatchValue>& values);
Result<std::vector<MatchValue>> DecodeMatches(const std::string& text);
// Empty when every variable is equal; else the first difference, e.g.
// "WEFT_UCX_ALLGATHER_DIRECT is 0 on rank 2 but 1 on rank 0".
std::string FirstMismatch(const std::vector<MatchValue>& mine, int32_t my_rank,
                          const std::vector<MatchValue>& theirs, int32_t their_rank);

}  // namespace weft::params
