#include "backends/ucx/transport/failure_record.hpp"

namespace weft::backends::ucx_plugin {

bool FailureRecord::StartAbort(weft_status_t status, int32_t failed_rank,
                               const std::string& reason) {
  if (aborted_) return false;
  aborted_ = true;
  abort_status_ = status == WEFT_OK ? WEFT_ERR_ABORTED : status;
  abort_message_ = reason;
  if (first_failure_ == WEFT_OK) {
    first_failure_ = abort_status_;
    first_failed_rank_ = failed_rank;
  }
  return true;
}

void FailureRecord::Record(weft_status_t status, int32_t failed_rank) {
  if (first_failure_ != WEFT_OK) return;
  first_failure_ = status;
  first_failed_rank_ = failed_rank;
}

}  // namespace weft::backends::ucx_plugin
