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

}  // namespace fenceline::driver
