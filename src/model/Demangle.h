// The one demangler: display names for functions. nvcc's PTX uses
// Itanium-mangled names (`_Z6helperPi`), and .debug_str holds mangled linkage
// names too; users read the demangled form. The front end keeps names as the
// PTX has them; source frames (model/Program), the driver's kernel names and
// the checks' messages demangle through this function.
#pragma once

#include <string>
#include <string_view>

namespace fenceline::model {

// "_Z6helperPi" -> "helper(int*)"; a name that is not an Itanium C++ name
// (no `_Z` prefix, or one the demangler rejects) is returned unchanged.
std::string demangle(std::string_view name);

}  // namespace fenceline::model
