// Markdown to ANSI-styled text (see TerminalMarkdown.h).
#include "driver/TerminalMarkdown.h"

#include "report/SourceText.h"

namespace fenceline::driver {

namespace {

constexpr std::string_view kBold = "\x1b[1m", kUnderline = "\x1b[4m", kCode = "\x1b[36m", kReset = "\x1b[0m";

// Inline spans of one line: `code`, **strong**, *emphasis*, [text](url).
std::string renderInline(std::string_view line) {
  std::string out;
  for (size_t i = 0; i < line.size();) {
    if (line[i] == '`') {
      size_t close = line.find('`', i + 1);
      if (close != std::string_view::npos) {
        out += std::string(kCode) + std::string(line.substr(i + 1, close - i - 1)) + std::string(kReset);
        i = close + 1;
        continue;
      }
    }
    if (line.substr(i, 2) == "**") {
      size_t close = line.find("**", i + 2);
      if (close != std::string_view::npos) {
        out += std::string(kBold) + renderInline(line.substr(i + 2, close - i - 2)) + std::string(kReset);
        i = close + 2;
        continue;
      }
    }
    if (line[i] == '*' && i + 1 < line.size() && line[i + 1] != ' ') {
      size_t close = line.find('*', i + 1);
      if (close != std::string_view::npos) {
        out += std::string(kUnderline) + renderInline(line.substr(i + 1, close - i - 1)) + std::string(kReset);
        i = close + 1;
        continue;
      }
    }
    if (line[i] == '[') {
      size_t middle = line.find("](", i);
      size_t close = middle == std::string_view::npos ? middle : line.find(')', middle);
      if (close != std::string_view::npos) {
        out += renderInline(line.substr(i + 1, middle - i - 1)) + " <" +
               std::string(line.substr(middle + 2, close - middle - 2)) + ">";
        i = close + 1;
        continue;
      }
    }
    out += line[i++];
  }
  return out;
}

std::string renderHeading(std::string_view line) {
  size_t level = line.find_first_not_of('#');
  std::string text = renderInline(line.substr(std::min(line.size(), level + 1)));
  std::string style = level == 1 ? std::string(kBold) + std::string(kUnderline) : std::string(kBold);
  return style + text + std::string(kReset);
}

std::string renderListItem(std::string_view line) {
  size_t indent = line.find_first_not_of(' ');
  return std::string(indent, ' ') + "• " + renderInline(line.substr(indent + 2));
}

}  // namespace

std::string renderMarkdownForTerminal(const std::string& markdown) {
  std::string out;
  bool inCode = false;
  for (const auto& line : report::splitLines(markdown)) {
    std::string_view text = line;
    size_t indent = text.find_first_not_of(' ');
    std::string_view body = indent == std::string_view::npos ? std::string_view() : text.substr(indent);
    if (body.starts_with("```")) {
      inCode = !inCode;
      continue;
    }
    if (inCode)
      out += "    " + std::string(kCode) + line + std::string(kReset);
    else if (text.starts_with("#"))
      out += renderHeading(text);
    else if (body.starts_with("- ") || body.starts_with("* "))
      out += renderListItem(text);
    else
      out += renderInline(text);
    out += '\n';
  }
  return out;
}

}  // namespace fenceline::driver
