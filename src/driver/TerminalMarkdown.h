// `fenceline explain` on a terminal: the doc page's Markdown rendered with
// ANSI styles, the way man pages read. Headings are bold (the title also
// underlined), **strong** is bold, *emphasis* is underlined, `code` and code
// blocks are cyan (blocks indented, fences dropped), list bullets become
// '•', links show their target after the text. Tables and everything else
// pass through. When stdout is not a terminal, explain prints the Markdown
// as it is: plain text that reads well and that other tools can process.
#pragma once

#include <string>

namespace fenceline::driver {

std::string renderMarkdownForTerminal(const std::string& markdown);

}  // namespace fenceline::driver
