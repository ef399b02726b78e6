// The WEFT_GLOO_* variables the plugin reads, declared once (plugin ABI 1.3): the table goes to
// the host in the plugin's table, and gloo_device.cpp reads them through the same parser
// (common/param_parse.hpp). Header-only and free of Gloo, so that the docs test
// (tests/common/params_doc_test) can include it.
#pragma once

#include <cstddef>

#include "common/param_parse.hpp"

namespace weft::backends::gloo_plugin {
namespace params_table {
using namespace weft::param;  // Declare*, audiences, flags: the table reads as a table

inline constexpr weft_bk_param_t kParams[] = {
    DeclareString("WEFT_GLOO_IFACE", nullptr, kUser, kLocal,
                  "network interface the Gloo TCP device listens on (wins over "
                  "WEFT_GLOO_HOST); unset: 127.0.0.1 when every rank is on this host, else "
                  "the host name"),
    DeclareString("WEFT_GLOO_HOST", nullptr, kUser, kLocal,
                  "host name or address the Gloo TCP device listens on"),
};

}  // namespace params_table

using params_table::kParams;
inline constexpr size_t kNumParams = std::size(kParams);

}  // namespace weft::backends::gloo_plugin
