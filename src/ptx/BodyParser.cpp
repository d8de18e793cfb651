// Function bodies: `{ }` blocks, `.reg` and local variables, labels, `.loc`,
// `.pragma`, and instructions with their operands. Names are resolved here
// (see Scopes.h), so the syntax tree holds RegisterIds and LabelIds and no
// block structure.
#include <algorithm>

#include "ptx/ModuleParser.h"

namespace fenceline::ptx {
namespace {

// Special registers (the part before any '.component'); numbered families by prefix.
bool isSpecialRegister(std::string_view name) {
  std::string_view base = name.substr(0, name.find('.'));
  static constexpr std::string_view kNames[] = {
      "%tid", "%ntid", "%laneid", "%warpid", "%nwarpid", "%ctaid", "%nctaid", "%smid", "%nsmid", "%gridid",
      "%is_explicit_cluster", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid",
      "%cluster_ctarank", "%cluster_nctarank", "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge",
      "%lanemask_gt", "%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi",
      "%total_smem_size", "%aggr_smem_size", "%dynamic_smem_size", "%current_graph_exec"};
  for (auto n : kNames)
    if (base == n) return true;
  static constexpr std::string_view kFamilies[] = {"%pm", "%envreg", "%reserved_smem_offset"};
  for (auto f : kFamilies)
    if (base.starts_with(f)) return true;
  return false;
}

// The PTX ISA's predefined constants (section 4.4, "Predefined Identifiers":
// "PTX predefines one constant", the only entry without a '%'). nvcc writes
// `mov.u32 %r, WARP_SZ;` for `warpSize` (NVSHMEM's device code does).
struct PredefinedConstant {
  std::string_view name;
  int64_t value;
};
constexpr PredefinedConstant kPredefinedConstants[] = {{"WARP_SZ", 32}};

const PredefinedConstant* predefinedConstant(std::string_view name) {
  for (const auto& c : kPredefinedConstants)
    if (c.name == name) return &c;
  return nullptr;
}

// Opcodes whose name operands are branch targets.
bool takesLabel(std::string_view opcode) { return opcode == "bra"; }

bool isLocalSpace(std::string_view d) {
  return d == ".local" || d == ".shared" || d == ".param" || d == ".const" || d == ".global";
}

// Calls `visit` on each register field of `op` in the order model/Inliner.cpp
// renumbers them: the register, an address's base, then the elements.
template <typename Visit>
void forEachRegister(Operand& op, Visit& visit) {
  if (op.kind == Operand::Kind::Register && op.reg >= 0) visit(op.reg);
  if (op.kind == Operand::Kind::Address && op.base.kind == Operand::Kind::Register && op.base.reg >= 0)
    visit(op.base.reg);
  for (auto& e : op.elements) forEachRegister(e, visit);
}

// Numbers the body's registers in the order it first uses them (each
// instruction's operands in order, then its guard), those it never uses after
// them in the order they were declared. That is the order in which the model
// gives a body's registers their numbers (model/Inliner.cpp's RegisterMap), so
// a function's own instructions keep their register numbers in its model and
// the model views their operands instead of copying them (model::Inst::operands).
void numberRegistersByFirstUse(Function& function) {
  const size_t count = function.registers.size();
  std::vector<RegisterId> number(count, -1);
  RegisterId next = 0;
  bool moved = false;
  auto see = [&](RegisterId& r) {
    if (static_cast<size_t>(r) >= count) return;
    if (number[r] < 0) {
      moved |= next != r;
      number[r] = next++;
    }
  };
  for (auto& inst : function.instructions) {
    for (auto& op : inst.operands) forEachRegister(op, see);
    if (inst.guard && inst.guard->reg >= 0) see(inst.guard->reg);
  }
  if (!moved) return;  // first used in the order declared (the unused ones last, already in order)
  for (auto& n : number)
    if (n < 0) n = next++;
  auto renumber = [&](RegisterId& r) {
    if (static_cast<size_t>(r) < count) r = number[r];
  };
  for (auto& inst : function.instructions) {
    for (auto& op : inst.operands) forEachRegister(op, renumber);
    if (inst.guard && inst.guard->reg >= 0) renumber(inst.guard->reg);
  }
  // In place (a body may declare millions): register r goes to number[r].
  auto& registers = function.registers;
  for (size_t r = 0; r < count; ++r)
    while (static_cast<size_t>(number[r]) != r) {
      const RegisterId to = number[r];
      std::swap(registers[r], registers[to]);
      std::swap(number[r], number[to]);
    }
}

}  // namespace

void ModuleParser::parseBody(Function& function) {
  BlockScopes scopes(function, registersLeft_);
  // The first pass counted the body's instructions (nvcc's shape; a hint only).
  function.instructions.reserve(expectedInstructions_);
  expectedInstructions_ = 0;
  currentLocation_ = kNoLocation;
  locations_.beginFunction();
  bodyStart_ = peek().offset;
  expect('{', "to open the function body");
  scopes.push();
  while (scopes.depth() > 0) {
    const Token& t = peek();
    if (t.kind == TokenKind::End) fail(t, "unexpected end of file: missing '}' in function '" + function.name + "'");
    if (t.is('{')) {
      if (static_cast<int>(scopes.depth()) >= kMaxNesting) fail(t, "blocks nested too deeply");
      next();
      scopes.push();
      continue;
    }
    if (t.is('}')) {
      next();
      if (auto unresolved = scopes.pop())
        failAt(unresolved->offset, unresolved->pos.line, unresolved->pos.column,
               "undefined label '" + std::string(unresolved->name) + "'");
      continue;
    }
    parseBodyStatement(function, scopes);
  }
  registersLeft_ -= static_cast<int64_t>(function.registers.size());
  function.instructions.shrink_to_fit();
  numberRegistersByFirstUse(function);
  if (function.strings) function.strings->forgetIndex();
}

void ModuleParser::parseBodyStatement(Function& function, BlockScopes& scopes) {
  const Token& t = peek();
  if (t.kind == TokenKind::Directive) {
    if (t.text == ".reg") return parseRegisterDeclaration(scopes);
    if (t.text == ".loc") return parseLoc();
    if (t.text == ".pragma") {
      next();
      parsePragma(function);
      return;
    }
    if (isLocalSpace(t.text) || t.text == ".extern") {
      bool isExtern = false;
      if (t.text == ".extern") {
        next();
        isExtern = true;
        if (peek().kind != TokenKind::Directive || !isLocalSpace(peek().text))
          fail(peek(), "expected a state space after .extern");
      }
      std::string space(next().text);
      parseVariables(std::move(space), isExtern, false, false, function.locals, functionSymbols_);
      return;
    }
    static constexpr std::string_view kModuleLevel[] = {".file", ".section", ".entry", ".func", ".visible",
                                                         ".weak", ".version", ".target", ".address_size"};
    for (auto d : kModuleLevel)
      if (t.text == d)
        fail(t, "expected '}' to close function '" + function.name + "' before " + describe(t));
    fail(t, "unexpected directive " + describe(t) + " in a function body");
  }
  if (t.is('@')) return parseInstruction(function, scopes, std::nullopt);
  if (t.kind == TokenKind::Identifier) {
    Token name = next();
    if (peek().is(':')) return parseLabelOrDeclaration(function, scopes, name);
    // Not a label: an unguarded instruction whose opcode we just read.
    return parseInstruction(function, scopes, name);
  }
  fail(t, "expected an instruction, label or directive, found " + describe(t));
}

void ModuleParser::parseRegisterDeclaration(BlockScopes& scopes) {
  next();  // .reg
  std::string type;
  while (peek().kind == TokenKind::Directive) {
    Token d = next();
    if (d.text == ".align") expectInteger("an alignment");
    else type += std::string(d.text);
  }
  if (type.empty()) fail(peek(), "expected a register type, found " + describe(peek()));
  do {
    Token name = expectIdentifier("a register name");
    BlockScopes::Problem problem;
    if (accept('<')) {
      Token countToken = peek();
      int64_t count = expectInteger("a register count");
      expect('>', "to close the register count");
      problem = scopes.declareRegisterRange(name.text, count, type);
      if (!problem.empty()) fail(countToken, problem);
      continue;
    }
    if (peek().is('[')) parseArrayDims();  // register arrays (rare): one name
    problem = scopes.declareRegister(name.text, type);
    if (!problem.empty()) fail(name, problem);
  } while (accept(','));
  expect(';', "after the register declaration");
}

void ModuleParser::parseLabelOrDeclaration(Function& function, BlockScopes& scopes, const Token& name) {
  next();  // ':'
  // `ts: .branchtargets L1, L2;` names the targets of a brx.idx: kept, with
  // the labels resolved (and checked) like those of a bra.
  if (peek().isDirective(".branchtargets")) {
    next();
    functionSymbols_.emplace(name.text, name.offset);
    auto list = static_cast<int32_t>(function.branchTargets.size());
    function.branchTargets.push_back(BranchTargets{std::string(name.text), {}});
    do {
      Token label = expectIdentifier("a label in .branchtargets");
      auto& labels = function.branchTargets.back().labels;
      scopes.useLabel(BlockScopes::LabelUse{label.text, -1 - list, static_cast<int32_t>(labels.size()), label.offset,
                                            TextPos{label.line, label.column}});
      labels.push_back(-1);
    } while (accept(','));
    expect(';', "after the .branchtargets list");
    return;
  }
  // `prototype_0 : .callprototype ...;` and `fs: .calltargets f1, f2;` declare
  // names used by indirect calls, not positions in the code.
  if (peek().isDirective(".callprototype") || peek().isDirective(".calltargets")) {
    functionSymbols_.emplace(name.text, name.offset);
    skipPast(';', "after the declaration");
    return;
  }
  auto problem = scopes.defineLabel(name.text, TextPos{name.line, name.column});
  if (!problem.empty()) fail(name, problem);
}

void ModuleParser::parseInstruction(Function& function, BlockScopes& scopes, std::optional<Token> opcodeRead) {
  // Built where it stays (a parse error discards the whole function).
  const int32_t index = static_cast<int32_t>(function.instructions.size());
  Instruction& inst = function.instructions.emplace_back();
  if (!opcodeRead && accept('@')) {
    bool negated = accept('!');
    Token reg = expectIdentifier("a predicate register after '@'");
    RegisterId id = scopes.lookupRegister(reg.text);
    if (id < 0) fail(reg, "undefined register '" + std::string(reg.text) + "'");
    inst.guard = Guard{id, negated};
  }
  Token opcode = opcodeRead ? *opcodeRead : expectIdentifier("an opcode");
  std::string_view text = opcode.text;
  if (!((text[0] >= 'a' && text[0] <= 'z') || (text[0] >= 'A' && text[0] <= 'Z')))
    fail(opcode, "expected an opcode, found " + describe(opcode));
  for (size_t dot = text.find('.'); dot != std::string_view::npos;) {
    size_t end = text.find('.', dot + 1);
    if (end == dot + 1 || dot + 1 == text.size()) fail(opcode, "empty modifier in " + describe(opcode));
    dot = end;
  }
  // ptxas also takes qualifiers after a space: TileLang writes
  // `cp.async.bulk.tensor.2d.global.shared::cta.bulk_group .L2::cache_hint`.
  // Operands never start with '.', so a directive-like token here is one.
  if (peek().kind != TokenKind::Directive) {
    inst.setSpelling(text);
  } else {
    std::string& spelled = spellingScratch_;
    spelled.assign(text);
    while (peek().kind == TokenKind::Directive) {
      Token qualifier = next();
      for (std::string_view rest = qualifier.text.substr(1); !rest.empty();) {
        size_t cut = rest.find('.');
        spelled += '.';
        spelled += rest.substr(0, cut);
        rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 1);
      }
    }
    inst.setSpelling(spelled);
  }
  inst.pos = TextPos{opcode.line, opcode.column};
  inst.location = currentLocation_;
  inst.inInlineAsm = opcode.inInlineAsm;

  std::vector<BlockScopes::LabelUse> labelUses;
  // Operands are parsed into a vector kept across instructions, then moved
  // into one allocation of the exact size: a 100 MB file keeps millions of
  // these for the whole run, and growing each by push_back reallocates.
  std::vector<Operand>& operands = operandScratch_;
  operands.clear();
  if (!peek().is(';')) {
    do {
      Token at = peek();
      Operand& op = operands.emplace_back();
      parseOperand(op, function, scopes, inst, 0);
      if (op.kind == Operand::Kind::Label)
        labelUses.push_back(BlockScopes::LabelUse{at.text, index, static_cast<int32_t>(operands.size() - 1),
                                                  at.offset, TextPos{at.line, at.column}});
    } while (accept(','));
  }
  expect(';', "at the end of the instruction");
  inst.operands.assign(std::make_move_iterator(operands.begin()), std::make_move_iterator(operands.end()));
  for (const auto& use : labelUses) scopes.useLabel(use);
}

void ModuleParser::parseNumber(Operand& op, bool negative) {
  Token t = next();
  if (t.kind == TokenKind::Integer) {
    op.kind = Operand::Kind::Integer;
    int64_t v = integerValue(t);
    op.intValue = negative ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v;
  } else {
    op.kind = Operand::Kind::Float;
    double v = floatValue(t);
    op.floatValue = negative ? -v : v;
  }
}

void ModuleParser::parseNameOperand(Operand& op, Function& function, BlockScopes& scopes, const Instruction& inst, const Token& name) {
  if (name.text == "_") {
    op.kind = Operand::Kind::Sink;
    return;
  }
  RegisterId id = scopes.lookupRegister(name.text);
  if (id >= 0) {
    op.kind = Operand::Kind::Register;
    op.reg = id;
    op.text = function.intern(name.text);
    return;
  }
  // A component of a vector register (`.reg .v4 .f32 %v;` ... `%v.x`).
  if (size_t dot = name.text.find('.'); dot != std::string_view::npos) {
    RegisterId base = scopes.lookupRegister(name.text.substr(0, dot));
    if (base >= 0) {
      op.kind = Operand::Kind::Register;
      op.reg = base;
      op.text = function.intern(name.text);
      return;
    }
  }
  if (name.text[0] == '%') {
    if (!isSpecialRegister(name.text)) fail(name, "undefined register '" + std::string(name.text) + "'");
    op.kind = Operand::Kind::Special;
    op.text = function.intern(name.text);
    return;
  }
  if (name.text.find('.') != std::string_view::npos)
    fail(name, "unexpected '.' in operand " + describe(name));
  op.text = function.intern(name.text);
  if (takesLabel(inst.opcode)) {
    op.kind = Operand::Kind::Label;  // resolved when its block closes
    return;
  }
  if (!isKnownSymbol(name.text)) {
    // A predefined constant is an integer operand that keeps its name.
    const PredefinedConstant* constant = predefinedConstant(name.text);
    if (!constant) fail(name, "undefined symbol '" + std::string(name.text) + "'");
    op.kind = Operand::Kind::Integer;
    op.intValue = constant->value;
    return;
  }
  op.kind = Operand::Kind::Symbol;
  // `sym+4` / `sym-4` (mov of a variable's address plus an offset).
  if (peek().is('+') || peek().is('-')) {
    bool minus = next().is('-');
    int64_t v = expectInteger("an offset");
    op.offset = minus ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v;
  }
}

void ModuleParser::parseAddress(Operand& op, Function& function, BlockScopes& scopes, const Instruction& inst, int depth) {
  Token open = next();  // '['
  op.kind = Operand::Kind::Address;
  const Token& b = peek();
  if (b.kind == TokenKind::Identifier) {
    Token name = next();
    RegisterId id = scopes.lookupRegister(name.text);
    if (id >= 0) {
      op.base.kind = Operand::Kind::Register;
      op.base.reg = id;
    } else if (name.text[0] == '%' && !isSpecialRegister(name.text)) {
      fail(name, "undefined register '" + std::string(name.text) + "'");
    } else {
      if (!isKnownSymbol(name.text)) fail(name, "undefined symbol '" + std::string(name.text) + "'");
      op.base.kind = Operand::Kind::Symbol;  // named by op.text (Operand::baseSymbol)
    }
    op.text = function.intern(name.text);
  } else if (b.kind == TokenKind::Integer) {
    op.base.kind = Operand::Kind::Integer;
    op.intValue = integerValue(next());  // Operand::baseValue
  } else {
    fail(b, "expected a register, symbol or address in '[ ]', found " + describe(b));
  }
  // [base+imm], [base+-imm], [base-imm]
  if (peek().is('+') || peek().is('-')) {
    bool minus = next().is('-');
    int64_t v = expectInteger("an address offset");
    if (minus) v = static_cast<int64_t>(0 - static_cast<uint64_t>(v));
    op.offset = v;
  }
  // [tensorMap, {c0, c1}] and similar: further elements.
  // The coordinates of a vector are the address's elements, flattened.
  while (accept(',')) {
    Operand& element = op.elements.emplace_back();
    parseOperand(element, function, scopes, inst, depth + 1);
    if (element.kind == Operand::Kind::Vector) {
      std::vector<Operand> coordinates = element.elements.take();
      op.elements.pop_back();
      for (auto& e : coordinates) op.elements.push_back(std::move(e));
    }
  }
  if (!peek().is(']')) fail(peek(), "expected ']' to close the address opened at line " + std::to_string(open.line) +
                                        ", found " + describe(peek()));
  next();
}

void ModuleParser::parseOperand(Operand& op, Function& function, BlockScopes& scopes, const Instruction& inst,
                                int depth) {
  if (depth > 8) fail(peek(), "operand nested too deeply");
  const Token& t = peek();
  if (t.is('!')) {
    next();
    Token name = expectIdentifier("a predicate after '!'");
    parseNameOperand(op, function, scopes, inst, name);
    op.negated = true;
  } else if (t.is('-')) {
    next();
    if (peek().kind != TokenKind::Integer && peek().kind != TokenKind::Float)
      fail(peek(), "expected a number after '-', found " + describe(peek()));
    parseNumber(op, true);
  } else if (t.kind == TokenKind::Integer || t.kind == TokenKind::Float) {
    parseNumber(op, false);
  } else if (t.kind == TokenKind::Identifier) {
    Token name = next();
    parseNameOperand(op, function, scopes, inst, name);
  } else if (t.is('[')) {
    parseAddress(op, function, scopes, inst, depth);
  } else if (t.is('{') || t.is('(')) {
    char close = t.is('{') ? '}' : ')';
    op.kind = t.is('{') ? Operand::Kind::Vector : Operand::Kind::ParamList;
    next();
    if (!accept(close)) {
      do parseOperand(op.elements.emplace_back(), function, scopes, inst, depth + 1);
      while (accept(','));
      expect(close, op.kind == Operand::Kind::Vector ? "to close the vector operand" : "to close the parameter list");
    }
  } else {
    fail(t, "expected an operand, found " + describe(t));
  }
  // setp/shfl write a predicate pair: %p|%q.
  if (peek().is('|')) {
    next();
    Operand first = std::move(op);
    op = Operand{};
    op.kind = Operand::Kind::PredicatePair;
    op.elements.reserve(2);
    op.elements.push_back(std::move(first));
    Token second = expectIdentifier("a predicate after '|'");
    parseNameOperand(op.elements.emplace_back(), function, scopes, inst, second);
  }
}

// `.loc F L C[, function_name LABEL[+imm]][, inlined_at F2 L2 C2]` (see DebugInfo.h).
// nvcc's `.loc` lines are read by a byte scanner (FastScan.h); any other
// shape, or a line the token parser would continue past its end (a ','
// next), goes through the tokens below.
bool ModuleParser::parseLocLine() {
  const Token at = peek();
  std::optional<LocLine> loc = scanLocLine(text_, at.offset);
  if (!loc) return false;
  ScanPosition start = lexer_.position();
  ScanPosition end = start;
  end.offset = loc->end;
  lexer_.seek(end);
  if (peek().is(',')) {
    lexer_.seek(start);
    return false;
  }
  previous_ = Token{loc->lastIsNumber ? TokenKind::Integer : TokenKind::Identifier,
                    text_.substr(loc->lastToken, loc->lastTokenLength), static_cast<uint32_t>(loc->lastToken), at.line,
                    static_cast<uint32_t>(loc->lastToken - start.lineStart + 1), at.inInlineAsm};
  if (!loc->hasFunction) currentLocation_ = locations_.plain(loc->file, loc->line, loc->column);
  else
    currentLocation_ = locations_.inlined(loc->file, loc->line, loc->column, loc->functionLabel, loc->hasInlinedAt,
                                          loc->atFile, loc->atLine, loc->atColumn);
  return true;
}

void ModuleParser::parseLoc() {
  if (parseLocLine()) return;
  next();  // .loc
  auto number = [&](const char* what, int64_t max) {
    Token t = peek();
    int64_t v = expectInteger(what);
    if (v < 0 || v > max) fail(t, std::string(what) + " out of range in .loc");
    return v;
  };
  int32_t file = static_cast<int32_t>(number("a file index", INT32_MAX));
  uint32_t line = static_cast<uint32_t>(number("a line number", UINT32_MAX));
  uint32_t column = static_cast<uint32_t>(number("a column number", UINT32_MAX));
  std::string_view functionLabel;
  bool hasFunction = false, hasInlinedAt = false;
  int32_t atFile = 0;
  uint32_t atLine = 0, atColumn = 0;
  while (accept(',')) {
    Token key = expectIdentifier("function_name or inlined_at");
    if (key.text == "function_name") {
      functionLabel = expectIdentifier("a debug string label").text;
      hasFunction = true;
      if (accept('+')) expectInteger("an offset");
    } else if (key.text == "inlined_at") {
      atFile = static_cast<int32_t>(number("a file index", INT32_MAX));
      atLine = static_cast<uint32_t>(number("a line number", UINT32_MAX));
      atColumn = static_cast<uint32_t>(number("a column number", UINT32_MAX));
      hasInlinedAt = true;
    } else {
      fail(key, "unknown .loc attribute " + describe(key));
    }
  }
  if (!hasFunction && !hasInlinedAt) currentLocation_ = locations_.plain(file, line, column);
  else currentLocation_ = locations_.inlined(file, line, column, functionLabel, hasInlinedAt, atFile, atLine, atColumn);
}

}  // namespace fenceline::ptx
