#include "formats/csv_sniffer.h"

#include <gtest/gtest.h>

#include <string>

namespace graphdb::formats {
namespace {

std::string Infer(std::string_view text) { return InferCsvFieldType(text).ToString(); }

std::string Combine(std::initializer_list<std::string_view> texts) {
  LogicalType type = LogicalType::Any();
  for (auto t : texts) type = CombineSniffedTypes(type, InferCsvFieldType(t));
  return type.ToString();
}

TEST(CsvSnifferTest, Scalars) {
  EXPECT_EQ(InferCsvFieldType("").id(), LogicalTypeId::kAny);
  EXPECT_EQ(InferCsvFieldType(" NULL ").id(), LogicalTypeId::kAny);
  EXPECT_EQ(InferCsvFieldType("nan").id(), LogicalTypeId::kAny);
  EXPECT_EQ(Infer("-inf"), "DOUBLE");
  EXPECT_EQ(Infer("Infinity"), "DOUBLE");
  EXPECT_EQ(Infer("True"), "BOOL");
  EXPECT_EQ(Infer("f"), "BOOL");
  EXPECT_EQ(Infer("TRUE?"), "STRING");
  EXPECT_EQ(Infer("-128"), "INT64");
  EXPECT_EQ(Infer("0"), "INT64");
  EXPECT_EQ(Infer("007"), "STRING");  // a leading zero: an identifier, not a number
  EXPECT_EQ(Infer("9223372036854775808"), "INT128");
  EXPECT_EQ(Infer("-1844674407370955161511"), "INT128");
  EXPECT_EQ(Infer("1234567890123456789012345678901234567890"), "DOUBLE");
  EXPECT_EQ(Infer("1e5"), "STRING");
  EXPECT_EQ(Infer("123456.78"), "DECIMAL(8, 2)");
  EXPECT_EQ(Infer("12345678."), "DECIMAL(8, 0)");
  EXPECT_EQ(Infer(".1234"), "DECIMAL(4, 4)");
  EXPECT_EQ(Infer("-5.0"), "DECIMAL(2, 1)");
  EXPECT_EQ(Infer("1.123456789012345678901234567890123456789"), "DOUBLE");
  EXPECT_EQ(Infer("."), "STRING");
  EXPECT_EQ(Infer("2024-07-25"), "DATE");
  EXPECT_EQ(Infer("2000 01 01"), "DATE");
  EXPECT_EQ(Infer("2010\\12\\16"), "DATE");
  EXPECT_EQ(Infer("2000+02+12"), "STRING");
  EXPECT_EQ(Infer("1967 12 999"), "STRING");
  EXPECT_EQ(Infer("2020/12/16 08:19:00"), "TIMESTAMP");
  EXPECT_EQ(Infer("1bece37b-4384-4fe2-9969-44d34e12ae37"), "UUID");
  EXPECT_EQ(Infer("{1bece37b-4384-4fe2-9969-44d34e12ae37}"), "STRING");
  EXPECT_EQ(Infer("1bece37b43844fe2996944d34e12ae37"), "STRING");
  EXPECT_EQ(Infer("3 years 2 days 13:02:00"), "INTERVAL");
  EXPECT_EQ(Infer("48:24:11"), "INTERVAL");
  EXPECT_EQ(Infer("555555 decades 5 dec 1 cent 5 w"), "INTERVAL");
  EXPECT_EQ(Infer("3 parsecs"), "STRING");
  EXPECT_EQ(Infer("Alice"), "STRING");
}

TEST(CsvSnifferTest, NestedTypes) {
  EXPECT_EQ(Infer("[5, 6, 7, 8]"), "INT64[]");
  EXPECT_EQ(Infer("[5.2, 1.6]"), "DECIMAL(2, 1)[]");
  EXPECT_EQ(Infer("[123,2024-02-02]"), "STRING[]");
  EXPECT_EQ(Infer("[[1,2],[]]"), "INT64[][]");
  EXPECT_EQ(InferCsvFieldType("[]").child().id(), LogicalTypeId::kAny);
  EXPECT_EQ(Infer("{a= 1, 1=2,True=3}"), "MAP(STRING, INT64)");
  EXPECT_EQ(Infer("{1=1,2=True,3=}"), "MAP(INT64, STRING)");
  EXPECT_EQ(Infer("{a:1,b:2}"), "STRUCT(a INT64, b INT64)");
  EXPECT_EQ(Infer("{'a': 1.5}"), "STRUCT(a DECIMAL(2, 1))");
  EXPECT_EQ(Infer("{arr: [1, 2, 5]}"), "STRUCT(arr INT64[])");
  EXPECT_EQ(Infer("[{a: 1}, {a: 2}]"), "STRUCT(a INT64)[]");
  EXPECT_EQ(Infer("{[1,2,3]={A:{arr: [1, 2, 5]}}}"), "MAP(INT64[], STRUCT(A STRUCT(arr INT64[])))");
  EXPECT_EQ(Infer("{a=1, b:2}"), "STRING");  // neither a map nor a struct
  EXPECT_EQ(Infer("[1, 2"), "STRING");
}

TEST(CsvSnifferTest, CombiningAColumn) {
  EXPECT_EQ(Combine({"1", "", "2"}), "INT64");
  EXPECT_EQ(Combine({"1", "9223372036854775808"}), "INT128");
  EXPECT_EQ(Combine({"1", "2.5e3", "x"}), "STRING");
  EXPECT_EQ(Combine({"1", "inf"}), "DOUBLE");
  // DECIMALs keep the widest integer part and the largest scale.
  EXPECT_EQ(Combine({"12345678.", "123456.78", "0."}), "DECIMAL(10, 2)");
  EXPECT_EQ(Combine({"123.", ".1234", "654321."}), "DECIMAL(10, 4)");
  // Past 38 digits they become DOUBLE; with an INT64 they need its 19 digits.
  EXPECT_EQ(Combine({"1.123456789012345678901234567890", "123456789012345678901234567890.1"}),
            "DOUBLE");
  EXPECT_EQ(Combine({"1.5", "7"}), "DECIMAL(20, 1)");
  EXPECT_EQ(Combine({"2024-01-01", "2024-01-01 10:00:00"}), "TIMESTAMP");
  EXPECT_EQ(Combine({"true", "1"}), "STRING");
  EXPECT_EQ(Combine({"[1]", "[2.5]"}), "DECIMAL(20, 1)[]");
  EXPECT_EQ(Combine({"{a:1}", "{b:2}", "{c:3}"}), "STRUCT(a INT64, b INT64, c INT64)");
  EXPECT_EQ(Combine({"{a=1}", "{}"}), "MAP(STRING, INT64)");
  EXPECT_EQ(Combine({"[1]", "{a=1}"}), "STRING");
}

}  // namespace
}  // namespace graphdb::formats
