// A document's text with one array dumped an element at a time
// (report/JsonDump.h) is byte for byte the dump of the whole document: at the
// top level and nested (SARIF's results), the array followed by a key or last
// in its object, elements with nested arrays, escaped newlines and invalid
// UTF-8 in their strings.
#include <gtest/gtest.h>

#include <vector>

#include <nlohmann/json.hpp>

#include "report/JsonDump.h"

using namespace fenceline::report;
using nlohmann::ordered_json;

namespace {

std::vector<ordered_json> elements() {
  return {ordered_json{{"message", "two\nlines, and \"results\": []"},
                       {"notes", ordered_json::array()},
                       {"steps", ordered_json::array({1, ordered_json{{"at", "\xff\xfe"}}})}},
          ordered_json::array(),
          ordered_json("a string element"),
          ordered_json{{"empty", ordered_json::object()}}};
}

// The text of `document` with every element in its array at `path`, from one dump.
std::string wholeText(ordered_json document, const ordered_json::json_pointer& path) {
  for (const auto& element : elements()) document[path].push_back(element);
  return documentText(document);
}

std::string streamedText(const ordered_json& document, std::string_view key, int depth) {
  const auto list = elements();
  return documentText(document, {key, depth, list.size(), [&](size_t i) { return list[i]; }});
}

TEST(JsonDump, TopLevelArrayFollowedByKeys) {
  ordered_json document{{"version", 1}, {"diagnostics", ordered_json::array()}, {"stats", {{"complete", true}}}};
  EXPECT_EQ(streamedText(document, "diagnostics", 1), wholeText(document, "/diagnostics"_json_pointer));
}

TEST(JsonDump, NestedArrayLastInItsObject) {
  ordered_json run{{"tool", {{"name", "fenceline"}}}, {"results", ordered_json::array()}};
  ordered_json document{{"version", "2.1.0"}, {"runs", ordered_json::array({run})}};
  EXPECT_EQ(streamedText(document, "results", 3), wholeText(document, "/runs/0/results"_json_pointer));
}

TEST(JsonDump, NoElementsIsTheDocumentAsItIs) {
  ordered_json document{{"diagnostics", ordered_json::array()}, {"stats", ordered_json::object()}};
  EXPECT_EQ(documentText(document, {"diagnostics", 1, 0, [](size_t) { return ordered_json(); }}),
            documentText(document));
  EXPECT_EQ(documentText(document), "{\n  \"diagnostics\": [],\n  \"stats\": {}\n}\n");
}

}  // namespace
