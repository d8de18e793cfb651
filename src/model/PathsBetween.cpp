#include "model/PathsBetween.h"

#include "model/Paths.h"

namespace fenceline::model {

std::vector<char> instructionsBetween(const FunctionModel& fn, InstId from, InstId to) {
  std::vector<char> marks(fn.instructions.size(), 0);
  auto never = [](InstId) { return false; };
  // The walks record what they visit in `stop`, and end at either endpoint.
  findAllReachable(fn, from, never, [&](InstId i) {
    if (i == from || i == to) return true;
    marks[i] |= 1;
    return false;
  });
  findReachingBackward(fn, to, never, [&](InstId i) {
    if (i == from || i == to) return true;
    marks[i] |= 2;
    return false;
  });
  for (char& m : marks) m = m == 3;
  return marks;
}

}  // namespace fenceline::model
