// The folder that SARIF URIs and finding fingerprints are relative to: the
// one given with --sarif-root, else the root of the git work tree holding the
// working directory (the nearest folder with a `.git` entry: a folder, or a
// file in a worktree or submodule), else the working directory. With the
// repository root as default, GitHub code scanning maps every finding inside
// the repository to its file without configuration.
#pragma once

#include <filesystem>
#include <string>

namespace fenceline::driver {

std::filesystem::path projectRoot(const std::string& sarifRoot);

}  // namespace fenceline::driver
