// The one demangler (see Demangle.h).
#include "model/Demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace fenceline::model {

std::string demangle(std::string_view name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return std::string(name);
  std::string mangled(name);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !text) return mangled;
  return std::string(text.get());
}

}  // namespace fenceline::model
