// Name resolution inside one function body, with `{ }` block scoping.
//
// nvcc pastes every inline `asm` statement into the body, usually wrapped in
// its own `{ }` with block-local `.reg` declarations and labels that repeat in
// every inlined copy (`LAB_WAIT:`). Registers resolve to the innermost
// declaration in scope. A branch may name a label defined later in its block,
// so label uses wait in their block until it closes: a use resolves to the
// label of the innermost enclosing block that defines it; what no block
// defines is an error at the use.
//
// `.reg .b32 %r<16>;` declares %r0..%r15. Ranges are kept as (prefix, count)
// so that `%r123` resolves by parsing its number instead of hashing thousands
// of names; Function::registers still lists every register.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ptx/Ast.h"

namespace fenceline::ptx {

class BlockScopes {
 public:
  // A label use waiting for its block to close.
  struct LabelUse {
    std::string_view name;
    int32_t instruction = 0;  // < 0: element `operand` of branchTargets[-1 - instruction]
    int32_t operand = 0;
    uint32_t offset = 0;  // of the name in the text, for errors
    TextPos pos;
  };
  // Why a declaration or use failed; empty when it did not.
  using Problem = std::string;

  // `registersLeft`: how many registers the module may still declare (see
  // ModuleParser::registersLeft_); never more than kMaxRegisters.
  explicit BlockScopes(Function& function, int64_t registersLeft = kMaxRegisters)
      : function_(function), registersLeft_(registersLeft) {}

  void push();
  // Closes the innermost block: resolves its pending label uses against its
  // labels and hands the rest to the enclosing block. When the outermost block
  // closes, returns the first use no block resolved (if any).
  std::optional<LabelUse> pop();
  size_t depth() const { return scopes_.size(); }

  Problem declareRegister(std::string_view name, std::string_view type);
  Problem declareRegisterRange(std::string_view prefix, int64_t count, std::string_view type);
  // The register `name` denotes in the current scope, or -1.
  RegisterId lookupRegister(std::string_view name) const;

  Problem defineLabel(std::string_view name, TextPos pos);
  void useLabel(const LabelUse& use);

  // Upper bound on registers per function, so that a corrupt `%r<99999999>`
  // is an error rather than an allocation of gigabytes.
  static constexpr int64_t kMaxRegisters = int64_t{1} << 22;
  // And per module: kModuleRegisterBase plus one per two bytes of text, so
  // that eight kernels of `%r<4000000>` in 500 bytes are an error too, while
  // nvcc's output (a few bytes of text per register it declares) never is.
  static constexpr int64_t kModuleRegisterBase = int64_t{1} << 20;

 private:
  struct Range {
    std::string_view prefix;
    int64_t count = 0;
    RegisterId first = 0;
    uint64_t packed = 0;  // the prefix's bytes when it has at most 8 (most do): one compare
  };
  // Up to 8 bytes of `text` in one integer (zero-padded); 0 when longer.
  static uint64_t pack(std::string_view text) {
    if (text.size() > 8) return 0;
    uint64_t packed = 0;
    for (size_t i = 0; i < text.size(); ++i) packed |= uint64_t{static_cast<unsigned char>(text[i])} << (8 * i);
    return packed;
  }
  struct Scope {
    std::unordered_map<std::string_view, RegisterId> registers;
    // A bit per (length, last character) class of the names in `registers`:
    // most lookups (`%r12` beside a declared `%SP`) skip hashing the name.
    uint64_t registerClasses = 0;
    std::vector<Range> ranges;
    std::unordered_map<std::string_view, LabelId> labels;
    std::vector<LabelUse> pendingUses;
  };
  static constexpr size_t kMaxRangeSlack = 4096;  // registers reserved beyond a range's need
  RegisterId lookupIn(const Scope& scope, std::string_view name) const;
  static uint64_t nameClass(std::string_view name) {
    return uint64_t{1} << ((name.size() * 7 + static_cast<unsigned char>(name.empty() ? 0 : name.back())) & 63);
  }

  // The reason a declaration of `count` more registers is refused, or empty.
  Problem tooManyRegisters(int64_t count) const;

  Function& function_;
  int64_t registersLeft_;
  std::vector<Scope> scopes_;
};

}  // namespace fenceline::ptx
