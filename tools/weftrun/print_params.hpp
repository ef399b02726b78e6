// weftrun --print-params: the parameter registry's listing (docs/parameters.md) of libweft's
// variables and, when a backend is named, of its plugin's, as the environment sets them now.
#pragma once

#include <optional>
#include <string>

namespace weft::tools {

// Prints the listing to stdout (errors to stderr). `backend`: --backend, else WEFT_BACKEND,
// else none. Returns the exit status: 0, or 1 when a value is malformed or the plugin cannot
// be loaded.
int PrintParams(const std::optional<std::string>& backend);

}  // namespace weft::tools
