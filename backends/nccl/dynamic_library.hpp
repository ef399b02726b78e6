// A shared library opened with dlopen and closed when the handle goes; symbols are looked up
// by name into typed function pointers. One mechanism for both of the NCCL backend's run-time
// dependencies (the CUDA runtime, NCCL): neither is linked, so the plugin loads on a machine
// without them and says what is missing when asked for a context.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace weft::backends::nccl_plugin {

class DynamicLibrary {
 public:
  // The first of `names` that opens (each a path or a name the dynamic linker searches);
  // nullptr and `why` (every name with dlerror's reason) when none does.
  static std::unique_ptr<DynamicLibrary> Open(const std::vector<std::string>& names,
                                              std::string* why);
  ~DynamicLibrary();
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  // Resolves `symbol` into `*fn`; false (and `missing` gets the name appended) when absent.
  template <typename Fn>
  bool Resolve(const char* symbol, Fn* fn, std::string* missing) const {
    *fn = reinterpret_cast<Fn>(Lookup(symbol));
    if (*fn) return true;
    *missing += (missing->empty() ? "" : ", ") + std::string(symbol);
    return false;
  }
  const std::string& name() const { return name_; }

 private:
  DynamicLibrary(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
  void* Lookup(const char* symbol) const;
  void* handle_;
  std::string name_;
};

}  // namespace weft::backends::nccl_plugin
