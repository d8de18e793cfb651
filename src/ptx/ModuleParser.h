// The recursive-descent parser behind parseModule (internal to src/ptx).
//
// ModuleParser.cpp holds the module level (directives, variables, function
// headers, debug sections); BodyParser.cpp holds function bodies (blocks,
// labels, instructions, operands, .loc). Errors throw ParseError at once: no
// recovery, since one malformed line makes the rest of the model meaningless.
// Nesting (blocks, vectors, initializers) is bounded so that no input can
// exhaust the stack.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "ptx/Ast.h"
#include "ptx/DebugInfo.h"
#include "ptx/Lexer.h"
#include "ptx/Scopes.h"

namespace fenceline::ptx {

class ModuleParser {
 public:
  ModuleParser(std::string_view text, std::string path);
  Module run();

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
  Token next() {
    previous_ = lexer_.next();
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
  // `[.extern] .space attrs .type name[dims] [= init]`; names split by commas.
  void parseVariables(std::string space, bool isExtern, bool isVisible, bool isWeak, std::vector<Variable>& out,
                      std::unordered_set<std::string_view>& names);
  void parseInitializer(std::vector<int64_t>& out, int depth);
  int64_t parseArrayDims();  // -1 none, 0 [], else product

  // Function bodies (BodyParser.cpp).
  void parseBody(Function& function);
  void parseBodyStatement(Function& function, BlockScopes& scopes);
  void parseRegisterDeclaration(BlockScopes& scopes);
  void parseLabelOrDeclaration(Function& function, BlockScopes& scopes, const Token& name);
  // `[@[!]p] opcode operands;`; `opcodeRead` when the caller already consumed
  // the opcode (to tell it from a label).
  void parseInstruction(Function& function, BlockScopes& scopes, std::optional<Token> opcodeRead);
  Operand parseOperand(Function& function, BlockScopes& scopes, const Instruction& inst, int depth);
  Operand parseNameOperand(Function& function, BlockScopes& scopes, const Instruction& inst, const Token& name);
  Operand parseAddress(Function& function, BlockScopes& scopes, const Instruction& inst, int depth);
  Operand parseNumber(bool negative);
  void parseLoc();

  std::string_view text_;
  std::string path_;
  Lexer lexer_;
  Module module_;
  DebugStrings debugStrings_;
  LocationTable locations_;
  LocationId currentLocation_ = kNoLocation;
  int64_t registersLeft_ = 0;  // the module's register budget (BlockScopes::kModuleRegisterBase)
  // Names an operand may use as a symbol (views into the text): variables and
  // functions declared so far; params, locals and prototypes of this function.
  std::unordered_set<std::string_view> moduleSymbols_;
  std::unordered_set<std::string_view> functionSymbols_;
  bool isKnownSymbol(std::string_view name) const {
    return functionSymbols_.count(name) || moduleSymbols_.count(name);
  }
  // The last token consumed: "expected ';'" and the like point just after it
  // when the unexpected token is on a later line (the usual missing-';' case).
  Token previous_;
};

}  // namespace fenceline::ptx
