// Finding the project root (see ProjectRoot.h).
#include "driver/ProjectRoot.h"

namespace fenceline::driver {

namespace fs = std::filesystem;

fs::path projectRoot(const std::string& sarifRoot) {
  std::error_code error;
  fs::path cwd = fs::current_path(error);
  if (!sarifRoot.empty()) return fs::absolute(sarifRoot, error).lexically_normal();
  for (fs::path at = cwd; !at.empty(); at = at.parent_path()) {
    if (fs::exists(at / ".git", error)) return at;
    if (at == at.parent_path()) break;
  }
  return cwd;
}

}  // namespace fenceline::driver
