// Display names for functions: nvcc's PTX uses Itanium-mangled names
// (`_Z6helperPi`), and .debug_str may hold mangled linkage names too. Users
// read the demangled form, so source frames carry it.
#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "model/Build.h"

namespace fenceline::model::detail {

std::string demangle(std::string_view name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return std::string(name);
  std::string mangled(name);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !text) return mangled;
  return std::string(text.get());
}

}  // namespace fenceline::model::detail
