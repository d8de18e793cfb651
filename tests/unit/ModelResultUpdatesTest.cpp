// model/ResultUpdates.h over real nvcc output (Inputs/model_result_updates.cu): which
// read-modify-writes update a result (their written value computed from data the thread read)
// and which write a value a poller can test (issue 34, shape O).
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/ResultUpdates.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

TEST(ModelResultUpdates, DataAndOldValuesAreResults) {
  FENCELINE_LOAD_PROGRAM(p, "model_result_updates");
  const auto& max = p.fn("_Z11max_of_dataPxPKxPKi");
  EXPECT_TRUE(isResultUpdate(max, findOne(max, "atom"))) << dump(max);
  const auto& cas = p.fn("_Z7cas_sumPyy");
  // The CAS: its new value is the old value (the seed load or the last return) plus v.
  EXPECT_TRUE(isResultUpdate(cas, findOne(cas, "atom"))) << dump(cas);
}

TEST(ModelResultUpdates, PollableValuesAreNot) {
  FENCELINE_LOAD_PROGRAM(p, "model_result_updates");
  for (const char* kernel : {"_Z8exch_onePj", "_Z9add_paramPjj", "_Z12exch_by_testPjPKi"}) {
    const auto& fn = p.fn(kernel);
    EXPECT_FALSE(isResultUpdate(fn, findOne(fn, "atom"))) << kernel << "\n" << dump(fn);
  }
  // The doorbell's max of a reservation's slot (the second atomic).
  const auto& slot = p.fn("_Z11max_of_slotPyS_");
  EXPECT_FALSE(isResultUpdate(slot, findOne(slot, "atom", 1))) << dump(slot);
}
