#include "api/src/handle_ref.hpp"

#include <cstdio>
#include <string>

namespace weft::api {
namespace {

const char* TypeName(uint32_t kind) {
  switch (static_cast<HandleKind>(kind)) {
    case HandleKind::kContext:
      return "weft_context_t";
    case HandleKind::kMesh:
      return "weft_mesh_t";
    case HandleKind::kLayout:
      return "weft_layout_t";
    case HandleKind::kPlan:
      return "weft_plan_t";
    case HandleKind::kWork:
      return "weft_work_t";
    case HandleKind::kRules:
      return "weft_rules_t";
    case HandleKind::kStrategy:
      return "weft_strategy_t";
    case HandleKind::kCheckpoint:
      return "weft_checkpoint_t";
  }
  return nullptr;
}

}  // namespace

Status HandleError(HandleFault fault, uintptr_t handle, HandleKind kind, const char* name) {
  const std::string n(name);
  const std::string type = TypeName(static_cast<uint32_t>(kind));
  const char* claimed = TypeName(HandleTable::ClaimedKind(handle));
  char value[32];
  std::snprintf(value, sizeof(value), "%#llx", static_cast<unsigned long long>(handle));
  switch (fault) {
    case HandleFault::kNone:
    case HandleFault::kNull:
      break;
    case HandleFault::kWrongKind:
      if (claimed != nullptr)
        return InvalidArgument(n + " is a " + claimed + " handle, not a " + type +
                               " (a handle passed as another type)");
      [[fallthrough]];
    case HandleFault::kForeign:
      return InvalidArgument(n + " is " + value + ", which is not a " + type +
                             " handle (never returned by Weft, or corrupted)");
    case HandleFault::kDestroyed:
      return InvalidArgument(n + " is a " + type + " handle that was destroyed (" + value + ")");
  }
  return InvalidArgument(n + " is NULL");
}

}  // namespace weft::api
