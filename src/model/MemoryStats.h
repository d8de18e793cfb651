// Optional memory statistics per function (FENCELINE_MEMSTATS=1 in the
// environment): what the executable's allocator counts for this thread
// (model/Limits.h, memory::) and its high-water mark, for measuring where
// the memory goes (docs/performance.md, issue 35). Off by default.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fenceline::model::memory {
// The most threadBytes reached since the last resetPeak() (0 without the
// counting allocator).
extern thread_local int64_t threadPeak;
inline void resetPeak(int64_t bytes) { threadPeak = bytes; }
}  // namespace fenceline::model::memory

namespace fenceline::model::memory {
// The executable's allocator (src/alloc) gives back what its free lists
// hold past a threshold: whole chunks of free blocks, and malloc's free
// pages. Set by that allocator; null without it. The driver calls
// giveBackFreeMemory() after each function.
extern void (*trimHook)();
inline void giveBackFreeMemory() {
  if (trimHook) trimHook();
}
// FENCELINE_MEMSTATS: this thread's bytes in the allocator's free lists and
// in the chunks it has mapped (set by that allocator; null without it).
extern void (*freeStatsHook)(int64_t& freeBytes, int64_t& chunkBytes);

// Whether FENCELINE_MEMSTATS is set (read once).
bool statsEnabled();
// With stats enabled: records this thread's bytes and peak at the end of a
// stage of buildFunctionModel (the driver prints and clears them).
void noteStage(const char* stage);
// With stats enabled: notes " hwm@WHERE+KiB" when the process's VmHWM rose
// since the last note (of any thread), so that a peak is placed at a stage,
// a check or the parse of a function's bodies (noteStage notes it at every
// stage); with FENCELINE_MEMSTATS=2 also " rss@WHERE=ANON/FILE" (KiB) at
// every note.
void noteResident(std::string_view where);
// "stage=bytes/peak ..." of the stages noted since the last call, cleared.
std::string takeStageNotes();
}  // namespace fenceline::model::memory
