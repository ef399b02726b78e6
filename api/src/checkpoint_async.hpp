// The asynchronous save's background half. The calling thread has agreed on the arguments,
// reduced Partials, packed this rank's boxes into reused staging memory and gathered every
// checksum; what is left touches only files, so it runs on a thread of its own and never
// communicates (a collective there would interleave with the caller's later ones). The ranks
// meet through the temporary directory instead: each writer leaves a marker once its file is
// durable (or a failure note), rank 0 publishes when every marker is there, and the others
// wait for the published index carrying this save's id (or rank 0's failure note).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checkpoint/index.hpp"
#include "common/status.hpp"
#include "weft/types.h"

namespace weft::api::ckpt {

// Staging memory reused across saves (a process-wide pool of a few buffers).
class Staging {
 public:
  explicit Staging(size_t bytes);
  ~Staging();
  Staging(Staging&&) = default;
  Staging& operator=(Staging&&) = default;
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  char* data() { return buf_.data(); }
  const char* data() const { return buf_.data(); }

 private:
  std::vector<char> buf_;
};

struct BackgroundSave {
  std::string tmp, path;
  int32_t rank = 0;
  bool overwrite = false;
  int64_t timeout_ms = 0;  // 0: ten minutes; < 0: none
  std::string header;      // empty: this rank writes no file
  Staging data{0};         // the data section
  uint64_t data_bytes = 0;
  std::vector<int32_t> writers;  // rank 0: whose markers to wait for
  checkpoint::Index index;       // rank 0: what to publish
  std::string save_id;
};

// Starts the background half and hands out its work handle.
Status Launch(BackgroundSave job, weft_work_t** work);

}  // namespace weft::api::ckpt
