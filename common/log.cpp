#include "common/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

namespace weft::log {
namespace {

std::shared_ptr<spdlog::logger> Make() {
  // stderr: stdout belongs to the application (and to collbench's tables).
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("weft", sink);
  const char* level = std::getenv("WEFT_LOG_LEVEL");
  logger->set_level(level ? spdlog::level::from_str(level) : spdlog::level::warn);
  logger->set_pattern("[weft] [%l] %v");
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
