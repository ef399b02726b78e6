#include "common/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>

#include <memory>
#include <mutex>
#include <string>

#include "common/params.hpp"

namespace weft::log {
namespace {

std::shared_ptr<spdlog::logger> Make() {
  // stderr: stdout belongs to the application (and to collbench's tables).
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("weft", sink);
  // A malformed level falls back to warn here and fails weft_context_create (params::Check);
  // a program that creates no context is told on the log itself.
  const param::Value level = params::ValueOrDefault("WEFT_LOG_LEVEL");
  logger->set_level(spdlog::level::from_str(level.text));
  logger->set_pattern("[weft] [%l] %v");
  if (auto v = params::Get("WEFT_LOG_LEVEL"); !v.ok()) logger->warn("{}", v.status().message());
  return logger;
}

std::shared_ptr<spdlog::logger>& Instance() {
  static std::shared_ptr<spdlog::logger> logger = Make();
  return logger;
}

}  // namespace

spdlog::logger& Get() { return *Instance(); }

void SetRank(int rank) {
  Instance()->set_pattern("[weft rank " + std::to_string(rank) + "] [%l] %v");
}

}  // namespace weft::log
