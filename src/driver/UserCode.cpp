// The user's code and library code (see UserCode.h).
#include "driver/UserCode.h"

#include <filesystem>
#include <unordered_map>

#include "report/Frames.h"

namespace fenceline::driver {

namespace fs = std::filesystem;

namespace {

// Absolute and lexically normal: nvcc records toolkit headers as
// /usr/local/cuda/bin/../targets/x86_64-linux/include/...
std::string computeNormalized(const std::string& path) {
  if (path.empty()) return path;
  std::error_code error;
  fs::path absolute = fs::absolute(path, error);
  std::string text = (error ? fs::path(path) : absolute).lexically_normal().generic_string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

// Memoized per thread: every frame of every finding asks about its file, and
// a file's frames repeat (the working directory does not change during a run).
// Bounded, like the demangler's memo.
const std::string& normalized(const std::string& path) {
  constexpr size_t kMaxRemembered = 4096;
  thread_local std::unordered_map<std::string, std::string> memo;
  if (auto found = memo.find(path); found != memo.end()) return found->second;
  if (memo.size() >= kMaxRemembered) memo.clear();
  return memo.emplace(path, computeNormalized(path)).first->second;
}

bool under(const std::string& file, const std::string& folder) {
  if (folder.empty()) return false;
  if (folder == "/") return true;
  return file.size() > folder.size() && file.compare(0, folder.size(), folder) == 0 && file[folder.size()] == '/';
}

constexpr const char* kSystemFolders[] = {"/usr/include", "/usr/lib", "/usr/local/include"};
constexpr const char* kPackageFolders[] = {"/site-packages/", "/dist-packages/"};

}  // namespace

UserCode::UserCode(std::vector<std::string> systemPrefixes, std::vector<std::string> userRoots) {
  for (const auto& prefix : systemPrefixes)
    if (!prefix.empty()) systemPrefixes_.push_back(normalized(prefix));
  for (const char* folder : kSystemFolders) systemPrefixes_.push_back(folder);
  for (const auto& root : userRoots)
    if (!root.empty()) userRoots_.push_back(normalized(root));
}

bool UserCode::isSystem(const std::string& file) const {
  if (file.empty()) return false;
  const std::string& path = normalized(file);
  for (const auto& prefix : systemPrefixes_)
    if (under(path, prefix)) return true;
  for (const char* folder : kPackageFolders)
    if (path.find(folder) != std::string::npos) return true;
  return false;
}

bool UserCode::isLibrary(const std::string& file) const {
  if (file.empty()) return false;
  if (isSystem(file)) return true;
  const std::string& path = normalized(file);
  for (const auto& root : userRoots_)
    if (under(path, root)) return false;
  return true;
}

void UserCode::choosePrimary(report::Location& location) const {
  location.primary = 0;
  if (location.frames.empty()) return;
  auto primary = report::choosePrimary(location.frames, [&](const std::string& f) { return isLibrary(f); });
  if (!primary) primary = report::choosePrimary(location.frames, [&](const std::string& f) { return isSystem(f); });
  location.primary = primary.value_or(0);
}

std::string projectRootOf(const std::string& file) {
  fs::path folder = fs::path(normalized(file)).parent_path();
  std::error_code error;
  for (fs::path at = folder; !at.empty(); at = at.parent_path()) {
    if (fs::exists(at / ".git", error)) return at.string();
    if (at == at.root_path()) break;
  }
  return folder.string();
}

std::vector<std::string> isystemDirs(const std::vector<std::string>& flags) {
  std::vector<std::string> dirs;
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string& flag = flags[i];
    if (flag == "-isystem" && i + 1 < flags.size())
      dirs.push_back(flags[++i]);
    else if (flag.starts_with("-isystem") && flag.size() > 8)
      dirs.push_back(flag.substr(flag[8] == '=' ? 9 : 8));
  }
  return dirs;
}

}  // namespace fenceline::driver
