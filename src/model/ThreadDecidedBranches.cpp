// Blocks no thread runs (see ThreadDecidedBranches.h). Each conditional
// branch's predicate is compiled once into a small expression over %tid.x
// (or found to depend on something else), then evaluated for every thread
// index its guards allow.
#include "model/ThreadDecidedBranches.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string_view>

#include "model/BranchEdges.h"
#include "model/GuardedRanges.h"
#include "model/Operands.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

using Kind = ptx::Operand::Kind;
constexpr int kMaxDepth = 12;
constexpr int64_t kMostThreadsTried = 1024;

// An expression over the thread index: integer nodes and predicate nodes.
struct Node {
  enum class Op : uint8_t { Constant, ThreadIndex, Add, Sub, Mul, Shl, Shr, And, Or, Xor, Not, Neg, Convert,
                            Compare, PredAnd, PredOr, PredXor, PredNot, Select, Unknown };
  Op op = Op::Constant;
  int width = 32;       // bits of the result (integers)
  bool isSigned = false;
  std::string_view compare;  // eq, ne, lt, ... (Compare)
  uint64_t constant = 0;     // Constant: the value; Convert: the source width
  int a = -1, b = -1, c = -1;  // operand nodes

  explicit Node(Op o, int w = 32, bool s = false, uint64_t k = 0) : op(o), width(w), isSigned(s), constant(k) {}
};

uint64_t mask(int width) { return width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1; }
int64_t signExtend(uint64_t v, int width) {
  if (width >= 64) return static_cast<int64_t>(v);
  const uint64_t sign = uint64_t(1) << (width - 1);
  v &= mask(width);
  return static_cast<int64_t>((v ^ sign) - sign);
}

// The width and signedness of an instruction's first sized type modifier.
std::pair<int, bool> typeOf(const Inst& in) {
  for (const auto& m : in.syntax->modifiers)
    if (int64_t bytes = typeWidth(m); bytes > 0) return {static_cast<int>(bytes * 8), m[0] == 's'};
  return {32, false};
}

class Compiler {
 public:
  explicit Compiler(const FunctionModel& fn) : fn_(fn) {}
  // threeDims: %tid.y and %tid.z are thread-index nodes too (Node::constant
  // names the dimension). allowed: of a register's several reaching
  // definitions, only those it accepts count.
  Compiler(const FunctionModel& fn, bool threeDims, const std::function<bool(InstId)>* allowed)
      : fn_(fn), threeDims_(threeDims), allowed_(allowed) {}
  std::vector<Node> nodes;

  // An integer operand's node, or -1 when it is not a function of %tid.x
  // and constants. A predicate operand always has a node: Unknown where its
  // value is not such a function, so that `p && q` is decided by a false p.
  int operand(const ptx::Operand& op, InstId at, int depth) {
    if (op.kind == Kind::Integer) return add(Node(Node::Op::Constant, 64, false, static_cast<uint64_t>(op.intValue)));
    if (op.kind == Kind::Special) {
      if (op.text == "%tid.x") return add(Node(Node::Op::ThreadIndex));
      if (threeDims_ && (op.text == "%tid.y" || op.text == "%tid.z"))
        return add(Node(Node::Op::ThreadIndex, 32, false, op.text == "%tid.y" ? 1 : 2));
      return -1;
    }
    if (op.kind != Kind::Register || op.reg < 0) return -1;
    const bool predicate = static_cast<size_t>(op.reg) < fn_.registerTypes.size() && fn_.registerTypes[op.reg] == ".pred";
    int node = -1;
    if (depth <= kMaxDepth) {
      std::vector<InstId> defs = fn_.values->reachingDefinitions(op.reg, at);
      if (defs.size() > 1 && allowed_)
        defs.erase(std::remove_if(defs.begin(), defs.end(), [&](InstId d) { return !(*allowed_)(d); }), defs.end());
      if (defs.size() == 1) node = definition(defs[0], depth + 1);
    }
    return node < 0 && predicate ? add(Node(Node::Op::Unknown)) : node;
  }
  // The node of the value instruction `def` writes, or -1.
  int ofDefinition(InstId def) { return definition(def, 0); }

 private:
  int add(Node n) {
    nodes.push_back(n);
    return static_cast<int>(nodes.size()) - 1;
  }

  int definition(InstId def, int depth) {
    const Inst& in = fn_.instructions[def];
    const auto& ops = in.operands;
    const std::string_view opcode = in.opcode();
    // (Not a structured binding: clang 14 cannot capture one in the lambda below.)
    const std::pair<int, bool> type = typeOf(in);
    const int width = type.first;
    const bool isSigned = type.second;
    auto arg = [&](size_t k) { return k < ops.size() ? operand(ops[k], def, depth) : -1; };
    using Op = Node::Op;
    static constexpr std::pair<std::string_view, Op> kBinary[] = {
        {"add", Op::Add}, {"sub", Op::Sub}, {"mul", Op::Mul}, {"shl", Op::Shl}, {"shr", Op::Shr},
        {"and", Op::And}, {"or", Op::Or},   {"xor", Op::Xor}};
    const bool predicate = !ops.empty() && ops[0].kind == Kind::Register && ops[0].reg >= 0 &&
                           static_cast<size_t>(ops[0].reg) < fn_.registerTypes.size() &&
                           fn_.registerTypes[ops[0].reg] == ".pred";
    if (opcode == "setp" && ops.size() >= 3 && ops[1].kind != Kind::PredicatePair) {
      int a = arg(1), b = a >= 0 ? arg(2) : -1;
      if (a < 0 || b < 0) return -1;
      Node n(Op::Compare, width, isSigned);
      for (std::string_view c : {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"})
        if (in.hasModifier(c)) n.compare = c;
      if (n.compare.empty()) return -1;
      n.a = a;
      n.b = b;
      return add(n);
    }
    if (predicate && (opcode == "and" || opcode == "or" || opcode == "xor") && ops.size() >= 3) {
      int a = arg(1), b = a >= 0 ? arg(2) : -1;
      if (a < 0 || b < 0) return -1;
      Node n(opcode == "and" ? Op::PredAnd : opcode == "or" ? Op::PredOr : Op::PredXor);
      n.a = a;
      n.b = b;
      return add(n);
    }
    if (predicate && opcode == "not") {
      int a = arg(1);
      if (a < 0) return -1;
      Node n(Op::PredNot);
      n.a = a;
      return add(n);
    }
    if (predicate) return -1;
    if (opcode == "mov" && ops.size() >= 2 && ops[1].kind != Kind::Vector) return arg(1);
    if (opcode == "cvt" && ops.size() >= 2) {
      for (const auto& m : in.syntax->modifiers)
        if (typeWidth(m) > 0 && m[0] == 'f') return -1;  // floating point
      const auto [source, sourceSigned] = [&] {
        int nth = 0;
        for (const auto& m : in.syntax->modifiers)
          if (int64_t bytes = typeWidth(m); bytes > 0 && nth++ == 1) return std::make_pair(int(bytes * 8), m[0] == 's');
        return std::make_pair(width, isSigned);
      }();
      int a = arg(1);
      if (a < 0) return -1;
      Node n(Op::Convert, width, sourceSigned);
      n.constant = static_cast<uint64_t>(source);
      n.a = a;
      return add(n);
    }
    if ((opcode == "not" || opcode == "neg") && ops.size() >= 2) {
      int a = arg(1);
      if (a < 0) return -1;
      Node n(opcode == "not" ? Op::Not : Op::Neg, width, isSigned);
      n.a = a;
      return add(n);
    }
    if (opcode == "selp" && ops.size() >= 4) {
      int a = arg(1), b = a >= 0 ? arg(2) : -1, c = b >= 0 ? arg(3) : -1;
      if (c < 0) return -1;
      Node n(Op::Select, width, isSigned);
      n.a = a;
      n.b = b;
      n.c = c;
      return add(n);
    }
    for (const auto& [name, op] : kBinary) {
      if (opcode != name || ops.size() < 3) continue;
      if (op == Op::Mul && !in.hasModifier("lo") && width != 16) return -1;  // mul.hi / mul.wide: not modelled
      int a = arg(1), b = a >= 0 ? arg(2) : -1;
      if (a < 0 || b < 0) return -1;
      Node n(op, width, isSigned);
      n.a = a;
      n.b = b;
      return add(n);
    }
    return -1;
  }

  const FunctionModel& fn_;
  bool threeDims_ = false;
  const std::function<bool(InstId)>* allowed_ = nullptr;
};

// The value of node `k` for thread index `t` (%tid.x, y, z; integers: the
// low `width` bits; predicates: 0 or 1), or nothing where it rests on an
// Unknown.
std::optional<uint64_t> evaluate(const std::vector<Node>& nodes, int k, const int64_t (&t)[3]) {
  const Node& n = nodes[k];
  using Op = Node::Op;
  auto v = [&](int i) { return evaluate(nodes, i, t); };
  switch (n.op) {
    case Op::Unknown: return std::nullopt;
    case Op::PredAnd: {
      auto a = v(n.a), b = v(n.b);
      if (a == 0u || b == 0u) return 0;
      if (!a || !b) return std::nullopt;
      return 1;
    }
    case Op::PredOr: {
      auto a = v(n.a), b = v(n.b);
      if (a == 1u || b == 1u) return 1;
      if (!a || !b) return std::nullopt;
      return 0;
    }
    case Op::PredXor: {
      auto a = v(n.a), b = v(n.b);
      if (!a || !b) return std::nullopt;
      return *a ^ *b;
    }
    case Op::PredNot: {
      auto a = v(n.a);
      if (!a) return std::nullopt;
      return *a ? 0 : 1;
    }
    case Op::Select: {
      auto c = v(n.c);
      if (!c) return std::nullopt;
      auto chosen = v(*c ? n.a : n.b);
      if (!chosen) return std::nullopt;
      return *chosen & mask(n.width);
    }
    default: break;
  }
  if (n.op == Op::Constant) return n.constant;
  if (n.op == Op::ThreadIndex) return static_cast<uint64_t>(t[n.constant]);
  const std::optional<uint64_t> oa = v(n.a);
  if (!oa) return std::nullopt;
  const uint64_t a = *oa;
  std::optional<uint64_t> ob;
  if (n.b >= 0) {
    ob = v(n.b);
    if (!ob) return std::nullopt;
  }
  const uint64_t b = ob.value_or(0);
  switch (n.op) {
    case Op::Add: return (a + b) & mask(n.width);
    case Op::Sub: return (a - b) & mask(n.width);
    case Op::Mul: return (a * b) & mask(n.width);
    case Op::Shl: return b >= uint64_t(n.width) ? 0 : (a << b) & mask(n.width);
    case Op::Shr: {
      const uint64_t x = a & mask(n.width);
      if (n.isSigned) {
        const int64_t sx = signExtend(x, n.width);
        return static_cast<uint64_t>(b >= uint64_t(n.width) ? (sx < 0 ? -1 : 0) : sx >> b) & mask(n.width);
      }
      return b >= uint64_t(n.width) ? 0 : x >> b;
    }
    case Op::And: return a & b & mask(n.width);
    case Op::Or: return (a | b) & mask(n.width);
    case Op::Xor: return (a ^ b) & mask(n.width);
    case Op::Not: return ~a & mask(n.width);
    case Op::Neg: return (~a + 1) & mask(n.width);
    case Op::Convert: {
      const int source = static_cast<int>(n.constant);
      const uint64_t x = a & mask(source);
      return (n.isSigned ? static_cast<uint64_t>(signExtend(x, source)) : x) & mask(n.width);
    }
    case Op::Compare: {
      const uint64_t x = a & mask(n.width), y = b & mask(n.width);
      const bool unsignedCompare = !n.isSigned || n.compare == "lo" || n.compare == "ls" || n.compare == "hi" ||
                                   n.compare == "hs";
      const int64_t sx = signExtend(x, n.width), sy = signExtend(y, n.width);
      const bool less = unsignedCompare ? x < y : sx < sy, equal = x == y;
      if (n.compare == "eq") return equal;
      if (n.compare == "ne") return !equal;
      if (n.compare == "lt" || n.compare == "lo") return less;
      if (n.compare == "le" || n.compare == "ls") return less || equal;
      if (n.compare == "gt" || n.compare == "hi") return !less && !equal;
      return !less;  // ge, hs
    }
    default: return std::nullopt;
  }
}

bool mentionsThreadIndex(const std::vector<Node>& nodes) {
  for (const Node& n : nodes)
    if (n.op == Node::Op::ThreadIndex) return true;
  return false;
}

// The value every thread index that reaches `branch` gives its predicate, or
// nothing when it is not decided.
std::optional<bool> decidedPredicate(const FunctionModel& fn, InstId branch) {
  const Inst& br = fn.instructions[branch];
  if (!br.guard || br.guard->reg < 0) return std::nullopt;
  Compiler compiler(fn);
  ptx::Operand predicate;
  predicate.kind = Kind::Register;
  predicate.reg = br.guard->reg;
  const int root = compiler.operand(predicate, branch, 0);
  if (root < 0 || !mentionsThreadIndex(compiler.nodes)) return std::nullopt;
  const auto [low, high] = guardedRangeAtBlock(fn, br.block, "%tid.x", specialRegisterRange("%tid.x", fn.function));
  if (low > high || high - low + 1 > kMostThreadsTried) return std::nullopt;
  const std::optional<uint64_t> first = evaluate(compiler.nodes, root, {low, 0, 0});
  if (!first) return std::nullopt;
  for (int64_t t = low + 1; t <= high; ++t)
    if (evaluate(compiler.nodes, root, {t, 0, 0}) != first) return std::nullopt;
  return *first != 0;
}

}  // namespace

std::optional<bool> predicateForThreadIndex(const FunctionModel& fn, ValueReg predicate, InstId at, int64_t tid) {
  return ThreadPredicate::ofThreadIndex(fn, predicate, at)(tid);
}

struct ThreadPredicate::Compiled {
  std::vector<Node> nodes;
  int root = -1;
};

ThreadPredicate::ThreadPredicate(const FunctionModel& fn, ValueReg predicate, InstId at,
                                 const std::function<bool(InstId)>* allowed)
    : ThreadPredicate(fn, predicate, at, /*threeDims=*/true, allowed) {}

ThreadPredicate ThreadPredicate::ofThreadIndex(const FunctionModel& fn, ValueReg predicate, InstId at) {
  return ThreadPredicate(fn, predicate, at, /*threeDims=*/false, nullptr);
}

ThreadPredicate::ThreadPredicate(const FunctionModel& fn, ValueReg predicate, InstId at, bool threeDims,
                                 const std::function<bool(InstId)>* allowed)
    : compiled_(std::make_shared<Compiled>()) {
  if (!fn.values || predicate < 0) return;
  Compiler compiler(fn, threeDims, allowed);
  ptx::Operand op;
  op.kind = Kind::Register;
  op.reg = predicate;
  compiled_->root = compiler.operand(op, at, 0);
  compiled_->nodes = std::move(compiler.nodes);
}

std::optional<bool> ThreadPredicate::operator()(int64_t x, int64_t y, int64_t z) const {
  if (compiled_->root < 0) return std::nullopt;
  const int64_t t[3] = {x, y, z};
  const std::optional<uint64_t> value = evaluate(compiled_->nodes, compiled_->root, t);
  if (!value) return std::nullopt;
  return *value != 0;
}

struct ThreadValue::Compiled {
  std::vector<Node> nodes;
  int root = -1;
};

ThreadValue::ThreadValue(const FunctionModel& fn, InstId definition) : compiled_(std::make_shared<Compiled>()) {
  if (!fn.values || definition < 0 || static_cast<size_t>(definition) >= fn.instructions.size()) return;
  Compiler compiler(fn, /*threeDims=*/true, nullptr);
  compiled_->root = compiler.ofDefinition(definition);
  compiled_->nodes = std::move(compiler.nodes);
  // A predicate, or a value that does not mention the thread index, is not an answer here.
  using Op = Node::Op;
  if (compiled_->root < 0) return;
  const Op op = compiled_->nodes[compiled_->root].op;
  if (op == Op::Compare || op == Op::PredAnd || op == Op::PredOr || op == Op::PredXor || op == Op::PredNot ||
      op == Op::Unknown || !mentionsThreadIndex(compiled_->nodes))
    compiled_->root = -1;
}

std::optional<uint64_t> ThreadValue::operator()(int64_t x, int64_t y, int64_t z) const {
  if (compiled_->root < 0) return std::nullopt;
  const int64_t t[3] = {x, y, z};
  return evaluate(compiled_->nodes, compiled_->root, t);
}

std::vector<char> blocksNoThreadRuns(const FunctionModel& fn) {
  const size_t count = fn.blocks.size();
  std::vector<char> neverRuns(count, 0);
  if (!fn.values || count == 0) return neverRuns;
  // The edge out of each block that no thread takes (-1: none).
  std::vector<BlockId> deadEdge(count, -1);
  bool anyDead = false;
  for (BlockId b = 0; b < static_cast<BlockId>(count); ++b) {
    const InstId branch = conditionalBranch(fn, b);
    if (branch < 0) continue;
    if (auto value = decidedPredicate(fn, branch)) {
      const BlockId notTaken = branchTarget(fn, branch, !*value);
      if (notTaken != branchTarget(fn, branch, *value)) {
        deadEdge[b] = notTaken;
        anyDead = true;
      }
    }
  }
  if (!anyDead) return neverRuns;
  std::vector<char> reached(count, 0);
  std::vector<BlockId> work{0};
  reached[0] = 1;
  while (!work.empty()) {
    model::poll();
    const BlockId b = work.back();
    work.pop_back();
    for (BlockId s : fn.blocks[b].successors)
      if (s != deadEdge[b] && !reached[s]) {
        reached[s] = 1;
        work.push_back(s);
      }
  }
  for (size_t b = 0; b < count; ++b) neverRuns[b] = !reached[b];
  return neverRuns;
}

}  // namespace fenceline::model
