// A host API for the plugin under test: a store of one file per key in a directory the forked
// ranks share, set_error into a thread-local string, log lines kept for the test to look at,
// and int32 sum and max reductions (enough for the small all-reduce tests).
#pragma once

#include <string>

#include <weft/backend_plugin.h>

namespace weft::test::ucx {

class FileStoreHost {
 public:
  explicit FileStoreHost(std::string dir);
  const weft_bk_host_api_t* api() const { return &api_; }
  // The message the plugin reported last on this thread.
  static std::string LastError();
  // Whether the plugin logged a line containing `part` (any level) in this process.
  static bool Logged(const std::string& part);

 private:
  std::string dir_;
  weft_bk_host_api_t api_{};
};

}  // namespace weft::test::ucx
