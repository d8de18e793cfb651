// Constant folding of PTX `div` and `rem` without undefined behaviour.
//
// The value analysis keeps every constant in an int64_t. Folding `x / y` with
// C++'s operators traps (SIGFPE) on INT64_MIN / -1 and is wrong for unsigned
// types (`div.u64` of 0xffff'ffff'ffff'fff0 by 16 is 0x0fff..., not -1).
// PTX defines both: unsigned types divide the bit pattern, and a signed
// quotient that does not fit wraps (INT64_MIN / -1 = INT64_MIN, remainder 0).
// A zero divisor has no defined value, so nothing is folded.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace fenceline::model {

// x / y (or x % y when `remainder`) as PTX computes it, or nullopt for y == 0.
inline std::optional<int64_t> foldDivision(int64_t x, int64_t y, bool isUnsigned, bool remainder) {
  if (y == 0) return std::nullopt;
  if (isUnsigned) {
    uint64_t a = static_cast<uint64_t>(x), b = static_cast<uint64_t>(y);
    return static_cast<int64_t>(remainder ? a % b : a / b);
  }
  if (x == std::numeric_limits<int64_t>::min() && y == -1) return remainder ? 0 : x;  // wraps
  return remainder ? x % y : x / y;
}

}  // namespace fenceline::model
