// The recursive-descent parser behind ModuleReader and parseModule (internal
// to src/ptx).
//
// ModuleParser.cpp holds the module level (directives, variables, function
// headers, debug sections); BodyParser.cpp holds function bodies (blocks,
// labels, instructions, operands, .loc). Errors throw ParseError at once: no
// recovery, since one malformed line makes the rest of the model meaningless.
// Nesting (blocks, vectors, initializers) is bounded so that no input can
// exhaust the stack.
//
// Two passes: readModule() reads the module level and skips each function
// body with FastScan's scanBody, remembering where it is; loadBody() parses
// one body later, from its header again, with the module-level facts the
// first pass gathered (symbols, .debug_str names, the register budget).
// Errors come out as in one sequential pass: the first in the file wins.
#pragma once

#include <optional>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ptx/Ast.h"
#include "ptx/DebugInfo.h"
#include "ptx/Lexer.h"
#include "ptx/Parser.h"
#include "ptx/Scopes.h"

namespace fenceline::ptx {

class ModuleParser {
 public:
  ModuleParser(std::string_view text, std::string path);
  // The first pass: everything but function bodies. `progress`, when set,
  // is told the offset reached after each top-level statement (a caller that
  // maps the text gives back the pages behind it).
  void readModule(const std::function<void(size_t)>& progress = {});
  Module& module() { return module_; }
  // Parses the body of module().functions[index] into it (it has a body).
  void loadBody(size_t index);
  // Frees what loadBody added; the header stays, but for its parameters
  // (a body's are there only while it is loaded).
  void releaseBody(size_t index);
  bool isLoaded(size_t index) const { return bodies_[index].loaded; }
  // Instructions of all bodies, as counted by the first pass.
  size_t instructionCount() const { return instructionCount_; }
  // Bytes of function `index`'s PTX text, declaration to closing brace (0 without a body).
  size_t textBytes(size_t index) const {
    const BodyText& body = bodies_[index];
    return body.end > body.declaration.offset ? body.end - body.declaration.offset : 0;
  }

 private:
  static constexpr int kMaxNesting = 64;

  // Errors.
  [[noreturn]] void fail(const Token& at, const std::string& message);
  [[noreturn]] void failAt(uint32_t offset, uint32_t line, uint32_t column, const std::string& message);
  static void lexerFailed(void* self, uint32_t offset, uint32_t line, uint32_t column, const std::string& message);
  [[noreturn]] void failExpected(const std::string& what);
  static std::string describe(const Token& token);

  // Token helpers.
  const Token& peek() const { return lexer_.peek(); }
  // The token consumed (valid until the next call).
  const Token& next() {
    previous_ = lexer_.peek();
    lexer_.consume();
    return previous_;
  }
  bool accept(char punct);
  Token expect(char punct, const char* context);
  Token expectIdentifier(const char* what);
  Token expectDirective(const char* what);
  int64_t expectInteger(const char* what);  // with optional leading '-'
  int64_t integerValue(const Token& token);
  double floatValue(const Token& token);
  void skipPast(char punct, const char* context);  // skips tokens through `punct`

  // Module level (ModuleParser.cpp).
  void parseTopLevel();
  void parseFileDirective();
  void parseSection();
  void parseDeclaration();
  void parseFunction(const Token& kind, bool isVisible, bool isExtern, bool isWeak);
  void parseParameters(std::vector<Parameter>& out, bool isReturn);
  Parameter parseParameter();
  void parseFunctionAttributes(Function& function);
  // The `"text";` after `.pragma`, in a function's header or body.
  void parsePragma(Function& function);
  // `[.extern] .space attrs .type name[dims] [= init]`; names split by commas.
  // Symbols by name, with the offset of their first declaration.
  using Symbols = std::unordered_map<std::string_view, uint32_t>;
  void parseVariables(std::string space, bool isExtern, bool isVisible, bool isWeak, std::vector<Variable>& out,
                      Symbols& names);
  void parseInitializer(std::vector<int64_t>& out, int depth);
  int64_t parseArrayDims();  // -1 none, 0 [], else product

  void parseSectionStatement(bool isDebugStr);
  // The first pass's way past a body: records where it is, then skips it.
  void skipBody(Function& function);
  // The first error in the file, once the first pass failed with `error`:
  // that of a body before it, if any.
  [[noreturn]] void failFirst(const ParseError& error, size_t bodies);

  // Function bodies (BodyParser.cpp).
  void parseBody(Function& function);
  void parseBodyStatement(Function& function, BlockScopes& scopes);
  void parseRegisterDeclaration(BlockScopes& scopes);
  void parseLabelOrDeclaration(Function& function, BlockScopes& scopes, const Token& name);
  // `[@[!]p] opcode operands;`; `opcodeRead` when the caller already consumed
  // the opcode (to tell it from a label).
  void parseInstruction(Function& function, BlockScopes& scopes, std::optional<Token> opcodeRead);
  // Operands are parsed into `op` (a default Operand) where they will stay:
  // an Operand is a large value, and moving millions of them shows.
  void parseOperand(Operand& op, Function& function, BlockScopes& scopes, const Instruction& inst, int depth);
  void parseNameOperand(Operand& op, Function& function, BlockScopes& scopes, const Instruction& inst, const Token& name);
  void parseAddress(Operand& op, Function& function, BlockScopes& scopes, const Instruction& inst, int depth);
  void parseNumber(Operand& op, bool negative);
  void parseLoc();
  bool parseLocLine();

  std::string_view text_;
  std::string path_;
  Lexer lexer_;
  Module module_;
  DebugStrings debugStrings_;
  LocationTable locations_;
  LocationId currentLocation_ = kNoLocation;
  size_t expectedInstructions_ = 0;      // loadBody's hint to parseBody
  std::vector<Operand> operandScratch_;  // parseInstruction's operands while they are read
  std::string spellingScratch_;          // an opcode with qualifiers after a space
  int64_t registersLeft_ = 0;  // the module's register budget (BlockScopes::kModuleRegisterBase)
  // Names an operand may use as a symbol (views into the text): variables and
  // functions declared so far; params, locals and prototypes of this function.
  // A body may name the module symbols declared before it ('{' at bodyStart_).
  Symbols moduleSymbols_;
  Symbols functionSymbols_;
  uint32_t bodyStart_ = 0;
  bool isKnownSymbol(std::string_view name) const {
    if (functionSymbols_.count(name)) return true;
    auto found = moduleSymbols_.find(name);
    return found != moduleSymbols_.end() && found->second < bodyStart_;
  }

  // Where each function's text is (per module_.functions index).
  struct BodyText {
    ScanPosition declaration;  // its first directive (linkage, .entry/.func)
    size_t end = 0;            // just after the body's '}'
    bool loaded = false;
    bool parsedOnce = false;   // its registers are charged to registersLeft_
    size_t instructions = 0;   // as the first pass counted them (BodyScan::instructions)
  };
  std::vector<BodyText> bodies_;
  ScanPosition declarationStart_;
  // loadBody() in progress: parseFunction parses the body into loaded_.
  bool loading_ = false;
  Function loaded_;
  size_t instructionCount_ = 0;
  // The last token consumed: "expected ';'" and the like point just after it
  // when the unexpected token is on a later line (the usual missing-';' case).
  Token previous_;
};

}  // namespace fenceline::ptx
