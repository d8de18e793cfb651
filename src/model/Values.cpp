#include "model/Values.h"
namespace fenceline::model {
struct ValueAnalysis::Impl { const FunctionModel* fn; };
ValueAnalysis::ValueAnalysis(const FunctionModel& fn) : impl_(std::make_shared<Impl>(Impl{&fn})) {}
AbstractValue ValueAnalysis::valueOf(ValueReg, InstId) const { return {}; }
AbstractValue ValueAnalysis::operandValue(InstId, int) const { return {}; }
Space ValueAnalysis::addressSpace(InstId at, int) const { return impl_->fn->instructions[at].effect.space; }
bool ValueAnalysis::mayAlias(InstId, int, InstId, int) const { return true; }
bool ValueAnalysis::sameObject(InstId, int, InstId, int) const { return false; }
}  // namespace fenceline::model
