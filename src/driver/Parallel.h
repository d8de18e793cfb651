// Checking inputs in parallel (-j N): a fixed pool of threads takes inputs in
// order; results land in per-input slots, so output keeps the input order
// whatever finishes first. On a terminal, a run that lasts more than a moment
// shows "[done/total] path" progress on stderr.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace fenceline::driver {

void forEachInParallel(size_t count, unsigned jobs, const std::function<void(size_t)>& work,
                       const std::function<std::string(size_t)>& label);

// The same, and `consume(i)` is called on the calling thread for each input
// in input order, as soon as it and every input before it are done (a report
// that streams: the first file's findings are printed while the rest are
// still being checked). The progress line is cleared before each call.
void forEachInParallel(size_t count, unsigned jobs, const std::function<void(size_t)>& work,
                       const std::function<std::string(size_t)>& label, const std::function<void(size_t)>& consume);

}  // namespace fenceline::driver
