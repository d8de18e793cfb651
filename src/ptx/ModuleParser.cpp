// Module level of the PTX parser: `.version`, `.target`, `.address_size`,
// `.file`, debug `.section`s, variables in every state space, and function
// headers (`.entry`/`.func`, return values, parameters, prototypes,
// performance directives). Bodies are in BodyParser.cpp.
#include <charconv>
#include <cstring>

#include "ptx/ModuleParser.h"
#include "ptx/Parser.h"
#include "ptx/SourceExcerpt.h"

namespace fenceline::ptx {
namespace {

bool isStateSpace(std::string_view d) {
  return d == ".global" || d == ".shared" || d == ".const" || d == ".local" || d == ".param" || d == ".tex" ||
         d == ".reg" || d == ".sreg";
}
bool isLinkage(std::string_view d) { return d == ".extern" || d == ".visible" || d == ".weak" || d == ".common"; }

}  // namespace

ParseError::ParseError(std::string file_, uint32_t line_, uint32_t column_, std::string message_, std::string excerpt_)
    : std::runtime_error(file_ + ":" + std::to_string(line_) + ":" + std::to_string(column_) + ": " + message_),
      file(std::move(file_)),
      line(line_),
      column(column_),
      message(std::move(message_)),
      excerpt(std::move(excerpt_)) {}

ModuleParser::ModuleParser(std::string_view text, std::string path)
    : text_(text), path_(std::move(path)), lexer_(text, &ModuleParser::lexerFailed, this),
      locations_(module_.locations) {
  module_.path = path_;
  registersLeft_ = BlockScopes::kModuleRegisterBase + static_cast<int64_t>(text.size() / 2);
}

// ---------------------------------------------------------------- errors

void ModuleParser::failAt(uint32_t offset, uint32_t line, uint32_t column, const std::string& message) {
  throw ParseError(path_, line, column, message, sourceExcerpt(text_, offset, column));
}

void ModuleParser::fail(const Token& at, const std::string& message) { failAt(at.offset, at.line, at.column, message); }

void ModuleParser::lexerFailed(void* self, uint32_t offset, uint32_t line, uint32_t column, const std::string& message) {
  static_cast<ModuleParser*>(self)->failAt(offset, line, column, message);
}

std::string ModuleParser::describe(const Token& token) {
  if (token.kind == TokenKind::End) return "end of file";
  std::string_view shown = token.text.substr(0, 40);
  return "'" + std::string(shown) + (token.text.size() > 40 ? "...'" : "'");
}

// ---------------------------------------------------------------- tokens

bool ModuleParser::accept(char punct) {
  if (!peek().is(punct)) return false;
  next();
  return true;
}

void ModuleParser::failExpected(const std::string& what) {
  // When the unexpected token starts a later line, something is missing at
  // the end of the previous one: point there.
  if (!previous_.text.empty() && (peek().kind == TokenKind::End || peek().line > previous_.line)) {
    auto length = static_cast<uint32_t>(previous_.text.size());
    failAt(previous_.offset + length, previous_.line, previous_.column + length, "expected " + what);
  }
  fail(peek(), "expected " + what + ", found " + describe(peek()));
}

Token ModuleParser::expect(char punct, const char* context) {
  if (!peek().is(punct)) failExpected(std::string("'") + punct + "' " + context);
  return next();
}

Token ModuleParser::expectIdentifier(const char* what) {
  if (peek().kind != TokenKind::Identifier) failExpected(what);
  return next();
}

Token ModuleParser::expectDirective(const char* what) {
  if (peek().kind != TokenKind::Directive) failExpected(what);
  return next();
}

int64_t ModuleParser::expectInteger(const char* what) {
  bool negative = accept('-');
  if (peek().kind != TokenKind::Integer) failExpected(what);
  int64_t value = integerValue(next());
  return negative ? static_cast<int64_t>(0 - static_cast<uint64_t>(value)) : value;
}

int64_t ModuleParser::integerValue(const Token& token) {
  std::string_view s = token.text;
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.remove_suffix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, s.remove_prefix(2);
  else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) base = 2, s.remove_prefix(2);
  else if (s.size() > 1 && s[0] == '0') base = 8, s.remove_prefix(1);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (s.empty() || ec == std::errc::result_out_of_range) fail(token, "integer " + describe(token) + " is out of range");
  if (ec != std::errc() || end != s.data() + s.size()) fail(token, "malformed number " + describe(token));
  return static_cast<int64_t>(value);
}

double ModuleParser::floatValue(const Token& token) {
  std::string_view s = token.text;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
    bool isDouble = s[1] == 'd' || s[1] == 'D';
    std::string_view hex = s.substr(2);
    uint64_t bits = 0;
    auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), bits, 16);
    if (hex.size() != (isDouble ? 16u : 8u) || ec != std::errc() || end != hex.data() + hex.size())
      fail(token, "malformed floating-point literal " + describe(token));
    if (isDouble) {
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return d;
    }
    uint32_t b32 = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b32, sizeof f);
    return f;
  }
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) fail(token, "malformed number " + describe(token));
  return value;
}

void ModuleParser::skipPast(char punct, const char* context) {
  while (!peek().is(punct)) {
    if (peek().kind == TokenKind::End) fail(peek(), std::string("expected '") + punct + "' " + context);
    next();
  }
  next();
}

// ---------------------------------------------------------------- module

void ModuleParser::readModule(const std::function<void(size_t)>& progress) {
  try {
    while (peek().kind != TokenKind::End) {
      parseTopLevel();
      if (progress) progress(lexer_.position().offset);
    }
  } catch (const ParseError& error) {
    failFirst(error, bodies_.size());
  }
  locations_.resolveNames(debugStrings_);
  module_.indexFunctions();
}

void ModuleParser::failFirst(const ParseError& error, size_t bodies) {
  for (size_t i = 0; i < bodies; ++i) {
    if (!module_.functions[i].hasBody || bodies_[i].parsedOnce) continue;
    loadBody(i);  // throws the earlier error, if this body has one
    releaseBody(i);
  }
  throw error;
}

void ModuleParser::loadBody(size_t index) {
  BodyText& body = bodies_[index];
  if (body.loaded) return;
  // A body parsed before has its registers charged already.
  int64_t registersLeft = registersLeft_;
  if (body.parsedOnce) registersLeft_ = BlockScopes::kMaxRegisters;
  lexer_.seek(body.declaration);
  expectedInstructions_ = body.instructions;
  loading_ = true;
  try {
    parseDeclaration();
  } catch (const ParseError& error) {
    loading_ = false;
    // Bodies are read out of order (a kernel's callees first): an earlier
    // body not yet read may hold the file's first error.
    failFirst(error, index);
  }
  loading_ = false;
  if (body.parsedOnce) registersLeft_ = registersLeft;
  if (previous_.offset + 1 != body.end)
    fail(previous_, "the braces of function '" + loaded_.name + "' do not balance");
  module_.functions[index] = std::move(loaded_);
  loaded_ = Function();
  body.loaded = body.parsedOnce = true;
}

void ModuleParser::releaseBody(size_t index) {
  // Assigning fresh vectors frees their storage (`= {}` would keep it).
  Function& f = module_.functions[index];
  f.params = std::vector<Parameter>();  // as after the first pass (skipBody)
  f.returns = std::vector<Parameter>();
  f.registers = std::vector<Register>();
  f.locals = std::vector<Variable>();
  f.instructions = std::vector<Instruction>();
  f.labels = std::vector<Label>();
  f.branchTargets = std::vector<BranchTargets>();
  f.strings.reset();
  bodies_[index].loaded = false;
}

void ModuleParser::parseTopLevel() {
  const Token& t = peek();
  if (t.kind != TokenKind::Directive) fail(t, "expected a directive at module level, found " + describe(t));
  std::string_view d = t.text;
  if (d == ".version") {
    next();
    if (peek().kind != TokenKind::Float && peek().kind != TokenKind::Integer) fail(peek(), "expected a version number");
    module_.version = std::string(next().text);
  } else if (d == ".target") {
    next();
    do module_.targets.emplace_back(expectIdentifier("a target name").text);
    while (accept(','));
  } else if (d == ".address_size") {
    Token at = next();
    int64_t size = expectInteger("an address size");
    if (size != 32 && size != 64) fail(at, "address size must be 32 or 64");
    module_.addressSize = static_cast<int32_t>(size);
  } else if (d == ".file") {
    parseFileDirective();
  } else if (d == ".section") {
    parseSection();
  } else if (d == ".loc") {
    parseLoc();
  } else if (d == ".pragma") {
    next();
    if (peek().kind != TokenKind::String) fail(peek(), "expected a string after .pragma");
    next();
    expect(';', "after .pragma");
  } else if (d == ".alias") {
    next();
    skipPast(';', "after .alias");
  } else if (isLinkage(d) || isStateSpace(d) || d == ".entry" || d == ".func") {
    parseDeclaration();
  } else {
    fail(t, "unknown module directive " + describe(t));
  }
}

void ModuleParser::parseFileDirective() {
  next();  // .file
  int64_t index = expectInteger("a file index");
  if (peek().kind != TokenKind::String) fail(peek(), "expected a file name string");
  Token name = next();
  // Optional ", timestamp, size".
  while (accept(',')) expectInteger("a .file timestamp or size");
  std::string path(name.text.substr(1, name.text.size() - 2));
  if (index < 0 || index > INT32_MAX) fail(name, "file index out of range");
  module_.files.push_back(SourceFile{static_cast<int32_t>(index), std::move(path)});
}

// `.section NAME { label: .bN item, item ... }`. Only .debug_str is decoded
// (function names for .loc); other debug sections (-G) are checked for shape
// and dropped. -lineinfo files are mostly .b8 lines: see FastScan.h.
void ModuleParser::parseSection() {
  next();  // .section
  const Token& nameToken = peek();
  if (nameToken.kind != TokenKind::Directive && nameToken.kind != TokenKind::Identifier)
    fail(nameToken, "expected a section name");
  bool isDebugStr = next().text == ".debug_str";
  expect('{', "to open the section");
  // Lines in nvcc's shape go through the fast scanner; the token parser
  // reads any other statement (and says what is wrong with it).
  for (;;) {
    lexer_.seek(scanSectionLines(text_, lexer_.position(), isDebugStr ? &debugStrings_ : nullptr));
    if (accept('}')) return;
    parseSectionStatement(isDebugStr);
  }
}

// One statement of a section: `label:` or `.bN item, item ...`.
void ModuleParser::parseSectionStatement(bool isDebugStr) {
  Token t = next();
  if (t.kind == TokenKind::Identifier && peek().is(':')) {
    next();
    if (isDebugStr) debugStrings_.beginLabel(t.text);
    return;
  }
  if (t.kind != TokenKind::Directive || !(t.text == ".b8" || t.text == ".b16" || t.text == ".b32" || t.text == ".b64"))
    fail(t, "expected a label or .b8/.b16/.b32/.b64 data in section, found " + describe(t));
  bool bytes = isDebugStr && t.text == ".b8";
  do {
    Token item = next();
    if (item.is('-')) item = next();
    if (item.kind == TokenKind::Integer) {
      if (bytes) {
        int64_t v = integerValue(item);
        if (v < 0 || v > 255) fail(item, ".b8 value out of range");
        debugStrings_.addByte(static_cast<uint8_t>(v));
      }
    } else if (item.kind == TokenKind::Identifier || item.kind == TokenKind::Directive) {
      // A label reference, optionally plus or minus an offset.
      if (accept('+') || accept('-')) expectInteger("an offset");
    } else {
      fail(item, "expected section data, found " + describe(item));
    }
  } while (accept(','));
}

// ---------------------------------------------------------------- declarations

void ModuleParser::parseDeclaration() {
  declarationStart_ = lexer_.position();
  bool isVisible = false, isExtern = false, isWeak = false;
  while (peek().kind == TokenKind::Directive && isLinkage(peek().text)) {
    std::string_view d = next().text;
    isVisible |= d == ".visible";
    isExtern |= d == ".extern";
    isWeak |= d == ".weak" || d == ".common";
  }
  const Token& t = peek();
  if (t.isDirective(".entry") || t.isDirective(".func")) {
    Token kind = next();
    parseFunction(kind, isVisible, isExtern, isWeak);
    return;
  }
  if (t.kind == TokenKind::Directive && isStateSpace(t.text) && t.text != ".reg" && t.text != ".param") {
    std::string space(next().text);
    parseVariables(std::move(space), isExtern, isVisible, isWeak, module_.globals, moduleSymbols_);
    return;
  }
  fail(t, "expected .entry, .func or a variable declaration, found " + describe(t));
}

Parameter ModuleParser::parseParameter() {
  Token spaceToken = expectDirective("a parameter (.param or .reg)");
  if (spaceToken.text != ".param" && spaceToken.text != ".reg") fail(spaceToken, "expected .param or .reg");
  Parameter p;
  p.space = std::string(spaceToken.text);
  while (peek().kind == TokenKind::Directive) {
    Token d = next();
    if (d.text == ".align") {
      p.align = expectInteger("an alignment");
    } else if (d.text == ".ptr") {
      p.isPointer = true;
    } else if (p.isPointer && isStateSpace(d.text)) {
      // `.ptr .global`: the space the pointer points to.
    } else if (d.text.size() >= 3 && d.text[1] == 'v' && d.text[2] >= '0' && d.text[2] <= '9') {
      p.type += std::string(d.text);  // vector prefix, e.g. ".v4.f32"
    } else {
      p.type += std::string(d.text);
    }
  }
  if (p.type.empty()) fail(peek(), "expected a parameter type");
  Token name = expectIdentifier("a parameter name");
  p.name = std::string(name.text);
  functionSymbols_.emplace(name.text, name.offset);
  p.arraySize = parseArrayDims();
  return p;
}

void ModuleParser::parseParameters(std::vector<Parameter>& out, bool isReturn) {
  expect('(', isReturn ? "to open the return values" : "to open the parameters");
  if (accept(')')) return;
  do out.push_back(parseParameter());
  while (accept(','));
  expect(')', "to close the parameter list");
}

void ModuleParser::parsePragma(Function& function) {
  if (peek().kind != TokenKind::String) fail(peek(), "expected a string after .pragma");
  Token s = next();
  function.pragmas.emplace_back(s.text.substr(1, s.text.size() - 2));
  expect(';', "after .pragma");
}

void ModuleParser::parseFunctionAttributes(Function& function) {
  // Performance-tuning directives and .pragma between the header and the body.
  while (peek().kind == TokenKind::Directive) {
    Token d = next();
    if (d.text == ".pragma") {
      parsePragma(function);
      continue;
    }
    if (d.text == ".noreturn" || d.text == ".explicitcluster" || d.text == ".blocksareclusters") {
      function.performanceDirectives.emplace_back(std::string(d.text), std::vector<int64_t>{});
      continue;
    }
    static constexpr std::string_view kWithNumbers[] = {".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm",
                                                        ".maxnreg", ".reqnctapercluster", ".maxclusterrank"};
    bool known = false;
    for (auto k : kWithNumbers) known |= d.text == k;
    if (!known) fail(d, "unexpected directive " + describe(d) + " in a function header");
    std::vector<int64_t> values;
    do values.push_back(expectInteger("a number"));
    while (accept(','));
    function.performanceDirectives.emplace_back(std::string(d.text), std::move(values));
  }
}

void ModuleParser::parseFunction(const Token& kind, bool isVisible, bool isExtern, bool isWeak) {
  Function function;
  function.isEntry = kind.text == ".entry";
  function.isVisible = isVisible;
  function.isExtern = isExtern;
  function.isWeak = isWeak;
  function.pos = TextPos{kind.line, kind.column};
  functionSymbols_.clear();
  // `.func .attribute(.unified(...))` and similar: skip the attribute.
  while (peek().isDirective(".attribute")) {
    next();
    expect('(', "after .attribute");
    int depth = 1;
    while (depth > 0) {
      Token t = next();
      if (t.kind == TokenKind::End) fail(t, "unterminated .attribute");
      if (t.is('(')) ++depth;
      if (t.is(')')) --depth;
    }
  }
  if (!function.isEntry && peek().is('(')) parseParameters(function.returns, true);
  Token name = expectIdentifier("a function name");
  function.name = std::string(name.text);
  moduleSymbols_.emplace(name.text, name.offset);
  if (peek().is('(')) parseParameters(function.params, false);
  parseFunctionAttributes(function);
  if (accept(';')) {
    module_.functions.push_back(std::move(function));
    bodies_.push_back(BodyText{declarationStart_});
    return;
  }
  if (!peek().is('{')) fail(peek(), "expected '{' or ';' after the function header, found " + describe(peek()));
  function.hasBody = true;
  if (loading_) {
    parseBody(function);
    loaded_ = std::move(function);
    return;
  }
  skipBody(function);
}

void ModuleParser::skipBody(Function& function) {
  ScanPosition open = lexer_.position();
  BodyScan scan = scanBody(text_, open);
  if (!scan.complete) {
    // The end of the file, an unterminated string or comment: the parser
    // says which, where.
    parseBody(function);
    failAt(open.offset, open.line, static_cast<uint32_t>(open.offset - open.lineStart + 1),
           "the braces of function '" + function.name + "' do not balance");
  }
  instructionCount_ += scan.instructions;
  // Its parameters are read again with its body (loadBody parses the header
  // too) and only a loaded body's are read: a mangled template kernel's
  // parameter names are about 300 bytes each (CuPy's thrust image: 3,912 of
  // them, 1.2 MB of names held for the whole image).
  function.params = std::vector<Parameter>();
  function.returns = std::vector<Parameter>();
  module_.functions.push_back(std::move(function));
  bodies_.push_back(BodyText{declarationStart_, scan.end.offset});
  bodies_.back().instructions = scan.instructions;
  // Last: seeking lexes the next token, which may fail (and then this body,
  // recorded, is read first for an earlier error).
  lexer_.seek(scan.end);
}

int64_t ModuleParser::parseArrayDims() {
  if (!peek().is('[')) return -1;
  int64_t size = 1;
  bool unsized = false;
  while (peek().is('[')) {
    Token open = next();
    if (accept(']')) {
      unsized = true;
      continue;
    }
    int64_t n = expectInteger("an array size");
    if (n < 0 || (size > 0 && n > (int64_t{1} << 40) / size)) fail(open, "array size out of range");
    size *= n;
    expect(']', "to close the array size");
  }
  return unsized ? 0 : size;
}

void ModuleParser::parseInitializer(std::vector<int64_t>& out, int depth) {
  if (depth > kMaxNesting) fail(peek(), "initializer nested too deeply");
  if (accept('{')) {
    if (accept('}')) return;
    // nvcc's lists of plain numbers (curand's tables: 100,000 of them) by
    // the byte scanner; the tokens below read any other shape.
    if (std::optional<ScanPosition> end = scanIntegerList(text_, lexer_.position(), out)) {
      const size_t close = end->offset - 1;
      previous_ = Token{TokenKind::Punct, text_.substr(close, 1), static_cast<uint32_t>(close), end->line,
                        static_cast<uint32_t>(close - end->lineStart + 1), end->inInlineAsm};
      lexer_.seek(*end);
      return;
    }
    do parseInitializer(out, depth + 1);
    while (accept(','));
    expect('}', "to close the initializer");
    return;
  }
  bool negative = accept('-');
  const Token& t = peek();
  if (t.kind == TokenKind::Integer) {
    int64_t v = integerValue(next());
    out.push_back(negative ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v);
  } else if (t.kind == TokenKind::Float) {
    double v = floatValue(next());
    out.push_back(static_cast<int64_t>(negative ? -v : v));
  } else if (t.kind == TokenKind::Identifier && !negative) {
    // A symbol, `generic(sym)`, optionally `+ offset`: an address, unknown here.
    Token name = next();
    if ((name.text == "generic" || name.text == "mask") && accept('(')) {
      expectIdentifier("a symbol");
      expect(')', "to close generic()");
    }
    if (accept('+') || accept('-')) expectInteger("an offset");
    out.push_back(0);
  } else {
    fail(t, "expected an initializer value, found " + describe(t));
  }
}

void ModuleParser::parseVariables(std::string space, bool isExtern, bool isVisible, bool isWeak,
                                  std::vector<Variable>& out, Symbols& names) {
  Variable base;
  base.space = std::move(space);
  base.isExtern = isExtern;
  base.isVisible = isVisible;
  base.isWeak = isWeak;
  while (peek().kind == TokenKind::Directive) {
    Token d = next();
    if (d.text == ".align") base.align = expectInteger("an alignment");
    else if (d.text == ".attribute") skipPast(')', "after .attribute");
    else base.type += std::string(d.text);
  }
  if (base.type.empty()) fail(peek(), "expected a type in the variable declaration, found " + describe(peek()));
  do {
    Token name = expectIdentifier("a variable name");
    Variable v = base;
    v.name = std::string(name.text);
    names.emplace(name.text, name.offset);
    v.pos = TextPos{name.line, name.column};
    v.arraySize = parseArrayDims();
    if (accept('=')) parseInitializer(v.initializer, 0);
    out.push_back(std::move(v));
  } while (accept(','));
  expect(';', "after the variable declaration");
}

// ---------------------------------------------------------------- entry point

namespace {


void checkSize(std::string_view text, const std::string& path) {
  if (text.size() >= UINT32_MAX) throw ParseError(path, 1, 1, "input is larger than 4 GiB", "");
}

}  // namespace

ModuleReader::ModuleReader(std::string_view text, std::string path, const std::function<void(size_t)>& progress) {
  checkSize(text, path);
  parser_ = std::make_unique<ModuleParser>(text, std::move(path));
  parser_->readModule(progress);
}

ModuleReader::~ModuleReader() = default;

const Module& ModuleReader::module() const { return parser_->module(); }
void ModuleReader::load(size_t index) { parser_->loadBody(index); }
void ModuleReader::release(size_t index) { parser_->releaseBody(index); }
bool ModuleReader::isLoaded(size_t index) const { return parser_->isLoaded(index); }
size_t ModuleReader::instructionCount() const { return parser_->instructionCount(); }
size_t ModuleReader::textBytes(size_t index) const { return parser_->textBytes(index); }

Module parseModule(std::string_view text, std::string path) {
  checkSize(text, path);
  ModuleParser parser(text, std::move(path));
  parser.readModule();
  for (size_t i = 0; i < parser.module().functions.size(); ++i)
    if (parser.module().functions[i].hasBody) parser.loadBody(i);
  return std::move(parser.module());
}

}  // namespace fenceline::ptx
