// Logging through spdlog: one logger per process, level from WEFT_LOG_LEVEL (trace, debug,
// info, warn, error, critical, off, or spdlog's warning and err; default warn), every line
// tagged with the world rank once known.
#pragma once

#include <spdlog/spdlog.h>

namespace weft::log {

// The process logger; created on first use.
spdlog::logger& Get();
// Tags later lines with "[weft rank R]". Called when a context learns its rank.
void SetRank(int rank);

}  // namespace weft::log

#define WEFT_LOG_DEBUG(...) ::weft::log::Get().debug(__VA_ARGS__)
#define WEFT_LOG_INFO(...) ::weft::log::Get().info(__VA_ARGS__)
#define WEFT_LOG_WARN(...) ::weft::log::Get().warn(__VA_ARGS__)
#define WEFT_LOG_ERROR(...) ::weft::log::Get().error(__VA_ARGS__)
