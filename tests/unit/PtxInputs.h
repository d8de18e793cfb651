// Access to the nvcc-generated unit-test inputs (tests/unit/Inputs/*.cu,
// compiled to FENCELINE_TEST_PTX_DIR by tests/CMakeLists.txt).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "ptx/Ast.h"
#include "ptx/Parser.h"

namespace fenceline::testing {

inline std::string ptxInputPath(const std::string& name) { return std::string(FENCELINE_TEST_PTX_DIR) + "/" + name + ".ptx"; }

// The text of Inputs/<name>.ptx, or nullopt when it was not generated (no nvcc).
inline std::optional<std::string> readPtxInput(const std::string& name) {
  std::ifstream in(ptxInputPath(name), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Skips the calling test when the input is missing.
#define FENCELINE_LOAD_PTX(var, name)                                             \
  auto var##_text = ::fenceline::testing::readPtxInput(name);                     \
  if (!var##_text) GTEST_SKIP() << "no PTX for " << name << " (nvcc missing?)"; \
  const std::string& var = *var##_text

inline const ptx::Function& functionNamed(const ptx::Module& m, std::string_view name) {
  for (const auto& f : m.functions)
    if (f.name == name && f.hasBody) return f;
  throw std::runtime_error("no function " + std::string(name));
}

}  // namespace fenceline::testing
