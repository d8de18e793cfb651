// See DebugInfo.h.
#include "ptx/DebugInfo.h"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>

namespace fenceline::ptx {

void DebugStrings::beginLabel(std::string_view label) {
  current_ = &strings_[std::string(label)];
  current_->clear();
}

void DebugStrings::addByte(uint8_t byte) {
  if (!current_) return;  // bytes outside a labelled string: nothing names them
  if (byte == 0) {
    current_ = nullptr;
    return;
  }
  current_->push_back(static_cast<char>(byte));
}

void DebugStrings::addBytes(const uint8_t* bytes, size_t count) {
  if (!current_) return;
  const void* nul = std::memchr(bytes, 0, count);
  size_t length = nul ? static_cast<size_t>(static_cast<const uint8_t*>(nul) - bytes) : count;
  current_->append(reinterpret_cast<const char*>(bytes), length);
  if (nul) current_ = nullptr;
}

const std::string* DebugStrings::find(std::string_view label) const {
  auto it = strings_.find(std::string(label));
  return it == strings_.end() ? nullptr : &it->second;
}

uint64_t LocationTable::position(int32_t file, uint32_t line, uint32_t column) {
  // Files and columns are small; lines fit 32 bits.
  return (static_cast<uint64_t>(static_cast<uint16_t>(file)) << 48) ^ (static_cast<uint64_t>(line) << 16) ^
         static_cast<uint64_t>(column & 0xffff);
}

size_t LocationTable::KeyHash::operator()(const Key& k) const {
  size_t h = std::hash<std::string_view>()(k.function);
  h ^= position(k.file, k.line, k.column) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= static_cast<size_t>(k.inlinedAt) * 0x9e3779b97f4a7c15ull;
  return h;
}

LocationId LocationTable::intern(Key key) {
  auto it = interned_.find(key);
  if (it != interned_.end()) return it->second;
  LocationId id = static_cast<LocationId>(locations_.size());
  Location loc;
  loc.file = key.file;
  loc.line = key.line;
  loc.column = key.column;
  if (strings_ && !key.function.empty()) loc.function = nameOf(key.function);
  else loc.function.assign(key.function);
  loc.inlinedAt = key.inlinedAt;
  locations_.push_back(std::move(loc));
  interned_.emplace(std::move(key), id);
  return id;
}

LocationId LocationTable::plain(int32_t file, uint32_t line, uint32_t column) {
  LocationId id = intern(Key{file, line, column, kNoLocation, {}});
  lastAtPosition_[position(file, line, column)] = id;
  return id;
}

LocationId LocationTable::inlined(int32_t file, uint32_t line, uint32_t column, std::string_view functionLabel,
                                  bool hasInlinedAt, int32_t atFile, uint32_t atLine, uint32_t atColumn) {
  LocationId parent = kNoLocation;
  if (hasInlinedAt) {
    auto it = lastAtPosition_.find(position(atFile, atLine, atColumn));
    if (it != lastAtPosition_.end() && locations_[it->second].file == atFile &&
        locations_[it->second].line == atLine && locations_[it->second].column == atColumn)
      parent = it->second;
    else
      parent = intern(Key{atFile, atLine, atColumn, kNoLocation, {}});
  }
  LocationId id = intern(Key{file, line, column, parent, functionLabel});
  lastAtPosition_[position(file, line, column)] = id;
  return id;
}

const std::string& LocationTable::nameOf(std::string_view label) {
  auto it = names_.find(label);
  if (it == names_.end()) {
    const std::string* raw = strings_->find(label);
    it = names_.emplace(std::string(label), raw ? *raw : std::string()).first;
  }
  return it->second;
}

void LocationTable::resolveNames(const DebugStrings& strings) {
  strings_ = &strings;
  for (auto& loc : locations_)
    if (!loc.function.empty()) loc.function = nameOf(loc.function);
}

}  // namespace fenceline::ptx
