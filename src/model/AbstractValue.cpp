// The algebra of abstract values: base + sum(coefficient * term) + constant.
// Sums and scalings stay affine; anything else becomes an opaque term named
// after the instruction that computed it, with a range when the operation
// bounds it (`x & 24` lies in [0, 24]). Overflow or too many terms give up
// precision (an opaque term), never soundness.
#include "model/ValueAlgebra.h"

#include <algorithm>
#include <sstream>

namespace fenceline::model {

namespace {
constexpr size_t kMaxTerms = 8;

bool checkedMul(int64_t a, int64_t b, int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }
bool checkedAdd(int64_t a, int64_t b, int64_t& out) { return !__builtin_add_overflow(a, b, &out); }
}  // namespace

std::optional<std::pair<int64_t, int64_t>> AbstractValue::offsetRange() const {
  if (!known) return std::nullopt;
  int64_t lo = constant, hi = constant;
  for (const auto& t : terms) {
    if (!t.bounded()) return std::nullopt;
    int64_t a, b;
    if (!checkedMul(t.coefficient, t.low, a) || !checkedMul(t.coefficient, t.high, b)) return std::nullopt;
    if (!checkedAdd(lo, std::min(a, b), lo) || !checkedAdd(hi, std::max(a, b), hi)) return std::nullopt;
  }
  return std::make_pair(lo, hi);
}

bool AbstractValue::operator==(const AbstractValue& o) const {
  if (known != o.known) return false;
  if (!known) return true;
  if (baseKind != o.baseKind || base != o.base || constant != o.constant || terms.size() != o.terms.size())
    return false;
  for (size_t i = 0; i < terms.size(); ++i)
    if (terms[i].name != o.terms[i].name || terms[i].coefficient != o.terms[i].coefficient) return false;
  return true;
}

std::string AbstractValue::toString() const {
  if (!known) return "?";
  std::ostringstream out;
  const char* kinds[] = {"", "shared:", "global:", "param:", "unknown:", "loaded:"};  // per BaseKind
  bool first = true;
  auto plus = [&] {
    if (!first) out << " + ";
    first = false;
  };
  if (baseKind != BaseKind::None) {
    plus();
    out << kinds[static_cast<int>(baseKind)] << base;
  }
  for (const auto& t : terms) {
    plus();
    if (t.coefficient != 1) out << t.coefficient << "*";
    out << t.name;
  }
  if (constant != 0 || first) {
    plus();
    out << constant;
  }
  return out.str();
}

namespace values {

AbstractValue top() { return AbstractValue{}; }

AbstractValue constant(int64_t c) {
  AbstractValue v;
  v.known = true;
  v.constant = c;
  return v;
}

AbstractValue term(std::string name, int64_t low, int64_t high) {
  if (low == high) return constant(low);  // a range of one value is that value
  AbstractValue v;
  v.known = true;
  v.terms.push_back({std::move(name), 1, low, high});
  return v;
}

AbstractValue object(AbstractValue::BaseKind kind, std::string name, Space space) {
  AbstractValue v;
  v.known = true;
  v.baseKind = kind;
  v.base = std::move(name);
  v.space = space;
  return v;
}

AbstractValue add(const AbstractValue& a, const AbstractValue& b, const std::string& opaqueName) {
  if (!a.known || !b.known) return top();
  if (a.hasBase() && b.hasBase()) return top();
  AbstractValue r = a.hasBase() ? a : b;
  const AbstractValue& other = a.hasBase() ? b : a;
  if (!a.hasBase() && !b.hasBase()) r.space = a.space != Space::None ? a.space : b.space;
  if (!checkedAdd(a.constant, b.constant, r.constant)) return term(opaqueName);
  for (const auto& t : other.terms) {
    auto it = std::lower_bound(r.terms.begin(), r.terms.end(), t.name,
                               [](const AbstractValue::Term& x, const std::string& n) { return x.name < n; });
    if (it != r.terms.end() && it->name == t.name) {
      if (!checkedAdd(it->coefficient, t.coefficient, it->coefficient)) return term(opaqueName);
      if (it->coefficient == 0) r.terms.erase(it);
    } else {
      r.terms.insert(it, t);
    }
  }
  if (r.terms.size() > kMaxTerms) return term(opaqueName);
  return r;
}

AbstractValue scale(const AbstractValue& a, int64_t k, const std::string& opaqueName) {
  if (!a.known) return top();
  if (k == 1) return a;
  if (a.hasBase()) return term(opaqueName);
  AbstractValue r = a;
  r.space = Space::None;
  if (k == 0) return constant(0);
  if (!checkedMul(a.constant, k, r.constant)) return term(opaqueName);
  for (auto& t : r.terms)
    if (!checkedMul(t.coefficient, k, t.coefficient)) return term(opaqueName);
  return r;
}

AbstractValue subtract(const AbstractValue& a, const AbstractValue& b, const std::string& opaqueName) {
  if (!a.known || !b.known) return top();
  if (b.hasBase()) {
    if (!a.hasBase() || a.baseKind != b.baseKind || a.base != b.base) return term(opaqueName);
    AbstractValue x = a, y = b;
    x.baseKind = y.baseKind = AbstractValue::BaseKind::None;
    x.base.clear();
    y.base.clear();
    AbstractValue d = add(x, scale(y, -1, opaqueName), opaqueName);
    d.space = Space::None;
    return d;
  }
  return add(a, scale(b, -1, opaqueName), opaqueName);
}

namespace {

// The objects a base may be: its alternatives, or the base itself.
std::vector<std::string> baseChoices(const AbstractValue& v) {
  return v.alternatives.empty() ? std::vector<std::string>{v.base} : v.alternatives.list();
}

// Bases that point into memory (not a plain number, not an unknown object).
bool isPointerBase(AbstractValue::BaseKind kind) {
  using K = AbstractValue::BaseKind;
  return kind == K::SharedSymbol || kind == K::GlobalSymbol || kind == K::Param || kind == K::Loaded;
}

// The base of a join of two different bases of one kind: the choice of both
// sets of objects. False when the kinds or spaces differ or the choice grows
// past kMaxAlternatives.
bool chooseBase(const AbstractValue& a, const AbstractValue& b, AbstractValue& r) {
  if (a.baseKind != b.baseKind || !isPointerBase(a.baseKind) || a.space != b.space) return false;
  std::vector<std::string> names = baseChoices(a), more = baseChoices(b);
  names.insert(names.end(), more.begin(), more.end());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  if (names.size() > kMaxAlternatives) return false;
  // The choice of one side when the other adds nothing: its lists are
  // shared, not built again (a sorting network selects between two choices
  // of the same objects again and again).
  for (const AbstractValue* side : {&a, &b})
    if (side->alternatives.list() == names) {
      r.base = side->base;
      r.alternatives = side->alternatives;
      return true;
    }
  std::string joined;
  for (const auto& n : names) joined += (joined.empty() ? "" : "|") + n;
  r.base = std::move(joined);
  r.alternatives = std::move(names);
  return true;
}

}  // namespace

AbstractValue join(const AbstractValue& a, const AbstractValue& b, const std::string& joinName) {
  if (a == b) return a;
  if (!a.known || !b.known) return top();
  AbstractValue r = a;
  if (a.baseKind != b.baseKind || a.base != b.base)
    if (!chooseBase(a, b, r)) return top();
  r.terms.clear();
  r.constant = 0;
  if (a.space != b.space) r.space = a.hasBase() ? a.space : Space::None;
  auto ra = a.offsetRange(), rb = b.offsetRange();
  if (ra && rb)
    r.terms.push_back({joinName, 1, std::min(ra->first, rb->first), std::max(ra->second, rb->second)});
  else
    r.terms.push_back({joinName, 1});
  return r;
}

}  // namespace values
}  // namespace fenceline::model
