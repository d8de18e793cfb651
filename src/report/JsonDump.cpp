// A report document's text, its findings dumped one at a time (see JsonDump.h).
#include "report/JsonDump.h"

#include <algorithm>
#include <cassert>

namespace fenceline::report {

namespace {

using nlohmann::ordered_json;

std::string dump(const ordered_json& value) {
  return value.dump(2, ' ', false, ordered_json::error_handler_t::replace);
}

// Appends the dump of an element, every line shifted right by `indent`, as the
// dump of its enclosing document would place it.
void appendIndented(std::string& out, const std::string& text, const std::string& indent) {
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    out.append(indent).append(text, start, end - start);
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
}

}  // namespace

std::string documentText(const ordered_json& document) { return dump(document) + "\n"; }

std::string documentText(const ordered_json& document, const StreamedArray& array) {
  std::string text = documentText(document);
  if (array.count == 0) return text;
  // The dump puts each key on a line of its own, indented two spaces a level,
  // and an empty array as "[]"; a string's newlines are escaped, so the line
  // found is the key's and no string's.
  const std::string keyIndent(2 * array.depth, ' ');
  const std::string opening = "\n" + keyIndent + "\"" + std::string(array.key) + "\": [";
  const size_t at = text.find(opening + "]");
  assert(at != std::string::npos && "StreamedArray: no empty array of that key at that depth");
  const std::string elementIndent = keyIndent + "  ";
  std::string out = text.substr(0, at) + opening + "\n";
  for (size_t i = 0; i < array.count; ++i) {
    if (i > 0) out += ",\n";
    appendIndented(out, dump(array.element(i)), elementIndent);
  }
  out.append("\n").append(keyIndent).append("]").append(text, at + opening.size() + 1);
  return out;
}

}  // namespace fenceline::report
