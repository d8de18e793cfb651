// Display forms of recorded function and file names (see DisplayNames.h).
#include "report/DisplayNames.h"

#include <cctype>
#include <filesystem>

namespace fenceline::report {

namespace {

// nvcc's internal-linkage namespace: `<prefix><8 hex>_<n>_<n characters: the
// file name with '.' as '_'>_<8 hex>`, sometimes followed by `_<digits>`.
// Returns its length at `at`, or 0 when the text there is not one.
size_t internalNamespaceLength(std::string_view text, size_t at, std::string_view prefix) {
  if (text.substr(at, prefix.size()) != prefix) return 0;
  size_t i = at + prefix.size();
  auto hex8 = [&](size_t from) {
    if (from + 8 > text.size()) return false;
    for (size_t k = from; k < from + 8; ++k)
      if (!std::isxdigit(static_cast<unsigned char>(text[k]))) return false;
    return true;
  };
  if (!hex8(i) || i + 8 >= text.size() || text[i + 8] != '_') return 0;
  i += 9;
  size_t fileLength = 0, digits = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
    fileLength = fileLength * 10 + static_cast<size_t>(text[i++] - '0');
  if (i == digits || i >= text.size() || text[i] != '_') return 0;
  i += 1 + fileLength;
  if (i >= text.size() || text[i] != '_' || !hex8(i + 1)) return 0;
  i += 9;
  if (i + 1 < text.size() && text[i] == '_' && std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  }
  return i - at;
}

// Only at the start of a name component: after nothing, `::`, `<`, `(`, `,` or a space.
bool startsComponent(std::string_view text, size_t at) {
  if (at == 0) return true;
  char before = text[at - 1];
  return before == ':' || before == '<' || before == '(' || before == ',' || before == ' ' || before == '&' ||
         before == '*';
}

}  // namespace

std::string displayFunction(std::string_view name) {
  if (name.find("_INTERNAL_") == std::string_view::npos && name.find("_GLOBAL__N__") == std::string_view::npos)
    return std::string(name);
  std::string out;
  for (size_t i = 0; i < name.size();) {
    if (startsComponent(name, i)) {
      if (size_t length = internalNamespaceLength(name, i, "_INTERNAL_")) {
        i += length;
        if (name.substr(i, 2) == "::") i += 2;
        continue;
      }
      if (size_t length = internalNamespaceLength(name, i, "_GLOBAL__N__")) {
        out += "(anonymous namespace)";
        i += length;
        continue;
      }
    }
    out += name[i++];
  }
  return out;
}

std::string displayFile(std::string_view path) {
  if (!path.starts_with('/') || (path.find("/.") == std::string_view::npos && path.find("//") == std::string_view::npos))
    return std::string(path);
  return std::filesystem::path(path).lexically_normal().string();
}

}  // namespace fenceline::report
