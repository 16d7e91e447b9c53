#include "common/expression_memory.h"

#include <gtest/gtest.h>

#include "common/status.h"

namespace graphdb {
namespace {

constexpr int64_t kGranule = ExpressionMemory::kGranule;

// The bytes a control has counted: what it still lets a statement take, found by probing.
bool Fits(StatementControl& control, int64_t bytes) {
  try {
    control.ChargeMemory(bytes);
  } catch (const GraphDBException&) {
    control.ChargeMemory(-bytes);
    return false;
  }
  control.ChargeMemory(-bytes);
  return true;
}

TEST(ExpressionMemoryAccountTest, ChargesReachTheControlInGranulesAndAreGivenBack) {
  StatementControl control;
  control.SetLimits(0, 16 * kGranule);
  ExpressionMemory memory(&control);
  ASSERT_TRUE(memory.counts());
  memory.Charge(100);  // within the first granule: the control is not touched
  EXPECT_TRUE(Fits(control, 16 * kGranule));
  memory.Charge(10 * kGranule);
  EXPECT_EQ(memory.held(), 10 * kGranule + 100);
  EXPECT_FALSE(Fits(control, 6 * kGranule));
  EXPECT_TRUE(Fits(control, 4 * kGranule));
  // Given back to a mark: the control gets back all but a granule or two.
  memory.SetHeld(100);
  EXPECT_TRUE(Fits(control, 14 * kGranule));
  // Back to nothing: all of it.
  memory.SetHeld(0);
  EXPECT_TRUE(Fits(control, 16 * kGranule));
}

TEST(ExpressionMemoryAccountTest, AChargePastTheLimitThrowsBeforeTheAllocation) {
  StatementControl control;
  control.SetLimits(0, 4 * kGranule);
  ExpressionMemory memory(&control);
  memory.Charge(2 * kGranule);
  try {
    memory.Charge(3 * kGranule);
    FAIL() << "no RESOURCE_LIMIT";
  } catch (const GraphDBException& e) {
    EXPECT_EQ(e.status().code(), ErrorCode::kResourceLimit);
  }
  // Whoever unwinds gives the charge back.
  memory.SetHeld(0);
  EXPECT_TRUE(Fits(control, 4 * kGranule));
  // A charge too large for any limit is clamped, not overflowed.
  EXPECT_THROW(memory.Charge(UINT64_MAX), GraphDBException);
}

TEST(ExpressionMemoryAccountTest, WithoutALimitChargesOnlyPaceThePolls) {
  StatementControl control;
  ExpressionMemory memory(&control);
  EXPECT_FALSE(memory.counts());
  memory.Charge(kGranule / 2);
  control.Cancel(StatementControl::Reason::kCancelled);
  memory.Charge(kGranule / 4);  // below the next poll
  try {
    memory.Charge(kGranule);  // past it: the cancel is noticed
    FAIL() << "the cancel was not noticed";
  } catch (const GraphDBException& e) {
    EXPECT_EQ(e.status().code(), ErrorCode::kQueryCancelled);
  }
  // No control at all: nothing is polled, nothing throws.
  ExpressionMemory free_memory(nullptr);
  for (int i = 0; i < 100; ++i) free_memory.Charge(kGranule);
  EXPECT_EQ(free_memory.held(), 100 * kGranule);
}

}  // namespace
}  // namespace graphdb
