// Resolving functions of a library opened with dlopen (the CUDA driver, NVRTC).
#pragma once
#include <dlfcn.h>

#include <initializer_list>
#include <string>

namespace tessera::gpu {

// Stores the first of `names` that `lib` exports into `slot`; otherwise appends the first
// name to the comma-separated `missing` list and returns false.
template <typename F>
bool BindSymbol(void* lib, F& slot, std::initializer_list<const char*> names, std::string* missing) {
  for (const char* n : names) {
    if (void* sym = dlsym(lib, n)) {
      slot = reinterpret_cast<F>(sym);
      return true;
    }
  }
  if (!missing->empty()) *missing += ", ";
  *missing += *names.begin();
  return false;
}

}  // namespace tessera::gpu
