// Exclusive modes of a launch (see UniformModes.h).
#include "model/UniformModes.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "model/BranchEdges.h"
#include "model/PinnedBlock.h"
#include "model/PolledText.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

using Kind = ptx::Operand::Kind;

constexpr int kMaxDepth = 24;
// A text names a value by its whole expression tree, and a tree of depth
// kMaxDepth over shared subexpressions (quad-double arithmetic over values
// written once per thread) grows exponentially: past this length a value is
// left unnamed (as a value no rule names), which bounds each cached text.
// FENCELINE_MAX_NAME_LENGTH raises it (tests/limits/name-deadline.cu: the
// time budget must stop a naming whose texts have no cap), 0 meaning none.
size_t maxTextLength() {
  static const size_t length = [] {
    const char* text = std::getenv("FENCELINE_MAX_NAME_LENGTH");
    if (!text || !*text) return size_t{512};
    const unsigned long long value = std::strtoull(text, nullptr, 10);
    return value == 0 ? std::numeric_limits<size_t>::max() : static_cast<size_t>(value);
  }();
  return length;
}

// Marks a value that is the same for the threads of one block only (the
// block's position, a parameter read at an offset computed from it): such a
// condition separates two instructions one block runs, never two blocks.
constexpr std::string_view kBlockLevel = "block:";
// Marks a value that is the same for one thread only, for its whole life (its
// index): such a condition separates no instructions, it prunes one thread's
// paths (UniformModesPaths.cpp).
constexpr std::string_view kThreadLevel = "thread:";

// The widest level a text names (a text made of values of several levels is
// as narrow as its narrowest one).
UniformModes::Level textLevel(std::string_view text) {
  using Level = UniformModes::Level;
  if (text.find(kThreadLevel) != std::string_view::npos) return Level::Thread;
  return text.find(kBlockLevel) != std::string_view::npos ? Level::Block : Level::Grid;
}

bool isPredicate(const FunctionModel& fn, const ptx::Operand& op) {
  return op.kind == Kind::Register && op.reg >= 0 && static_cast<size_t>(op.reg) < fn.registerTypes.size() &&
         fn.registerTypes[op.reg] == ".pred";
}

// The launch shape: the same for every thread of the grid.
bool uniformSpecial(std::string_view name) {
  return name.starts_with("%nctaid") || name.starts_with("%ntid") || name.starts_with("%nclusterid") ||
         name.starts_with("%cluster_nctaid");
}

// The block's position: the same for every thread of a block, for the whole
// launch; not for two blocks (block level, see UniformModes.h).
bool blockSpecial(std::string_view name) {
  return name.starts_with("%ctaid") || name.starts_with("%clusterid") || name.starts_with("%cluster_ctaid") ||
         name.starts_with("%cluster_ctarank");
}

// The thread's position: the same for one thread for its whole life. Not
// %warpid or %smid: a thread may move between them.
bool threadSpecial(std::string_view name) { return name.starts_with("%tid") || name.starts_with("%laneid"); }

// The value of a byte load into a wider register, zero-extended (ld.u8): an
// `and` of it with a mask that keeps its low byte is the value itself (nvcc
// masks such a byte before it compares it).
bool zeroExtendedByte(std::string_view text) {
  const size_t load = text.find("ld.");
  const size_t open = text.find('[');
  if (load == std::string_view::npos || open == std::string_view::npos || load > open) return false;
  const std::string_view prefix = text.substr(0, load);
  if (!prefix.empty() && prefix != kBlockLevel && prefix != kThreadLevel) return false;
  return text.substr(0, open).ends_with(".u8");
}

// Instructions whose result may differ between threads with equal operands.
bool threadDependent(std::string_view opcode) {
  return opcode == "shfl" || opcode == "vote" || opcode == "match" || opcode == "redux" || opcode == "activemask" ||
         opcode == "elect" || opcode == "call" || opcode == "bra" || opcode == "ret" || opcode == "exit";
}

std::string modifiersOf(const Inst& in) {
  std::string text(in.opcode());
  for (const auto& m : in.syntax->modifiers) (text += ".") += m;
  return text;
}

}  // namespace

UniformModes::Level UniformModes::levelOf(const ptx::Operand& op, InstId at) const {
  const std::string text = uniformText(op, at, 0);
  return text.empty() ? Level::Thread : textLevel(text);
}

UniformModes::Level UniformModes::levelOfDefinition(InstId def) const {
  const std::string text = definitionText(def, 0);
  return text.empty() ? Level::Thread : textLevel(text);
}

int UniformModes::keyOf(const std::string& text) const {
  auto [it, fresh] = keyIds_.try_emplace(text, static_cast<int>(keys_.size()));
  if (fresh) {
    keys_.push_back(text);
    keyLevel_.push_back(textLevel(text));
  }
  return it->second;
}

bool UniformModes::isKernelParameter(std::string_view name) const {
  return fn_.function && std::any_of(fn_.function->params.begin(), fn_.function->params.end(),
                                     [&](const auto& p) { return p.name == name; });
}

std::string UniformModes::uniformText(const ptx::Operand& op, InstId at, int depth) const {
  switch (op.kind) {
    case Kind::Integer: return "#" + std::to_string(op.intValue);
    case Kind::Float: return "#f" + std::to_string(op.floatValue);
    case Kind::Special:
      if (uniformSpecial(op.text)) return std::string(op.text);
      if (blockSpecial(op.text)) return std::string(kBlockLevel) + std::string(op.text);
      return threadSpecial(op.text) ? std::string(kThreadLevel) + std::string(op.text) : std::string();
    case Kind::Symbol: return "&" + std::string(op.text);
    case Kind::Register: {
      if (op.reg < 0 || depth > kMaxDepth || !fn_.values) return {};
      std::vector<InstId> defs = fn_.values->reachingDefinitions(op.reg, at);
      if (defs.size() > 1) {
        std::string merged = mergedText(op.reg, at, defs, depth);
        if (!merged.empty() || root_ < 0) return merged;
        // Several definitions reach in the control flow; fewer on the paths a
        // thread with root_'s facts takes.
        defs = feasibleDefinitions(op.reg, at, defs, root_);
        if (defs.size() != 1) return {};
        std::string text = definitionText(defs[0], depth + 1);
        if (text.empty() && runsOnce(defs[0])) text = std::string(kThreadLevel) + "once@" + std::to_string(defs[0]);
        return text.empty() || !op.negated ? text : "!" + text;
      }
      if (defs.size() != 1) return {};
      std::string text = definitionText(defs[0], depth + 1);
      // A value no thread-invariant rule names, written once per thread: the
      // same at every read its one definition reaches (thread level).
      if (text.empty() && runsOnce(defs[0])) text = std::string(kThreadLevel) + "once@" + std::to_string(defs[0]);
      return text.empty() || !op.negated ? text : "!" + text;
    }
    default: return {};
  }
}

std::string UniformModes::mergedText(ValueReg reg, InstId at, const std::vector<InstId>& defs, int depth) const {
  const uint64_t cacheKey = (uint64_t(uint32_t(at)) << 32) | uint32_t(reg);
  if (auto known = mergedText_.find(cacheKey); known != mergedText_.end()) return known->second;
  // Without pruned paths: the value is named by where it is read, for every thread.
  const BlockId root = root_;
  root_ = -1;
  struct Restore {
    BlockId& slot;
    BlockId value;
    ~Restore() { slot = value; }
  } restore{root_, root};
  auto compute = [&]() -> std::string {
    auto inLoop = [&](BlockId b) {
      return std::any_of(fn_.loops.begin(), fn_.loops.end(), [&](const Loop& loop) {
        return std::find(loop.blocks.begin(), loop.blocks.end(), b) != loop.blocks.end();
      });
    };
    const BlockId use = fn_.blockOf[at];
    if (inLoop(use)) return {};  // read once per thread, or not one value
    BlockId common = use;
    for (InstId d : defs) {
      poll();
      const BlockId b = fn_.blockOf[d];
      const std::string text = definitionText(d, depth + 1);
      if (inLoop(b) || text.empty() || textLevel(text) > Level::Block) return {};
      while (!fn_.dominates(common, b)) {
        if (fn_.idom[common] < 0 || fn_.idom[common] == common) return {};
        common = fn_.idom[common];
      }
    }
    // The blocks on a path from `common` to `use`: which definition reaches
    // is decided by their branches.
    auto reach = [&](BlockId from, BlockId to, bool forward) {  // from `from`, not past `to`
      std::vector<char> seen(fn_.blocks.size(), 0);
      std::vector<BlockId> work{from};
      while (!work.empty()) {
        poll();
        const BlockId b = work.back();
        work.pop_back();
        if (seen[b]) continue;
        seen[b] = 1;
        if (b != to)
          for (BlockId next : forward ? fn_.blocks[b].successors : fn_.blocks[b].predecessors) work.push_back(next);
      }
      return seen;
    };
    const std::vector<char> ahead = reach(common, use, true), behind = reach(use, common, false);
    for (BlockId b = 0; b < static_cast<BlockId>(fn_.blocks.size()); ++b) {
      poll();
      if (!ahead[b] || !behind[b] || b == use) continue;
      const InstId branch = conditionalBranch(fn_, b);
      if (branch < 0) continue;
      const auto& guard = fn_.instructions[branch].guard;
      ptx::Operand p;
      p.kind = Kind::Register;
      p.reg = guard->reg;
      const std::string test = uniformText(p, branch, depth + 1);
      if (test.empty() || textLevel(test) > Level::Block) return {};
    }
    // Named by where it is read: two sites that compare it do so through one
    // register defined once.
    return std::string(kBlockLevel) + "phi@" + std::to_string(at) + "#" + std::to_string(reg);
  };
  mergedText_.emplace(cacheKey, std::string());  // a cycle through this value decides nothing
  std::string text = compute();
  mergedText_[cacheKey] = text;
  return text;
}

std::string UniformModes::definitionText(InstId def, int depth) const {
  // A text for every thread first; else, under root_'s facts, one for the
  // threads that hold them (cached per root; pruned_ grows when it rests on them).
  const auto known = definitionText_.find(def);
  if (known != definitionText_.end() && (!known->second.empty() || root_ < 0)) return known->second;
  const uint64_t contextKey = (uint64_t(uint32_t(root_)) << 32) | uint32_t(def);
  if (root_ >= 0)
    if (auto entry = contextText_.find(contextKey); entry != contextText_.end()) {
      if (entry->second.second) ++pruned_;
      return entry->second.first;
    }
  // A cycle through this definition (only pruned paths make one) decides nothing.
  if (root_ >= 0) contextText_.emplace(contextKey, std::pair<std::string, bool>(std::string(), true));
  const int64_t prunedBefore = pruned_;
  const Inst& in = fn_.instructions[def];
  const auto& ops = in.operands;
  const std::string_view opcode = in.opcode();
  std::string text;
  poll();  // every name built is polled (a name's operands are names: the walk may be long)
  auto compute = [&]() -> std::string {
    if (in.guard && in.guard->reg >= 0) return {};  // assigned on some paths only
    if (ops.empty() || threadDependent(opcode)) return {};
    if (opcode == "ld") {
      if (ops.size() < 2 || ops[1].kind != Kind::Address || ops[1].elements.size() > 0) return {};
      const ptx::Operand& a = ops[1];
      if (in.hasModifier("param")) {
        // A callee's parameter, bound by the inlined call: the caller's value.
        if (in.boundStore >= 0) {
          const Inst& store = fn_.instructions[in.boundStore];
          return store.operands.size() >= 2 ? uniformText(store.operands[1], in.boundStore, depth + 1) : std::string();
        }
        if (!fn_.function || !fn_.function->isEntry || in.origin != fn_.function) return {};
        if (a.base.kind == Kind::Register) {
          // The kernel's parameters at an address held in a register: one
          // copy for the launch, read-only, so as uniform as the address (its
          // text carries its level: a by-value array indexed by the block's
          // context is block level, by the thread's, thread level). A large
          // by-value struct is read through `mov.b64 %rd, param` alone, at
          // constant offsets: the launch's value, named as `[param+off]` is
          // (issue 34, NCCL's backend byte read twice, once per phase).
          ptx::Operand r;
          r.kind = Kind::Register;
          r.reg = a.base.reg;
          const std::string base = uniformText(r, def, depth + 1);
          if (base.empty()) return {};
          pollBytes(base.size());
          const std::string_view symbol = std::string_view(base).substr(std::min<size_t>(1, base.size()));
          if (base.starts_with("&") && isKernelParameter(symbol))
            return modifiersOf(in) + "[" + std::string(symbol) + "+" + std::to_string(a.offset) + "]";
          return modifiersOf(in) + "[" + base + "+" + std::to_string(a.offset) + "]";
        }
        if (a.base.kind != Kind::Symbol) return {};
        if (!isKernelParameter(a.baseSymbol())) return {};
        return modifiersOf(in) + "[" + std::string(a.baseSymbol()) + "+" + std::to_string(a.offset) + "]";
      }
      if (in.hasModifier("const")) {
        std::string base;
        if (a.base.kind == Kind::Symbol) base = "&" + std::string(a.baseSymbol());
        else if (a.base.kind == Kind::Register) {
          ptx::Operand r;
          r.kind = Kind::Register;
          r.reg = a.base.reg;
          base = uniformText(r, def, depth + 1);
        }
        if (base.empty()) return {};
        pollBytes(base.size());
        return modifiersOf(in) + "[" + base + "+" + std::to_string(a.offset) + "]";
      }
      return {};
    }
    if (in.effect.kind != EffectKind::None) return {};
    if (ops[0].kind != Kind::Register) return {};  // a predicate pair or a vector: not followed
    if (opcode == "and" && ops.size() == 3)
      for (int k : {1, 2})
        if (ops[k].kind == Kind::Integer && (ops[k].intValue & 0xff) == 0xff) {
          std::string byte = uniformText(ops[3 - k], def, depth + 1);
          if (zeroExtendedByte(byte)) return byte;
        }
    std::string result = modifiersOf(in) + "(";
    for (size_t k = 1; k < ops.size(); ++k) {
      const std::string arg = uniformText(ops[k], def, depth + 1);
      if (arg.empty()) return {};
      if (k > 1) result += ',';
      appendPolled(result, arg);  // the time budget, per piece of a long name
      if (result.size() > maxTextLength()) return {};
    }
    result += ')';
    return result;
  };
  text = compute();
  const bool contextual = pruned_ != prunedBefore;
  if (!contextual) definitionText_.emplace(def, text);
  if (root_ >= 0) contextText_[contextKey] = {text, contextual};
  return text;
}

void UniformModes::implied(ValueReg reg, InstId at, bool value, int depth, std::vector<Fact>& out) const {
  if (reg < 0 || depth > kMaxDepth || !fn_.values) return;
  std::vector<InstId> defs = fn_.values->reachingDefinitions(reg, at);
  if (defs.size() > 1 && root_ >= 0) defs = feasibleDefinitions(reg, at, defs, root_);
  if (defs.size() != 1) return;
  const InstId def = defs[0];
  const Inst& in = fn_.instructions[def];
  if (in.guard && in.guard->reg >= 0) return;
  const auto& ops = in.operands;
  const std::string_view opcode = in.opcode();
  auto sub = [&](const ptx::Operand& op, bool v) {
    if (isPredicate(fn_, op)) implied(op.reg, def, op.negated ? !v : v, depth + 1, out);
  };
  if (opcode == "not" && ops.size() >= 2) return sub(ops[1], !value);
  if (opcode == "mov" && ops.size() >= 2) return sub(ops[1], value);
  if ((opcode == "and" && value) || (opcode == "or" && !value)) {
    for (size_t k = 1; k < ops.size(); ++k) sub(ops[k], value);
    return;
  }
  if (opcode != "setp" || ops.size() < 3) return;
  // setp.CMP[.BOOLOP].TYPE d[|e], a, b[, c]: d = CMP(a, b) BOOLOP c, e its negation.
  bool v = value;
  if (ops[0].kind == Kind::PredicatePair) {
    if (ops[0].elements.size() != 2) return;
    if (ops[0].elements[1].reg == reg) v = !v;
    else if (ops[0].elements[0].reg != reg) return;
  }
  bool compareKnown = true;
  if (ops.size() >= 4) {
    const bool andOp = in.hasModifier("and"), orOp = in.hasModifier("or");
    if (andOp && v) sub(ops[3], true);
    else if (orOp && !v) sub(ops[3], false);
    else return;  // the comparison alone is not implied
    compareKnown = true;
  }
  if (!compareKnown) return;
  static constexpr std::pair<std::string_view, std::string_view> kNegation[] = {{"ne", "eq"}, {"ge", "lt"}};
  static constexpr std::pair<std::string_view, std::string_view> kUnsignedNames[] = {
      {"lo", "lt"}, {"ls", "le"}, {"hi", "gt"}, {"hs", "ge"}};
  std::string compare, type;
  for (const auto& m : in.syntax->modifiers) {
    if (m.size() >= 2 && (m[0] == 's' || m[0] == 'u' || m[0] == 'b' || m[0] == 'f') &&
        std::all_of(m.begin() + 1, m.end(), [](char c) { return c >= '0' && c <= '9'; }))
      type = m;
    for (std::string_view c : {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu",
                               "gtu", "geu", "num", "nan"})
      if (m == c) compare = m;
  }
  if (compare.empty() || type.empty()) return;
  std::string a = uniformText(ops[1], def, depth + 1);
  if (a.empty()) return;
  std::string b = uniformText(ops[2], def, depth + 1);
  if (b.empty()) return;
  // One comparison, its negation and its swapped form share a key (integers:
  // a float compare with a NaN operand is false both ways): every order is
  // `lt` (lo, ls, hi, hs are lt, le, gt, ge of unsigned integers; a > b is
  // b < a; a >= b is !(a < b); a <= b is !(b < a)), every equality `eq` with
  // its operands in one order.
  if (type[0] != 'f') {
    for (const auto& [unsignedName, name] : kUnsignedNames)
      if (compare == unsignedName) compare = name;
    if (compare == "gt" || compare == "le") {
      std::swap(a, b);
      compare = compare == "gt" ? "lt" : "ge";
    }
    for (const auto& [positive, negative] : kNegation)
      if (compare == positive) {
        compare = negative;
        v = !v;
      }
    if (compare == "eq") {
      if (b < a) std::swap(a, b);
      type[0] = 'b';  // equality reads bits: s16, u16 and b16 are one comparison
    }
  }
  pollBytes(a.size() + b.size());
  out.push_back({keyOf(compare + "." + type + "(" + a + "," + b + ")"), v});
}

const std::vector<UniformModes::Fact>& UniformModes::blockFacts(BlockId block) const {
  if (blockKnown_.empty()) {
    blockKnown_.assign(fn_.blocks.size(), 0);
    blockFacts_.resize(fn_.blocks.size());
  }
  if (blockKnown_[block]) return blockFacts_[block];
  // The dominator chain up to a block already known (or the entry).
  std::vector<BlockId> chain;
  for (BlockId b = block; b >= 0 && !blockKnown_[b]; b = fn_.idom[b]) {
    chain.push_back(b);
    if (fn_.idom[b] == b) break;
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    poll();
    const BlockId b = *it;
    std::vector<Fact> facts;
    const BlockId up = fn_.idom[b];
    if (up >= 0 && up != b) facts = blockFacts_[up];
    // The one edge every path into b takes (its other predecessors are back edges).
    BlockId from = -1;
    int entries = 0;
    for (BlockId p : fn_.blocks[b].predecessors)
      if (!fn_.dominates(b, p)) from = p, ++entries;
    if (entries == 1)
      if (std::optional<EdgeCondition> edge = edgeCondition(fn_, from, b)) {
        // A thread at the branch holds from's facts (from is b's immediate dominator).
        const BlockId root = root_;
        root_ = from;
        implied(edge->predicate, edge->branch, edge->value, 0, facts);
        root_ = root;
      }
    std::sort(facts.begin(), facts.end());
    facts.erase(std::unique(facts.begin(), facts.end()), facts.end());
    blockFacts_[b] = std::move(facts);
    blockKnown_[b] = 1;
  }
  return blockFacts_[block];
}

const std::vector<UniformModes::Fact>& UniformModes::guardFacts(InstId inst) const {
  static const std::vector<Fact> kNone;
  const auto& guard = fn_.instructions[inst].guard;
  if (!guard || guard->reg < 0) return kNone;
  auto [known, fresh] = guardFacts_.try_emplace(inst);
  if (fresh) {
    std::vector<Fact> facts;  // implied may ask again while it runs: filled in after
    const BlockId block = fn_.blockOf[inst];
    blockFacts(block);  // a thread at the instruction holds its block's facts
    const BlockId root = root_;
    root_ = block;
    implied(guard->reg, inst, !guard->negated, 0, facts);
    root_ = root;
    known = guardFacts_.find(inst);
    known->second = std::move(facts);
  }
  return known->second;
}

int UniformModes::separatingKey(InstId a, InstId b, Level level) const {
  if (a < 0 || b < 0 || a == b) return -1;
  const std::vector<Fact>& ba = blockFacts(fn_.blockOf[a]);
  const std::vector<Fact>& bb = blockFacts(fn_.blockOf[b]);
  const std::vector<Fact>& ga = guardFacts(a);
  const std::vector<Fact>& gb = guardFacts(b);
  if ((ba.empty() && ga.empty()) || (bb.empty() && gb.empty())) return -1;
  auto inGuardOfB = [&](const Fact& f) { return std::find(gb.begin(), gb.end(), f) != gb.end(); };
  // A block-level key separates only two instructions of one block; a
  // thread-level key none (it prunes paths only).
  auto counts = [&](const Fact& f) { return keyLevel_[f.key] <= level; };
  // a's block facts in order against b's (both sorted): one merge. A key
  // holds at most its two facts in a list, next to each other.
  auto next = bb.begin();
  for (const Fact& f : ba) {
    while (next != bb.end() && next->key < f.key) ++next;
    if (!counts(f)) continue;
    const Fact opposite{f.key, !f.value};
    for (auto it = next; it != bb.end() && it->key == f.key; ++it)
      if (*it == opposite) return f.key;
    if (inGuardOfB(opposite)) return f.key;
  }
  for (const Fact& f : ga) {
    const Fact opposite{f.key, !f.value};
    if (counts(f) && (std::binary_search(bb.begin(), bb.end(), opposite) || inGuardOfB(opposite))) return f.key;
  }
  return -1;
}

std::string UniformModes::separatingCondition(InstId a, InstId b) const {
  const int key = separatingKey(a, b, Level::Grid);
  return key < 0 ? std::string() : keys_[key];
}

bool UniformModes::exclusive(InstId a, InstId b) const { return separatingKey(a, b, Level::Grid) >= 0; }

namespace {

// The dimension of a text that names %nctaid.d itself (through mov or an
// integer cvt), or 0.
char gridDimensionOf(std::string_view text) {
  while (text.ends_with(')') && (text.starts_with("mov.") || text.starts_with("cvt."))) {
    const size_t open = text.find('(');
    if (open == std::string_view::npos) return 0;
    text = text.substr(open + 1, text.size() - open - 2);
  }
  if (text.size() == 9 && text.starts_with("%nctaid.") && text[8] >= 'x' && text[8] <= 'z') return text[8];
  return 0;
}

// The dimension d of a comparison key that, with outcome `value`, says
// %nctaid.d == 1; 0 when it says nothing of the kind. Keys are
// `CMP.TYPE(a,b)` (implied above): eq with its operands ordered ("#1" sorts
// before any register text), every order as `lt`.
char oneBlockDimension(std::string_view key, bool value) {
  const size_t open = key.find('(');
  if (open == std::string_view::npos || !key.ends_with(')')) return 0;
  const std::string_view compare = key.substr(0, key.find('.'));
  const std::string_view args = key.substr(open + 1, key.size() - open - 2);
  if (args.starts_with("#1,")) {
    const char d = gridDimensionOf(args.substr(3));
    if (compare == "eq" && value) return d;   // nctaid == 1
    if (compare == "lt" && !value) return d;  // !(1 < nctaid): nctaid <= 1, and a grid has a block
    return 0;
  }
  if (args.ends_with(",#2") && compare == "lt" && value) return gridDimensionOf(args.substr(0, args.size() - 3));
  return 0;
}

}  // namespace

bool UniformModes::singleBlockLaunch(InstId inst) const {
  if (inst < 0) return false;
  if (readDimensions_ < 0) readDimensions_ = blockDimensionsRead(fn_);
  int single = 0;
  auto add = [&](const std::vector<Fact>& facts) {
    for (const Fact& f : facts)
      if (const char d = oneBlockDimension(keys_[f.key], f.value)) single |= 1 << (d - 'x');
  };
  add(blockFacts(fn_.blockOf[inst]));
  add(guardFacts(inst));
  return single != 0 && (readDimensions_ & ~single) == 0;
}

bool UniformModes::exclusiveInBlock(InstId a, InstId b) const {
  return separatingKey(a, b, Level::Block) >= 0;
}

std::optional<std::array<int64_t, 3>> UniformModes::pinnedBlock(InstId inst) const {
  if (inst < 0) return std::nullopt;
  if (readDimensions_ < 0) readDimensions_ = blockDimensionsRead(fn_);
  auto [known, fresh] = pinnedBlock_.try_emplace(inst);
  if (fresh) known->second = model::pinnedBlock(fn_, inst, readDimensions_);
  return known->second;
}

}  // namespace fenceline::model
