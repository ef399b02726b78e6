// The host side a forked test rank gives the plugin: weft_bk_host_api_t over an FsStore,
// malloc, a thread-local error message, and a small reduction kernel (the real one is in
// device/host/reduce; this one only needs the dtypes the tests use).
#pragma once

#include <cstdint>
#include <string>

#include <weft/backend_plugin.h>

#include "tests/backends/gloo/fs_store.hpp"

namespace weft::test {

class TestHost {
 public:
  explicit TestHost(FsStore* store);
  const weft_bk_host_api_t* api() const { return &api_; }

  // The message of the plugin's last set_error on this thread.
  static std::string LastError();

 private:
  weft_bk_host_api_t api_{};
  FsStore* store_;
};

// inout[i] = op(inout[i], in[i]) for float16 (IEEE half), float32, float64, int32 and
// complex128 (sum only); other dtypes give WEFT_ERR_UNSUPPORTED.
weft_status_t TestReduce(DLDataType dtype, int32_t op, void* inout, const void* in, uint64_t count);

// Fault tests: the next host reduce SIGKILLs this process, i.e. mid-allreduce.
void SetDieInReduce(bool die);

uint16_t FloatToHalf(float f);  // exact for the small integers the tests use
float HalfToFloat(uint16_t h);

}  // namespace weft::test
