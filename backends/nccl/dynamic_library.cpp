#include "backends/nccl/dynamic_library.hpp"

#include <dlfcn.h>

namespace weft::backends::nccl_plugin {

std::unique_ptr<DynamicLibrary> DynamicLibrary::Open(const std::vector<std::string>& names,
                                                     std::string* why) {
  why->clear();
  for (const std::string& name : names) {
    // RTLD_LOCAL: the library's symbols serve this table only, never another library that
    // happens to look for the same names.
    if (void* h = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))
      return std::unique_ptr<DynamicLibrary>(new DynamicLibrary(h, name));
    const char* e = ::dlerror();
    *why += (why->empty() ? "" : "; ") + (e ? std::string(e) : name + ": cannot be opened");
  }
  return nullptr;
}

DynamicLibrary::~DynamicLibrary() { ::dlclose(handle_); }

void* DynamicLibrary::Lookup(const char* symbol) const { return ::dlsym(handle_, symbol); }

}  // namespace weft::backends::nccl_plugin
