// Which function bodies of a ModuleReader are parsed and held while the
// driver checks one function: that function and every body its model may
// inline (the functions it calls, to the call-depth limit), plus the bodies
// of recently used `.func`s up to a bound, so that a helper called by
// thousands of kernels is not parsed again for each of them. Memory is then
// that of the largest call tree, not of the file.
//
// A callee is any function with a body that a `call` names (model/Inliner
// resolves calls the same way: by the symbol, through Module::function).
#pragma once

#include <cstddef>
#include <list>
#include <vector>

#include "ptx/Parser.h"

namespace fenceline::ptx {

class HeldBodies {
 public:
  // Bodies kept after their function is checked, in instructions (about
  // 700 bytes each in the syntax tree).
  static constexpr size_t kCachedInstructions = size_t{1} << 16;

  HeldBodies(ModuleReader& reader, int maxCallDepth, size_t cachedInstructions = kCachedInstructions)
      : reader_(reader), maxCallDepth_(maxCallDepth), cachedInstructions_(cachedInstructions) {}

  // Loads function `index` and the bodies it may inline. Throws ParseError.
  void hold(size_t index);
  // Ends the current hold(): kernels are released, `.func`s go to the cache
  // (the least recently used leave it first).
  void release();

 private:
  void use(size_t index);  // loads and marks `index` as used by this hold
  void evict();

  ModuleReader& reader_;
  int maxCallDepth_;
  size_t cachedInstructions_;
  std::vector<size_t> held_;   // loaded by this hold()
  std::list<size_t> cache_;    // .funcs kept, most recently used first
  size_t cacheSize_ = 0;       // their instructions
  // Per function: in held_; where it is in cache_ (cache_.end() when not).
  std::vector<bool> inHold_;
  std::vector<std::list<size_t>::iterator> inCache_;
};

}  // namespace fenceline::ptx
