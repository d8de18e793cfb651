// apartByStride (model/Memory.h): offsets of the form k + sum(c * x), every
// x an independent integer, compared by the gcd of the coefficients, with the
// small bounded terms counted as an interval. Values built by hand: the
// arithmetic itself, both ways (apart and not).
#include <gtest/gtest.h>

#include "model/Memory.h"
#include "model/Values.h"

using namespace fenceline::model;

namespace {

AbstractValue::Term term(const char* name, int64_t coefficient, int64_t low = INT64_MIN, int64_t high = INT64_MAX) {
  AbstractValue::Term t;
  t.name = name;
  t.coefficient = coefficient;
  t.low = low;
  t.high = high;
  return t;
}

AbstractValue offset(int64_t constant, std::vector<AbstractValue::Term> terms) {
  AbstractValue v;
  v.known = true;
  v.constant = constant;
  v.terms = std::move(terms);
  std::sort(v.terms.begin(), v.terms.end(), [](const auto& x, const auto& y) { return x.name < y.name; });
  return v;
}

}  // namespace

// Two fields of a 16-byte record in a table indexed at run time.
TEST(ModelApartByStride, FieldsOfRecordsInATable) {
  const AbstractValue a = offset(0, {term("i", 16)}), b = offset(8, {term("j", 16)});
  EXPECT_TRUE(apartByStride(a, 8, b, 8));
  EXPECT_TRUE(apartByStride(a, 4, b, 4));
  EXPECT_FALSE(apartByStride(a, 12, b, 4));  // the first field reaches the second
  EXPECT_FALSE(apartByStride(a, 8, b, 12));  // the second reaches the next record's first
}

// The sizes are not symmetric: [16i, 16i + 4) against [16j + 2, 16j + 3)
// meet at i = j (the byte 2), although 2 - 0 = 2 is at least the first size
// taken the wrong way round.
TEST(ModelApartByStride, SizesOnTheirOwnSide) {
  const AbstractValue a = offset(0, {term("i", 16)}), b = offset(2, {term("j", 16)});
  EXPECT_FALSE(apartByStride(a, 4, b, 1));
  EXPECT_FALSE(apartByStride(b, 1, a, 4));
  EXPECT_TRUE(apartByStride(a, 2, b, 1));
  EXPECT_TRUE(apartByStride(b, 1, a, 2));
}

// A per-group record of 3104 bytes: a histogram of 768 words at a bounded
// index (and a bounded buffer number) against the arrival counter at 3080.
// The gcd of all coefficients is 4; folding the bounded terms keeps the
// record stride.
TEST(ModelApartByStride, BoundedIndexInsideARecord) {
  const AbstractValue histogram = offset(0, {term("g", 3104), term("r", 1024, 0, 2), term("i", 4, 0, 255)});
  const AbstractValue counter = offset(3080, {term("h", 3104)});
  EXPECT_TRUE(apartByStrideAndRange(histogram, 4, counter, 4));
  EXPECT_TRUE(apartByStrideAndRange(counter, 4, histogram, 4));
  EXPECT_FALSE(apartByStride(histogram, 4, counter, 4));  // the strict form keeps every term in the gcd
  // An index that may run past the histogram reaches the counter.
  const AbstractValue past = offset(0, {term("g", 3104), term("r", 1024, 0, 2), term("i", 4, 0, 1023)});
  EXPECT_FALSE(apartByStrideAndRange(past, 4, counter, 4));
  // An unbounded index is never folded.
  const AbstractValue unbounded = offset(0, {term("g", 3104), term("i", 4)});
  EXPECT_FALSE(apartByStrideAndRange(unbounded, 4, counter, 4));
}

// Only bounded terms: the interval decides.
TEST(ModelApartByStride, OnlyBoundedTerms) {
  const AbstractValue a = offset(0, {term("i", 4, 0, 7)}), b = offset(32, {term("j", 4, 0, 7)});
  EXPECT_TRUE(apartByStrideAndRange(a, 4, b, 4));
  EXPECT_FALSE(apartByStrideAndRange(a, 8, b, 4));  // a's last word runs into b's first
  EXPECT_FALSE(apartByStride(a, 4, b, 4));            // 32 is a multiple of 4
}
