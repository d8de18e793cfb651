// The text of a JSON or SARIF report document, with its one long array (the
// findings) dumped an element at a time. A tree of every finding at once is
// several times the text (NVSHMEM's device image, --strict: 30 MB of JSON,
// 50 MB of SARIF, and 136 and 212 MB more of peak memory for their trees);
// one element's tree at a time costs next to nothing, and the text is byte
// for byte the whole document's dump.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fenceline::report {

// `document` as the reports print it: two spaces an indent level, invalid
// UTF-8 (a file name or demangled name could carry any byte) replaced rather
// than thrown on, and a final newline.
std::string documentText(const nlohmann::ordered_json& document);

// The array a document's text gets an element at a time: `key` (a plain name,
// nothing in it that JSON escapes) names an empty array of the document, the
// first of that key in an object `depth` levels deep (1: a key of the document
// itself); its `count` elements are made, dumped and dropped one at a time by
// `element(i)`.
struct StreamedArray {
  std::string_view key;
  int depth = 1;
  size_t count = 0;
  std::function<nlohmann::ordered_json(size_t)> element;
};

// documentText of `document` with `array` filled in: the same text as if the
// document had held every element.
std::string documentText(const nlohmann::ordered_json& document, const StreamedArray& array);

}  // namespace fenceline::report
