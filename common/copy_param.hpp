// WEFT_COPY_SKEW_SLOW, declared on its own: common/copy.hpp (header-only, in libweft and in
// plugins) reads it, and libweft's table (common/host_params.hpp) lists it and checks it when
// a context is created. Apart from both, so that neither a new variable in that table nor a
// change to copy.hpp rebuilds what includes the other.
#pragma once

#include "common/param_parse.hpp"

namespace weft::params {

inline constexpr weft_bk_param_t kCopySkewSlowParam = param::DeclareBool(
    "WEFT_COPY_SKEW_SLOW", nullptr, param::kDebug, param::kLocal,
    "whether copies whose source and destination differ by a few bytes modulo 4 KiB are slow "
    "here (the workaround then bounces them); unset: measured once");

}  // namespace weft::params
