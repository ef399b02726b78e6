// The WEFT_* variables of the NCCL backend, declared once: the plugin's table goes to the host
// (plugin ABI 1.3) and the library tables (cuda_api.hpp, nccl_api.hpp) read them through the
// same parser. Header-only, so that the docs test (tests/common/params_doc_test) includes it.
#pragma once

#include <cstddef>

#include "common/param_parse.hpp"

namespace weft::backends::nccl_plugin {
namespace params_table {
using namespace weft::param;  // Declare*, audiences, flags: the table reads as a table

inline constexpr weft_bk_param_t kParams[] = {
    DeclareString("WEFT_NCCL_LIBRARY", nullptr, kUser, kLocal,
                  "the NCCL library the plugin opens (a path or a name the dynamic linker "
                  "finds); unset: libnccl.so.2"),
    DeclareString("WEFT_CUDART_LIBRARY", nullptr, kUser, kLocal,
                  "the CUDA runtime library the plugin opens; unset: libcudart.so.13, then "
                  "libcudart.so.12, then libcudart.so"),
    DeclareInt("WEFT_NCCL_WATCHDOG_MS", "100", 0, 60000, kUser, kLocal,
               "period of the thread that polls NCCL's asynchronous errors, so that a dead "
               "peer aborts the communicators (and frees streams waiting on them) with no call "
               "into Weft; 0: only calls poll"),
    DeclareBool("WEFT_NCCL_DEVICE_TIMEOUTS", "1", kUser, kLocal,
                "record an event after every operation on device buffers, which the host does "
                "not wait for, so that the watchdog aborts the communicators when one is still "
                "running past its timeout (counted from the enqueue) and the next call fails "
                "with WEFT_ERR_TIMEOUT; 0: no timeout once enqueued (one event record less per "
                "call)"),
};

}  // namespace params_table

using params_table::kParams;
inline constexpr size_t kNumParams = std::size(kParams);

}  // namespace weft::backends::nccl_plugin
