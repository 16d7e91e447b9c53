// Narrow images of integer columns (exec/narrow_ints.h): a byte a row while the values spread
// at most 254 apart, NULLs as their own byte, none past that; kept with the column until a
// cell changes, and serving rows appended since while they are few.
#include "exec/narrow_ints.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace graphdb::exec {
namespace {

using storage::Column;

// A column of `type` with `values` (NULL where `nulls` says).
template <typename T>
Column Make(const LogicalType& type, const std::vector<T>& values,
            const std::vector<bool>& nulls = {}) {
  Column column(type);
  for (size_t i = 0; i < values.size(); ++i) {
    if (i < nulls.size() && nulls[i]) {
      column.AppendNull();
    } else {
      column.AppendFixed<T>(values[i]);
    }
  }
  return column;
}

// The value the image gives for `row`, or nullopt for NULL.
std::optional<int64_t> At(const NarrowInts& image, uint64_t row) {
  const uint8_t b = image.bytes()[row];
  if (b == NarrowInts::kNull) return std::nullopt;
  return image.base() + b;
}

TEST(NarrowIntsTest, HoldsEveryRowWithinTheSpread) {
  ExecContext ctx;
  std::vector<int64_t> values;
  std::vector<bool> nulls;
  for (int64_t i = 0; i < 200000; ++i) {         // several chunks
    values.push_back(-1000 + (i * 7919) % 255);  // from -1000 to -746: a spread of 254
    nulls.push_back(i % 13 == 5);
  }
  const Column column = Make(LogicalType::Int64(), values, nulls);
  bool made = false;
  auto image = NarrowImage(ctx, column, column.size(), /*build=*/true, &made);
  ASSERT_NE(image, nullptr);
  EXPECT_TRUE(made);
  EXPECT_EQ(image->rows(), values.size());
  EXPECT_EQ(image->base(), -1000);
  for (size_t row = 0; row < values.size(); ++row) {
    const std::optional<int64_t> v = At(*image, row);
    ASSERT_EQ(v.has_value(), !nulls[row]) << row;
    if (v) {
      ASSERT_EQ(*v, values[row]) << row;
    }
  }
  EXPECT_GE(column.MemoryUsage(), values.size() * 9) << "the image counted with the column";
  // Kept: the next reader takes it as it is, even one that would not make it.
  auto again = NarrowImage(ctx, column, column.size(), /*build=*/false, &made);
  EXPECT_EQ(again, image);
  EXPECT_FALSE(made);
}

TEST(NarrowIntsTest, NoneForAWiderSpreadAndThatIsKept) {
  ExecContext ctx;
  const Column wide =
      Make<int32_t>(LogicalType(LogicalTypeId::kInt32), {7, 100, 262, 8});  // 255 apart
  EXPECT_EQ(NarrowImage(ctx, wide, wide.size(), true), nullptr);
  EXPECT_NE(wide.FindDerived(), nullptr) << "the column is known not to narrow";
  // Extremes whose difference does not fit an int64.
  const Column extremes = Make<int64_t>(LogicalType::Int64(), {INT64_MIN, INT64_MAX});
  EXPECT_EQ(NarrowImage(ctx, extremes, extremes.size(), true), nullptr);
  // All NULL, and INT16 cells: narrow.
  const Column nulls = Make<int64_t>(LogicalType::Int64(), {0, 0}, {true, true});
  auto image = NarrowImage(ctx, nulls, nulls.size(), true);
  ASSERT_NE(image, nullptr);
  EXPECT_FALSE(At(*image, 0).has_value());
  const Column small = Make<int16_t>(LogicalType(LogicalTypeId::kInt16), {-3, 250, 0});
  image = NarrowImage(ctx, small, small.size(), true);
  ASSERT_NE(image, nullptr);
  EXPECT_EQ(At(*image, 1), 250);
  EXPECT_EQ(At(*image, 0), -3);
  // Not an integer column.
  const Column doubles = Make<double>(LogicalType::Double(), {1.0});
  EXPECT_EQ(NarrowImage(ctx, doubles, 1, true), nullptr);
  // Nothing made where the reader does not ask for it.
  const Column fresh = Make<int64_t>(LogicalType::Int64(), {1, 2});
  EXPECT_EQ(NarrowImage(ctx, fresh, 2, /*build=*/false), nullptr);
  EXPECT_EQ(fresh.FindDerived(), nullptr);
}

TEST(NarrowIntsTest, FollowsTheColumnsChanges) {
  ExecContext ctx;
  std::vector<int64_t> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i % 90);
  Column column = Make(LogicalType::Int64(), values);
  auto image = NarrowImage(ctx, column, column.size(), true);
  ASSERT_NE(image, nullptr);
  // A few rows appended: the kept image serves (the reader reads those rows from the column).
  for (int i = 0; i < 100; ++i) column.AppendFixed<int64_t>(5);
  EXPECT_EQ(NarrowImage(ctx, column, column.size(), false), image);
  // Many more: made again for every row.
  for (int i = 0; i < 100; ++i) column.AppendFixed<int64_t>(6);
  EXPECT_EQ(NarrowImage(ctx, column, column.size(), false), nullptr);
  image = NarrowImage(ctx, column, column.size(), true);
  ASSERT_NE(image, nullptr);
  EXPECT_EQ(image->rows(), 1200u);
  EXPECT_EQ(At(*image, 1199), 6);
  // A cell set in place drops it; a value out of the spread then leaves none.
  column.SetFixed<int64_t>(3, 89);
  EXPECT_EQ(NarrowImage(ctx, column, column.size(), false), nullptr);
  image = NarrowImage(ctx, column, column.size(), true);
  ASSERT_NE(image, nullptr);
  EXPECT_EQ(At(*image, 3), 89);
  column.SetFixed<int64_t>(4, 1000);
  EXPECT_EQ(NarrowImage(ctx, column, column.size(), true), nullptr);
  column.SetNull(4);
  image = NarrowImage(ctx, column, column.size(), true);
  ASSERT_NE(image, nullptr);
  EXPECT_FALSE(At(*image, 4).has_value());
}

}  // namespace
}  // namespace graphdb::exec
