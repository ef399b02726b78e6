#include "backends/env/slurm_tasks_per_node.hpp"

#include <charconv>
#include <cstdint>
#include <string>

namespace weft::backends {
namespace {

Status Malformed(std::string_view list, std::string_view why) {
  return InvalidArgument("Slurm tasks-per-node list '" + std::string(list) +
                         "' is malformed: " + std::string(why));
}

// Parses a positive count at the front of `s` and advances past it.
bool TakeCount(std::string_view& s, int64_t& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || out < 1) return false;
  s.remove_prefix(static_cast<size_t>(end - s.data()));
  return true;
}

// One group: "N" or "N(xR)".
bool TakeGroup(std::string_view& s, int64_t& tasks, int64_t& repeat) {
  if (!TakeCount(s, tasks)) return false;
  repeat = 1;
  if (s.rfind("(x", 0) != 0) return true;
  s.remove_prefix(2);
  if (!TakeCount(s, repeat) || s.empty() || s.front() != ')') return false;
  s.remove_prefix(1);
  return true;
}

}  // namespace

Result<int64_t> SlurmTasksOnNode(std::string_view list, int64_t node_id) {
  std::string_view rest = list;
  int64_t first_node = 0;  // index of the group's first node
  std::optional<int64_t> found;
  // The whole list is checked, not only up to node_id: a malformed list means the variable is
  // not what we think it is, whichever node reads it.
  while (true) {
    int64_t tasks = 0, repeat = 0;
    if (!TakeGroup(rest, tasks, repeat)) return Malformed(list, "expected N or N(xR)");
    if (!found && node_id >= first_node && node_id - first_node < repeat) found = tasks;
    // Saturate: past node_id the exact count no longer matters, and it must not overflow.
    first_node = repeat > INT64_MAX - first_node ? INT64_MAX : first_node + repeat;
    if (rest.empty()) break;
    if (rest.front() != ',') return Malformed(list, "expected ',' between groups");
    rest.remove_prefix(1);
  }
  if (found) return *found;
  return Malformed(list, "it has no node " + std::to_string(node_id) + " (0-based)");
}

namespace detail {

Result<std::optional<NamedInt>> ReadSlurmLocalWorldSize(const EnvReader& env) {
  std::optional<EnvValue> list = env.Get("SLURM_STEP_TASKS_PER_NODE");
  if (!list) list = env.Get("SLURM_TASKS_PER_NODE");
  WEFT_ASSIGN_OR_RETURN(std::optional<NamedInt> node, ReadInt(env, "SLURM_NODEID", 0, kMaxInt32));
  if (!list || !node) return std::optional<NamedInt>();
  Result<int64_t> tasks = SlurmTasksOnNode(list->text, node->value);
  if (!tasks.ok()) {
    return InvalidArgument(list->name + " (with SLURM_NODEID=" + std::to_string(node->value) +
                           "): " + tasks.status().message());
  }
  return std::optional<NamedInt>(NamedInt{list->name, *tasks});
}

}  // namespace detail
}  // namespace weft::backends
