// Which function bodies of a ModuleReader are parsed and held while the
// driver checks one function: that function and every body its model may
// inline (the functions it calls, to the call-depth limit), plus the bodies
// of recently used `.func`s up to a bound, so that a helper called by
// thousands of kernels is not parsed again for each of them. Memory is then
// that of the largest call tree, not of the file.
//
// The cache: a `.func` enters it when a second function has used it (a body
// inlined into one kernel only, as each of vLLM's flash-attention kernels
// inlines its own instantiation, is released at once), and it holds at most
// kCachedTextBytes of PTX text, and no more than the module's largest
// function's text: about 9 bytes of syntax tree per byte of text (64-byte
// operands), so a small multiple of the largest function.
//
// A callee is any function with a body that a `call` names (model/Inliner
// resolves calls the same way: by the symbol, through Module::function).
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <vector>

#include "ptx/Parser.h"

namespace fenceline::ptx {

class HeldBodies {
 public:
  // Bodies kept after their function is checked, in bytes of their PTX
  // text (the module's largest function's text if that is less).
  static constexpr size_t kCachedTextBytes = size_t{2} << 20;

  HeldBodies(ModuleReader& reader, int maxCallDepth, size_t cachedTextBytes = kCachedTextBytes);

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
  size_t cachedTextBytes_;
  std::vector<size_t> held_;   // loaded by this hold()
  std::list<size_t> cache_;    // .funcs kept, most recently used first
  size_t cacheSize_ = 0;       // their PTX text, in bytes
  // Per function: in held_; where it is in cache_ (cache_.end() when not);
  // the holds that used it (up to 2).
  std::vector<bool> inHold_;
  std::vector<std::list<size_t>::iterator> inCache_;
  std::vector<uint8_t> uses_;
};

}  // namespace fenceline::ptx
