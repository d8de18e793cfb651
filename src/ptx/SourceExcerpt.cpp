// See SourceExcerpt.h.
#include "ptx/SourceExcerpt.h"

#include <algorithm>

namespace fenceline::ptx {

std::string sourceExcerpt(std::string_view text, uint32_t offset, uint32_t column) {
  size_t at = std::min<size_t>(offset, text.size());
  size_t newline = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
  size_t begin = newline == std::string_view::npos ? 0 : newline + 1;
  size_t end = text.find('\n', at);
  if (end == std::string_view::npos) end = text.size();
  std::string_view line = text.substr(begin, end - begin);

  // Keep at most 160 columns, centred on the caret when the line is longer.
  size_t caret = column > 0 ? column - 1 : 0;
  caret = std::min(caret, line.size());
  size_t from = 0;
  constexpr size_t kWidth = 160;
  if (line.size() > kWidth && caret > kWidth / 2) from = std::min(caret - kWidth / 2, line.size() - kWidth);
  std::string_view shown = line.substr(from, kWidth);

  std::string out;
  out.reserve(2 * shown.size() + 4);
  for (char ch : shown) {
    unsigned char u = static_cast<unsigned char>(ch);
    out += (ch == '\t' || (u >= 0x20 && u < 0x7f)) ? ch : '?';
  }
  out += '\n';
  for (size_t i = from; i < caret; ++i) out += line[i] == '\t' ? '\t' : ' ';
  out += '^';
  return out;
}

}  // namespace fenceline::ptx
