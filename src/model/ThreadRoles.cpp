#include "model/ThreadRoles.h"
namespace fenceline::model {
struct ThreadRoles::Impl {};
ThreadRoles::ThreadRoles(const FunctionModel&) : impl_(std::make_shared<Impl>()) {}
ThreadSet ThreadRoles::blockSet(BlockId) const { return ThreadSet::All; }
ThreadSet ThreadRoles::instructionSet(InstId) const { return ThreadSet::All; }
ThreadSet ThreadRoles::predicateSet(ValueReg, bool, InstId) const { return ThreadSet::All; }
std::string_view toString(ThreadSet s) {
  static constexpr std::string_view names[] = {"all", "one-lane", "one-thread", "one-warp", "one-block-thread", "subset"};
  return names[static_cast<size_t>(s)];
}
}  // namespace fenceline::model
