// An immutable text whose copies share one buffer: a value analysis copies
// each value's base name (a kernel parameter's symbol, a loaded pointer's
// address form) into every value derived from it, and such names run to
// hundreds of bytes (a mangled template kernel's `_param_3`): on CuPy's
// merge sort 4,097 values held 1.46 MB of copies of 125 distinct names.
// Compared by content, like the std::string it replaces. SharedTexts does
// the same for a list of names (a value's choice of objects).
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace fenceline::model {

class SharedText {
 public:
  SharedText() = default;
  explicit SharedText(std::string text)
      : text_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}
  SharedText& operator=(std::string text) { return *this = SharedText(std::move(text)); }

  const std::string& str() const { return text_ ? *text_ : none(); }
  operator const std::string&() const { return str(); }
  bool empty() const { return !text_; }
  size_t size() const { return str().size(); }
  void clear() { text_.reset(); }
  bool starts_with(std::string_view prefix) const { return str().starts_with(prefix); }
  bool ends_with(std::string_view suffix) const { return str().ends_with(suffix); }

  friend bool operator==(const SharedText& a, const SharedText& b) {
    return a.text_ == b.text_ || a.str() == b.str();
  }
  friend bool operator==(const SharedText& a, std::string_view b) { return a.str() == b; }
  friend bool operator<(const SharedText& a, const SharedText& b) { return a.str() < b.str(); }
  friend std::ostream& operator<<(std::ostream& out, const SharedText& t) { return out << t.str(); }

 private:
  static const std::string& none() {
    static const std::string kNone;
    return kNone;
  }
  std::shared_ptr<const std::string> text_;  // null: empty
};

// An immutable list of texts whose copies share one buffer: a value that
// points into one of several objects (AbstractValue::alternatives) names each
// of them, and on CuPy's merge sort (sorting networks of selects between two
// parameters' arrays) 1,505 values held 3,010 copies of ~330-byte parameter
// names, 1 MiB (docs/performance.md, session 25). Compared by content.
class SharedTexts {
 public:
  SharedTexts() = default;
  SharedTexts& operator=(std::vector<std::string> texts) {
    list_ = texts.empty() ? nullptr : std::make_shared<const std::vector<std::string>>(std::move(texts));
    return *this;
  }

  const std::vector<std::string>& list() const { return list_ ? *list_ : none(); }
  operator const std::vector<std::string>&() const { return list(); }
  bool empty() const { return !list_; }
  size_t size() const { return list().size(); }
  std::vector<std::string>::const_iterator begin() const { return list().begin(); }
  std::vector<std::string>::const_iterator end() const { return list().end(); }
  void clear() { list_.reset(); }

  friend bool operator==(const SharedTexts& a, const SharedTexts& b) {
    return a.list_ == b.list_ || a.list() == b.list();
  }

 private:
  static const std::vector<std::string>& none() {
    static const std::vector<std::string> kNone;
    return kNone;
  }
  std::shared_ptr<const std::vector<std::string>> list_;  // null: empty
};

}  // namespace fenceline::model
