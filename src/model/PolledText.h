// The time budget (Limits.h, poll()) for work that copies text: a value's
// name, a key built from its operands' names. Such work is one step of a
// stage's loop, yet a name may be megabytes long when its cap is raised
// (FENCELINE_MAX_NAME_LENGTH, UniformModes.cpp) or a key holds hundreds of
// bytes of each operand: polling once per name would let one name run far
// past the deadline, polling per character would cost more than the copy.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include "model/Limits.h"

namespace fenceline::model {

// poll() for work that copies `bytes` of text at once: one decrement of the
// poll countdown per kBytesPerPoll copied (at most one poll interval), so
// that a run of long copies meets the deadline as a run of instructions does.
inline constexpr size_t kBytesPerPoll = 4096;
inline void pollBytes(size_t bytes) {
  detail::pollCountdown -=
      1 + static_cast<int>(std::min<size_t>(bytes / kBytesPerPoll, static_cast<size_t>(detail::kPollInterval)));
  if (detail::pollCountdown > 0) return;
  detail::pollSlow();
}

// Appends `text` to `to` in pieces of at most kPollChunk bytes, polling after
// each: the copy of one long name stops within a piece of the deadline. A
// short text is one append and one decrement.
inline constexpr size_t kPollChunk = size_t{1} << 20;
inline void appendPolled(std::string& to, std::string_view text) {
  while (text.size() > kPollChunk) {
    to.append(text.substr(0, kPollChunk));
    text.remove_prefix(kPollChunk);
    pollBytes(kPollChunk);
  }
  to.append(text);
  pollBytes(text.size());
}

}  // namespace fenceline::model
