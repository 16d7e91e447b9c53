// DECIMAL end to end: casts, arithmetic and its result types, comparison, aggregation, and
// columns that keep their scale in memory, in CSV input and across a reopen.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "main/query_pipeline.h"
#include "main/slot_test_util.h"

namespace graphdb {
namespace {

using Strings = std::vector<std::string>;

using DecimalQueryTest = testing_util::QueryFixture;

TEST_F(DecimalQueryTest, CastsKeepExactDigits) {
  EXPECT_EQ(Rows("RETURN CAST(127.3, 'DECIMAL(5, 2)'), CAST('-999999999999.999999' AS "
                 "DECIMAL(18, 6)), CAST(7 AS DECIMAL), typeof(CAST(1 AS DECIMAL))"),
            (Strings{"127.30|-999999999999.999999|7.000|DECIMAL(18, 3)"}));
  // 38 digits survive (a DOUBLE would not).
  EXPECT_EQ(Rows("RETURN CAST('12345678901234567890.123456789012345678' AS DECIMAL(38, 18))"),
            (Strings{"12345678901234567890.123456789012345678"}));
  // To integers rounds half away from zero; to DOUBLE and STRING.
  EXPECT_EQ(Rows("RETURN CAST(CAST(2.5, 'DECIMAL(3, 1)') AS INT64), "
                 "CAST(CAST(-2.5, 'DECIMAL(3, 1)') AS INT8), CAST(CAST(1.25, 'DECIMAL(3, 2)') AS "
                 "DOUBLE), CAST(CAST(1.25, 'DECIMAL(3, 2)') AS STRING)"),
            (Strings{"3|-3|1.250000|1.25"}));
  EXPECT_EQ(Rows("RETURN CAST([2.7, 3.8], 'DECIMAL(5,2)[2]'), cast(cast([220], "
                 "'decimal(21,4)[]'), 'int[1]')"),
            (Strings{"[2.70,3.80]|[220]"}));
  EXPECT_EQ(Error("RETURN CAST(CAST(1000.2, 'DECIMAL(5, 1)') AS DECIMAL(4, 1))"),
            "Overflow exception: Decimal Cast Failed: input 1000.2 is not in range of DECIMAL(4, "
            "1)");
  EXPECT_EQ(Error("RETURN CAST('10.5' AS DECIMAL(2, 1))"),
            "Conversion exception: Cast failed. 10.5 is not in DECIMAL(2, 1) range.");
  EXPECT_NE(Error("RETURN CAST('x1' AS DECIMAL(2, 1))").find("Could not convert"),
            std::string::npos);
  EXPECT_NE(Error("RETURN CAST(1 AS DECIMAL(40, 1))").find("between 1 and 38"), std::string::npos);
}

TEST_F(DecimalQueryTest, ArithmeticResultTypes) {
  EXPECT_EQ(Rows("RETURN CAST(0.6, 'DECIMAL(18, 1)') + CAST(-0.2, 'DECIMAL(5, 2)'), "
                 "typeof(CAST(0.6, 'DECIMAL(18, 1)') + CAST(-0.2, 'DECIMAL(5, 2)'))"),
            (Strings{"0.400|DECIMAL(19, 3)"}));
  EXPECT_EQ(Rows("RETURN CAST(500.1, 'DECIMAL(4, 1)') * CAST(1.9, 'DECIMAL(4, 1)')"),
            (Strings{"950.19"}));
  // An integer operand takes the DECIMAL's type; a DOUBLE one makes a DOUBLE.
  EXPECT_EQ(Rows("RETURN CAST(12.234, 'DECIMAL(18, 3)') * 5, CAST(12.234, 'DECIMAL(18, 3)') * "
                 "-1.0, CAST(1.5, 'DECIMAL') / 2"),
            (Strings{"61.170000|-12.234000|0.750000"}));
  EXPECT_EQ(Rows("RETURN CAST(-100, 'DECIMAL(18, 1)') % CAST(1.2, 'DECIMAL(5, 2)'), "
                 "-CAST(1.5, 'DECIMAL(3, 1)'), abs(CAST(-999.985, 'DECIMAL(5, 2)'))"),
            (Strings{"-0.40|-1.5|999.99"}));
  EXPECT_EQ(Rows("WITH CAST(-10.2, 'DECIMAL') AS x RETURN floor(x), ceil(x), round(x), sign(x)"),
            (Strings{"-11|-10|-10|-1"}));
  EXPECT_EQ(Error("RETURN CAST(500, 'DECIMAL(4, 1)') + CAST(500, 'DECIMAL(4, 1)')"),
            "Overflow exception: Decimal Addition result is out of range");
  EXPECT_EQ(Error("RETURN CAST(1, 'DECIMAL') % CAST(0, 'DECIMAL')"),
            "Runtime exception: Modulo by zero.");
}

TEST_F(DecimalQueryTest, ComparesOrdersAndAggregates) {
  EXPECT_EQ(Rows("RETURN CAST(1.50, 'DECIMAL(3, 2)') = CAST(1.5, 'DECIMAL(2, 1)'), "
                 "CAST(1.5, 'DECIMAL(2, 1)') > 1, CAST(2, 'DECIMAL(2, 1)') = 2, "
                 "CAST(0.1, 'DECIMAL(2, 1)') < 0.2"),
            (Strings{"True|True|True|True"}));
  EXPECT_EQ(Rows("UNWIND ['0.5', '-2.25', '10'] AS t WITH CAST(t AS DECIMAL(6, 2)) AS d "
                 "RETURN min(d), max(d), sum(d), avg(d), count(DISTINCT d)"),
            (Strings{"-2.25|10.00|8.25|2.750000|3"}));
  auto result = RunQuery(*db_,
                         "UNWIND ['3', '-1.5', '2.25'] AS t RETURN CAST(t AS DECIMAL(4, 2)) AS d "
                         "ORDER BY d",
                         {}, std::nullopt, &session_);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->rows.size(), 3u);
  EXPECT_EQ(result->rows[0][0].ToString(), "-1.50");
  EXPECT_EQ(result->rows[2][0].ToString(), "3.00");
}

TEST_F(DecimalQueryTest, ColumnsKeepTheirScaleThroughCsvAndReopen) {
  std::string csv = (TempFolder("decimal") / "p.csv").string();
  std::ofstream(csv) << "1,12.345\n2,-0.5\n3,\n";
  Open((root_ / "db").string());
  Rows("CREATE NODE TABLE p(id INT64, price DECIMAL(7, 2), PRIMARY KEY(id))");
  Rows("COPY p FROM '" + csv + "'");
  Rows("CREATE (:p {id: 4, price: 3}), (:p {id: 5, price: CAST(1.005, 'DECIMAL(5, 3)')})");
  Rows("MATCH (n:p {id: 2}) SET n.price = CAST('99999.994' AS DECIMAL(9, 3))");
  const Strings expected{"1|12.35", "2|99999.99", "3|", "4|3.00", "5|1.01"};
  EXPECT_EQ(Rows("MATCH (n:p) RETURN n.id, n.price"), expected);
  EXPECT_EQ(Rows("CALL TABLE_INFO('p') RETURN type"), (Strings{"DECIMAL(7, 2)", "INT64"}));
  EXPECT_EQ(Error("MATCH (n:p {id: 1}) SET n.price = 123456"),
            "Overflow exception: Decimal Cast Failed: input 123456 is not in range of DECIMAL(7, "
            "2)");
  Open((root_ / "db").string());
  EXPECT_EQ(Rows("MATCH (n:p) RETURN n.id, n.price"), expected);
  Rows("CHECKPOINT");
  Open((root_ / "db").string());
  EXPECT_EQ(Rows("MATCH (n:p) WHERE n.price > 5 RETURN n.id, n.price"),
            (Strings{"1|12.35", "2|99999.99"}));
}

}  // namespace
}  // namespace graphdb
