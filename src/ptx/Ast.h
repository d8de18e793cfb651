// The PTX syntax tree. The parser fills it; the program model reads it.
//
// Design choices that the rest of fenceline relies on:
//  - Every register operand is resolved to a RegisterId of its function, so
//    block-local `.reg` declarations inside inline-asm `{ }` blocks (which may
//    reuse outer names) are distinct registers.
//  - Labels are resolved at parse time with `{ }` scoping (inline asm repeats the
//    same label names in every inlined copy); a branch target is a LabelId.
//  - A function body is flat: nested blocks are gone once names are resolved.
//  - Each instruction carries the debug location (.loc) in force when it was
//    parsed, as an index into Module::locations; the inline chain follows parents.
#pragma once

#include <cstdint>
#include <optional>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ptx/TextPool.h"

namespace fenceline::ptx {

// A position in the PTX text (1-based; 0 = unknown).
struct TextPos {
  uint32_t line = 0;
  uint32_t column = 0;
};

using RegisterId = int32_t;
using LabelId = int32_t;
using LocationId = int32_t;  // index into Module::locations, -1 = none
inline constexpr LocationId kNoLocation = -1;

// Views into the function's TextPool (Function::strings), like operands' text.
struct Register {
  std::string_view name;  // as written, e.g. "%r12", "p" (asm-local)
  std::string_view type;  // ".b32", ".pred", ...
};

struct Operand;

// The elements of a vector, parameter list, predicate pair or address with
// coordinates (Operand::elements): 8 bytes in the operand, no allocation when
// empty (most operands have none), a vector's interface where it is used.
class OperandList {
 public:
  OperandList() = default;
  OperandList(const OperandList& other);
  OperandList(OperandList&&) noexcept = default;
  OperandList& operator=(const OperandList& other);
  OperandList& operator=(OperandList&&) noexcept = default;
  ~OperandList();

  size_t size() const;
  bool empty() const { return size() == 0; }
  Operand* begin();
  Operand* end();
  const Operand* begin() const;
  const Operand* end() const;
  Operand& operator[](size_t i);
  const Operand& operator[](size_t i) const;
  Operand& front() { return (*this)[0]; }
  const Operand& front() const { return (*this)[0]; }
  Operand& back() { return (*this)[size() - 1]; }
  const Operand& back() const { return (*this)[size() - 1]; }
  Operand& emplace_back();
  void push_back(Operand&& op);
  void pop_back();
  void reserve(size_t n);
  // Moves the elements out (the list is then empty).
  std::vector<Operand> take();

 private:
  std::vector<Operand>& items();
  std::unique_ptr<std::vector<Operand>> items_;
};

// Laid out small (64 bytes): a function's operands are most of its syntax
// tree, and the program model copies them once more when it inlines. A field
// a kind does not use is left as it is default-initialized (-1, 0, empty).
struct Operand {
  enum class Kind : uint8_t {
    Register,        // reg
    Special,         // text: "%tid.x", "%laneid", "%ctaid.y", "%globaltimer", ...
    Integer,         // intValue
    Float,           // floatValue (0f3F800000 / 0d... / decimal)
    Symbol,          // text: variable, function or param name
    Label,           // label (branch target)
    Address,         // [base + offset] or [base, {elements}]
    Vector,          // {a, b, c, d}; elements
    ParamList,       // ( a, b ) in call; elements
    PredicatePair,   // %p1|%p2 in setp; elements
    Sink,            // "_"
  };
  Kind kind = Kind::Integer;
  bool negated = false;  // "!%p" as an operand (e.g. selp, @!p is on the guard)
  RegisterId reg = -1;
  LabelId label = -1;
  // Address: base is Register, Symbol or Integer (absolute); offset in bytes.
  // A Symbol base is named by `text`, an Integer base's value is in intValue
  // (baseSymbol(), baseValue()).
  struct Base {
    Kind kind = Kind::Integer;  // Register, Symbol or Integer
    RegisterId reg = -1;
  } base;
  std::string_view text;  // as written; in the function's TextPool (Function::strings)
  union {
    int64_t intValue = 0;  // Integer; Address: the Integer base's value
    double floatValue;     // Float
  };
  // Address and Symbol (`sym+4`): the offset in bytes.
  int64_t offset = 0;
  // Vector / ParamList / PredicatePair / Address-with-coordinates: elements.
  // For `[tmap, {c0, c1}]` the elements are the coordinates c0, c1 (flattened).
  OperandList elements;

  // The symbol an Address's base names ("" unless base.kind is Symbol).
  std::string_view baseSymbol() const { return kind == Kind::Address && base.kind == Kind::Symbol ? text : std::string_view(); }
  // The absolute address an Address's Integer base holds (0 otherwise).
  int64_t baseValue() const { return kind == Kind::Address && base.kind == Kind::Integer ? intValue : 0; }
  // The register the operand is, or its Address's base register (-1 otherwise):
  // where a pointer's value comes from.
  RegisterId valueRegister() const {
    return kind == Kind::Register                                  ? reg
           : kind == Kind::Address && base.kind == Kind::Register ? base.reg
                                                                  : -1;
  }
};

static_assert(sizeof(Operand) <= 64, "ptx::Operand is laid out in 64 bytes");

inline OperandList::OperandList(const OperandList& other)
    : items_(other.items_ && !other.items_->empty() ? std::make_unique<std::vector<Operand>>(*other.items_) : nullptr) {}
inline OperandList& OperandList::operator=(const OperandList& other) {
  if (this != &other)
    items_ = other.items_ && !other.items_->empty() ? std::make_unique<std::vector<Operand>>(*other.items_) : nullptr;
  return *this;
}
inline OperandList::~OperandList() = default;
inline size_t OperandList::size() const { return items_ ? items_->size() : 0; }
inline Operand* OperandList::begin() { return items_ ? items_->data() : nullptr; }
inline Operand* OperandList::end() { return items_ ? items_->data() + items_->size() : nullptr; }
inline const Operand* OperandList::begin() const { return items_ ? items_->data() : nullptr; }
inline const Operand* OperandList::end() const { return items_ ? items_->data() + items_->size() : nullptr; }
inline Operand& OperandList::operator[](size_t i) { return (*items_)[i]; }
inline const Operand& OperandList::operator[](size_t i) const { return (*items_)[i]; }
inline std::vector<Operand>& OperandList::items() {
  if (!items_) items_ = std::make_unique<std::vector<Operand>>();
  return *items_;
}
inline Operand& OperandList::emplace_back() { return items().emplace_back(); }
inline void OperandList::push_back(Operand&& op) { items().push_back(std::move(op)); }
inline void OperandList::pop_back() { items_->pop_back(); }
inline void OperandList::reserve(size_t n) { items().reserve(n); }
inline std::vector<Operand> OperandList::take() {
  std::vector<Operand> out;
  if (items_) out = std::move(*items_);
  items_.reset();
  return out;
}

struct Guard {
  RegisterId reg = -1;
  bool negated = false;  // @!%p
};

struct Instruction {
  // Views into the interned Spelling (TextPool.h), set by setSpelling.
  std::string_view opcode;                      // "ld", "mbarrier", "cp", "fence", ...
  std::span<const std::string_view> modifiers;  // without dots, in order: {"async","bulk","tensor","2d",...}
  std::optional<Guard> guard;
  std::vector<Operand> operands;
  TextPos pos;                         // of the opcode in the PTX text
  LocationId location = kNoLocation;   // .loc in force
  bool inInlineAsm = false;            // between "// begin inline asm" markers (informational only)

  // `spelled` is the opcode with its modifiers: "cp.async.bulk.tensor.2d".
  void setSpelling(std::string_view spelled) {
    const Spelling& spelling = internSpelling(spelled);
    opcode = spelling.opcode;
    modifiers = spelling.modifiers;
  }
  bool hasModifier(std::string_view m) const {
    for (const auto& x : modifiers)
      if (x == m) return true;
    return false;
  }
};

struct Label {
  std::string name;
  int32_t instruction = 0;  // index of the first instruction after the label
  TextPos pos;
};

// `name: .branchtargets L1, L2, ...;`: the targets a `brx.idx index, name;`
// may jump to (labels resolved like branch targets).
struct BranchTargets {
  std::string name;
  std::vector<LabelId> labels;
};

struct Variable {
  std::string name;
  std::string space;     // ".shared", ".global", ".const", ".local", ".param", ".tex", ...
  std::string type;      // ".b8", ".u64", ...
  int64_t align = 0;
  int64_t arraySize = -1;  // -1: scalar; 0: [] (extern / unsized)
  bool isExtern = false;
  bool isVisible = false;
  bool isWeak = false;
  std::vector<int64_t> initializer;  // integer initializers, when present
  TextPos pos;
};

struct Parameter {
  std::string name;
  std::string space;  // ".param" (or ".reg" for old-style)
  std::string type;
  int64_t align = 0;
  int64_t arraySize = -1;
  bool isPointer = false;  // .ptr attribute present
};

struct Function {
  std::string name;
  bool isEntry = false;    // .entry (kernel) vs .func
  bool isVisible = false;
  bool isExtern = false;
  bool isWeak = false;     // .weak (or .common)
  bool hasBody = false;    // false for prototypes/declarations
  std::vector<Parameter> returns;
  std::vector<Parameter> params;
  std::vector<Register> registers;        // RegisterId indexes this
  std::vector<Variable> locals;           // .shared/.local/.param declared in the body
  std::vector<Instruction> instructions;  // flat body
  std::vector<Label> labels;              // LabelId indexes this
  std::vector<BranchTargets> branchTargets;  // .branchtargets lists
  std::vector<std::string> pragmas;       // .pragma strings
  std::vector<std::pair<std::string, std::vector<int64_t>>> performanceDirectives;  // .maxntid 128,1,1
  TextPos pos;
  // The text the body's operands view (Operand::text).
  std::shared_ptr<TextPool> strings;

  std::string_view intern(std::string_view text) {
    if (!strings) strings = std::make_shared<TextPool>();
    return strings->intern(text);
  }
  std::string_view store(std::string_view text) {  // TextPool::store
    if (!strings) strings = std::make_shared<TextPool>();
    return strings->store(text);
  }
};

// One frame of a .loc chain.
struct Location {
  int32_t file = 0;  // .file index
  uint32_t line = 0;
  uint32_t column = 0;
  std::string function;         // decoded from function_name $L__info_stringN ("" if absent)
  LocationId inlinedAt = kNoLocation;  // caller frame, or -1 for the outermost
};

struct SourceFile {
  int32_t index = 0;
  std::string path;
};

struct Module {
  std::string path;  // of the PTX text (for diagnostics about the PTX itself)
  std::string version;  // "9.0"
  std::vector<std::string> targets;  // {"sm_90a"} (may include "debug", "texmode_...")
  int32_t addressSize = 64;
  std::vector<SourceFile> files;
  std::vector<Variable> globals;
  std::vector<Function> functions;
  std::vector<Location> locations;

  const SourceFile* file(int32_t index) const {
    for (const auto& f : files)
      if (f.index == index) return &f;
    return nullptr;
  }
  // The first function named `name` that has a body. Through functionIndex
  // (one `call` in a module of 40,000 functions must not scan them all);
  // modules built without the parser fall back to a scan.
  const Function* function(std::string_view name) const {
    if (functionIndex.empty()) {
      for (const auto& f : functions)
        if (f.name == name && f.hasBody) return &f;
      return nullptr;
    }
    auto found = functionIndex.find(name);
    return found == functionIndex.end() ? nullptr : &functions[found->second];
  }
  // Name -> index into `functions` of its first definition with a body.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
  };
  std::unordered_map<std::string, size_t, NameHash, std::equal_to<>> functionIndex;
  void indexFunctions() {
    functionIndex.clear();
    for (size_t i = 0; i < functions.size(); ++i)
      if (functions[i].hasBody) functionIndex.emplace(functions[i].name, i);
  }
};

}  // namespace fenceline::ptx
