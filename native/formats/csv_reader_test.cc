#include "formats/csv_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace graphdb::formats {

using storage::Column;

namespace {

LogicalType T(std::string_view text) {
  std::string error;
  auto t = ParseLogicalType(text, &error);
  EXPECT_TRUE(t.has_value()) << text << ": " << error;
  return t ? *t : LogicalType::Any();
}

std::vector<LogicalType> Types(std::vector<const char*> names) {
  std::vector<LogicalType> out;
  for (const char* n : names) out.push_back(T(n));
  return out;
}

CsvOptions Serial() {
  CsvOptions options;
  options.parallel = false;  // quoted line breaks are read
  return options;
}

Result<std::vector<Column>> Read(std::string_view text, std::vector<const char*> types,
                                 CsvOptions options = {}) {
  CsvReader reader(env::FileSystem::Default(), Types(std::move(types)), options);
  return reader.ReadString(text, "test.csv");
}

// Rows as "a|b|c" strings (NULL prints as empty, as Kùzu's tests do).
std::vector<std::string> Rows(const std::vector<Column>& columns) {
  std::vector<std::string> rows;
  for (uint64_t r = 0; r < (columns.empty() ? 0 : columns[0].size()); ++r) {
    std::string row;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c) row += '|';
      row += columns[c].Get(r).ToString();
    }
    rows.push_back(row);
  }
  return rows;
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/graphdb_csv_test_XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    auto* fs = env::FileSystem::Default();
    auto names = fs->ListDir(path_);
    if (names.ok()) {
      for (const auto& n : *names) (void)fs->Remove(env::JoinPath(path_, n));
    }
    (void)fs->RemoveDir(path_);
  }
  std::string Write(const std::string& name, std::string_view data) const {
    std::string path = env::JoinPath(path_, name);
    EXPECT_TRUE(env::WriteStringToFile(env::FileSystem::Default(), path, data, false).ok());
    return path;
  }

 private:
  std::string path_;
};

TEST(CsvReaderTest, QuotesEscapesAndNulls) {
  auto cols = Read(
      "1,plain,\"quoted, with comma\"\n"
      "2,,\"say \"\"hi\"\"\"\n"
      "3,\"\",\"back\\\\slash \\\"q\\\"\"\n"
      "4, lead space,\"multi\nline\"\n",
      {"INT64", "STRING", "STRING"}, Serial());
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  EXPECT_EQ(Rows(*cols),
            (std::vector<std::string>{"1|plain|quoted, with comma", "2||say \"hi\"",
                                      "3||back\\slash \"q\"", "4| lead space|multi\nline"}));
  EXPECT_TRUE((*cols)[1].IsNull(1));   // unquoted empty: NULL
  EXPECT_FALSE((*cols)[1].IsNull(2));  // quoted empty: ""
}

TEST(CsvReaderTest, LineEndingsBlankLinesBom) {
  auto cols = Read(
      "\xEF\xBB\xBF"
      "1,a\r\n\r\n2,b\n\n3,c",
      {"INT64", "STRING"});
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  EXPECT_EQ(Rows(*cols), (std::vector<std::string>{"1|a", "2|b", "3|c"}));
  auto trailing = Read("1,\n2,x\n", {"INT64", "STRING"});  // empty last field
  ASSERT_TRUE(trailing.ok());
  EXPECT_EQ(Rows(*trailing), (std::vector<std::string>{"1|", "2|x"}));
}

TEST(CsvReaderTest, NestedLiterals) {
  auto cols = Read(
      "\"[[10,8],[6,7,8]]\",\"[96,54,86,92]\",\"{locations:['toronto','waterloo'], transfer: "
      "{day: 2021-01-02, amount: [100, 200]}}\",{a=b},[Carmen,Fred]\n"
      "[[7],[10],[6,7]],\"[1,2,3,4]\",\"{}\",\"{c=d, e=f, 1=2}\",\"[\\\"vanco,uver\\\"]\"\n",
      {"INT64[][]", "INT64[4]",
       "STRUCT(locations STRING[], transfer STRUCT(day DATE, amount INT64[]))",
       "MAP(STRING, STRING)", "STRING[]"});
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  EXPECT_EQ(Rows(*cols),
            (std::vector<std::string>{
                "[[10,8],[6,7,8]]|[96,54,86,92]|{locations: ['toronto','waterloo'], transfer: "
                "{day: 2021-01-02, amount: [100,200]}}|{a=b}|[Carmen,Fred]",
                "[[7],[10],[6,7]]|[1,2,3,4]|{locations: , transfer: }|{c=d, e=f, 1=2}|"
                "[\"vanco,uver\"]"}));
}

// LIST_UNBRACED=true: ';' separates a list's elements and the brackets are optional; a list
// inside it is written the same way, a map inside it as usual.
TEST(CsvReaderTest, UnbracedLists) {
  CsvOptions options;
  Value on = Value::Boolean(true);
  ASSERT_TRUE(options.Set("List_Unbraced", on).ok());
  auto cols =
      Read("a;b;c,1;3,;;\n[x;y],[123],;1.5\n", {"STRING[]", "INT64[]", "DOUBLE[]"}, options);
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  EXPECT_EQ(Rows(*cols),
            (std::vector<std::string>{"[a,b,c]|[1,3]|[,,]", "[x,y]|[123]|[,1.500000]"}));
  cols =
      Read("\"[a,b];1;[]\",\"{a=1,b=2};;{}\"\n", {"STRING[][]", "MAP(STRING, INT64)[]"}, options);
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  EXPECT_EQ(Rows(*cols), (std::vector<std::string>{"[[a,b],[1],[]]|[{a=1, b=2},,{}]"}));
  // Without the option, "1;3" is not an INT64 list.
  CsvOptions no_header;
  no_header.header = CsvOptions::Header::kFalse;
  cols = Read("\"[1;3]\"\n", {"INT64[]"}, no_header);
  EXPECT_FALSE(cols.ok());
  EXPECT_FALSE(options.Set("list_unbraced", Value::String("yes")).ok());
}

// A STRING field that is not UTF-8 fails the read, even with IGNORE_ERRORS (the file is not
// text); other columns do not look at the bytes.
TEST(CsvReaderTest, InvalidUtf8FailsTheRead) {
  CsvOptions options;
  options.header = CsvOptions::Header::kFalse;
  auto cols = Read("ok,1\n\xff\xfe,2\n", {"STRING", "INT64"}, options);
  ASSERT_FALSE(cols.ok());
  EXPECT_EQ(cols.status().message(),
            "Copy exception: Error in file test.csv on line 2: Invalid UTF8-encoded string. "
            "Line/record containing the error: '\xff\xfe...'");
  options.ignore_errors = true;
  EXPECT_FALSE(Read("ok,1\n\xff\xfe,2\n", {"STRING", "INT64"}, options).ok());
  cols = Read("ok,1\nbad,x\n", {"STRING", "INT64"}, options);
  ASSERT_TRUE(cols.ok());
  EXPECT_EQ(Rows(*cols), (std::vector<std::string>{"ok|1"}));
  cols = Read("caf\xc3\xa9,1\n", {"STRING", "INT64"}, options);
  ASSERT_TRUE(cols.ok());
  EXPECT_EQ(Rows(*cols), (std::vector<std::string>{"caf\xc3\xa9|1"}));
}

// Booleans may be written t/f (any case), as sniffing takes them.
TEST(CsvReaderTest, ShortBooleans) {
  auto cols = Read("t\nF\nTrue\n", {"BOOL"});
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  EXPECT_EQ(Rows(*cols), (std::vector<std::string>{"True", "False", "True"}));
}

TEST(CsvReaderTest, MaxRecordsStopsTheRead) {
  CsvOptions probe;
  probe.header = CsvOptions::Header::kFalse;
  probe.max_records = 3;
  auto cols = Read("1\n2\n3\n4\n5\n", {"INT64"}, probe);
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  EXPECT_EQ(Rows(*cols), (std::vector<std::string>{"1", "2", "3"}));
  probe.max_records = 0;  // all of them
  cols = Read("1\n2\n3\n4\n5\n", {"INT64"}, probe);
  ASSERT_TRUE(cols.ok());
  EXPECT_EQ((*cols)[0].size(), 5u);
}

TEST(CsvReaderTest, Headers) {
  const char* text = "id,name\n1,a\n2,b\n";
  auto cols = Read(text, {"INT64", "STRING"});  // auto: "id" is not an INT64
  ASSERT_TRUE(cols.ok());
  EXPECT_EQ((*cols)[0].size(), 2u);
  CsvOptions no_header;
  no_header.header = CsvOptions::Header::kFalse;
  auto bad = Read(text, {"INT64", "STRING"}, no_header);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "Copy exception: Error in file test.csv on line 1: Conversion exception: Cast failed. "
            "Could not convert \"id\" to INT64. Line/record containing the error: 'id...'");
  EXPECT_EQ(bad.status().line(), 1);
  EXPECT_EQ(bad.status().column(), 1);
  auto strings = Read(text, {"STRING", "STRING"});  // all strings: auto keeps the first row
  ASSERT_TRUE(strings.ok());
  EXPECT_EQ((*strings)[0].size(), 3u);
  CsvOptions header;
  header.header = CsvOptions::Header::kTrue;
  CsvReader reader(env::FileSystem::Default(), Types({"STRING", "STRING"}), header);
  auto with = reader.ReadString(text);
  ASSERT_TRUE(with.ok());
  EXPECT_EQ((*with)[0].size(), 2u);
  EXPECT_EQ(reader.header(), (std::vector<std::string>{"id", "name"}));
  auto no_rows = Read("id,name\n", {"INT64", "STRING"});
  ASSERT_TRUE(no_rows.ok());
  EXPECT_EQ((*no_rows)[0].size(), 0u);
}

TEST(CsvReaderTest, AHeaderNeedsOnePlainStringOverATypedColumn) {
  // Kùzu's types_50k.csv: its header names every column but the last, a list ("[94,70]"), so
  // not every field of the record fails to convert; "id" over INT64 makes it a header.
  auto header = Read("id,n,\"[94,70]\"\n1,2,\"[3]\"\n", {"INT64", "INT64", "INT64[]"});
  ASSERT_TRUE(header.ok()) << header.status().message();
  EXPECT_EQ(Rows(*header), (std::vector<std::string>{"1|2|[3]"}));
  // "1,foo": a plain string where a list belongs: a header too.
  auto mixed = Read("1,foo\n2,[1]\n", {"INT64", "INT64[]"});
  ASSERT_TRUE(mixed.ok()) << mixed.status().message();
  EXPECT_EQ(Rows(*mixed), (std::vector<std::string>{"2|[1]"}));
  // A field that looks like a value (a list of strings, a number) is data with a bad value.
  for (const char* text : {"1,[x]\n2,[1]\n", "1.5,[2]\n2,[1]\n"}) {
    auto bad = Read(text, {"INT64", "INT64[]"});
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_EQ(bad.status().line(), 1);
  }
  // A date-shaped field is a bad DATE, not a name; AUTO_DETECT=false sniffs no header.
  auto date = Read("1,2021-13-01\n2,2021-01-01\n", {"INT64", "DATE"});
  ASSERT_FALSE(date.ok());
  EXPECT_EQ(date.status().line(), 1);
  CsvOptions no_sniff;
  no_sniff.auto_detect = false;
  auto data = Read("7,10a\n2,3\n", {"INT64", "INT32"}, no_sniff);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().line(), 1);
}

TEST(CsvReaderTest, OptionsDelimiterSkip) {
  CsvOptions options;
  ASSERT_TRUE(options.Set("DELIM", Value::String("|")).ok());
  ASSERT_TRUE(options.Set("header", Value::Boolean(true)).ok());
  ASSERT_TRUE(options.Set("Skip", Value::Int64(1)).ok());
  ASSERT_TRUE(options.Set("parallel", Value::Boolean(false)).ok());
  auto cols = Read("a|b\n1|x,y\n2|z\n3|w\n", {"INT64", "STRING"}, options);
  ASSERT_TRUE(cols.ok());
  EXPECT_EQ(Rows(*cols), (std::vector<std::string>{"2|z", "3|w"}));
  ASSERT_TRUE(options.Set("delim", Value::String("\\t")).ok());
  EXPECT_EQ(options.delimiter, '\t');
  ASSERT_TRUE(options.Set("quote", Value::String("'")).ok());
  ASSERT_TRUE(options.Set("escape", Value::String("'")).ok());
  EXPECT_EQ(options.Set("delim", Value::String("ab")).code(), ErrorCode::kQueryBinding);
  EXPECT_EQ(options.Set("header", Value::Int64(2)).code(), ErrorCode::kQueryBinding);
  EXPECT_EQ(options.Set("header", Value::String("true")).code(), ErrorCode::kQueryBinding);
  // 1 and 0 stand for TRUE and FALSE, as in Kùzu's "(HEADER 1)".
  ASSERT_TRUE(options.Set("header", Value::Int64(0)).ok());
  EXPECT_EQ(options.header, CsvOptions::Header::kFalse);
  ASSERT_TRUE(options.Set("header", Value::Int64(1)).ok());
  EXPECT_EQ(options.header, CsvOptions::Header::kTrue);
  Status s = options.Set("nonsense", Value::Int64(1));
  EXPECT_EQ(s.message(), "Binder exception: Unrecognized csv parsing option: nonsense.");
  CsvOptions single;
  single.quote = '\'';
  single.escape = '\'';
  auto quoted = Read("1,'it''s'\n", {"INT64", "STRING"}, single);
  ASSERT_TRUE(quoted.ok());
  EXPECT_EQ(Rows(*quoted), (std::vector<std::string>{"1|it's"}));
}

TEST(CsvReaderTest, ErrorsNameLineAndColumn) {
  auto r = Read("1,a\n2,b,c\n", {"INT64", "STRING"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kQueryRuntime);
  EXPECT_EQ(r.status().message(),
            "Copy exception: Error in file test.csv on line 2: expected 2 values per row, but "
            "got 3. Line/record containing the error: '2,b,c'");
  r = Read("1,\"multi\nline\"\n2,x\nfoo,y\n", {"INT64", "STRING"}, Serial());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().line(), 4);  // the quoted newline counts
  EXPECT_EQ(r.status().column(), 1);
  // PARALLEL=TRUE (the default) refuses the quoted line break, as Kùzu does.
  r = Read("1,\"multi\nline\"\n2,x\n", {"INT64", "STRING"});
  EXPECT_EQ(r.status().message(),
            "Copy exception: Error in file test.csv on line 1: Quoted newlines are not supported "
            "in parallel CSV reader. Please specify PARALLEL=FALSE in the options. Line/record "
            "containing the error: '1,\"multi'");
  r = Read("1,2021-13-01\n", {"INT64", "DATE"});
  EXPECT_EQ(r.status().message(),
            "Copy exception: Error in file test.csv on line 1: Conversion exception: Cast failed. "
            "Could not convert \"2021-13-01\" to DATE. Line/record containing the error: "
            "'1,2021-13-01'");
  r = Read("1,\"open\n", {"INT64", "STRING"}, Serial());
  EXPECT_EQ(r.status().message(),
            "Copy exception: Error in file test.csv on line 1: unterminated quotes. Line/record "
            "containing the error: '1,\"open'");
  r = Read("1,\"a\"b\n", {"INT64", "STRING"});
  EXPECT_FALSE(r.ok());
  CsvOptions no_header;
  no_header.header = CsvOptions::Header::kFalse;
  r = Read("[1,2\n", {"INT64[]"}, no_header);
  EXPECT_FALSE(r.ok());
  r = Read("1,[1,2\n", {"INT64", "INT64[]"});  // "[1,2" is a plain string: a header
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].size(), 0u);
  CsvReader reader(env::FileSystem::Default(), Types({"INT64"}));
  auto missing = reader.ReadFiles({"/nonexistent/file.csv"});
  EXPECT_EQ(missing.status().code(), ErrorCode::kInvalidRequest);
  EXPECT_NE(missing.status().message().find("/nonexistent/file.csv"), std::string::npos);
}

TEST(CsvReaderTest, MultipleFilesLargeFileAndProgress) {
  TempDir dir;
  std::string big;
  const int rows = 200000;
  for (int i = 0; i < rows; ++i) {
    big += std::to_string(i) + ",\"row " + std::to_string(i) + (i % 1000 == 0 ? "\nwrapped" : "") +
           "\"," + std::to_string(i % 28 + 1 < 10 ? 2000 : 2001) + "-0" +
           std::to_string(i % 9 + 1) + "-1" + std::to_string(i % 10) + "\r\n";
  }
  ASSERT_GT(big.size(), 8u << 20 >> 1);  // spans several 4 MiB blocks with carry-over
  std::string a = dir.Write("a.csv", "id,name,day\n" + big);
  std::string b = dir.Write("b.csv", "id,name,day\n999999,last,2020-02-29\n");
  CsvReader reader(env::FileSystem::Default(), Types({"INT64", "STRING", "DATE"}), Serial());
  std::vector<CsvProgress> reports;
  reader.set_progress_callback([&](const CsvProgress& p) { reports.push_back(p); });
  auto cols = reader.ReadFiles({a, b});
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  ASSERT_EQ((*cols)[0].size(), static_cast<uint64_t>(rows + 1));
  for (int i = 0; i < rows; i += 997) {
    ASSERT_EQ((*cols)[0].GetInt64(i), i);
    std::string want = "row " + std::to_string(i) + (i % 1000 == 0 ? "\nwrapped" : "");
    ASSERT_EQ((*cols)[1].GetString(i), want);
  }
  EXPECT_EQ((*cols)[1].GetString(rows), "last");
  EXPECT_EQ((*cols)[2].Get(rows).ToString(), "2020-02-29");
  ASSERT_GE(reports.size(), 3u);
  EXPECT_EQ(reports.back().rows, static_cast<uint64_t>(rows + 1));
  EXPECT_EQ(reports.back().bytes, reports.back().total_bytes);
  EXPECT_EQ(reports.back().file_index, 1u);
  for (size_t i = 1; i < reports.size(); ++i) {
    EXPECT_GE(reports[i].rows, reports[i - 1].rows);
    EXPECT_GE(reports[i].bytes, reports[i - 1].bytes);
  }
}

TEST(CsvReaderTest, TrailingDelimiterAddsNoField) {
  auto cols = Read("\"abc\",\ndef,\n", {"STRING"});
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  EXPECT_EQ(Rows(*cols), (std::vector<std::string>{"abc", "def"}));
  // Two empty fields over one column are still too many; a quoted empty last field is a value.
  CsvOptions comma;
  ASSERT_TRUE(comma.Set("delim", Value::String(",")).ok());
  EXPECT_FALSE(Read("a,,\n", {"STRING"}, comma).ok());
  EXPECT_FALSE(Read("a,\"\"\n", {"STRING"}, comma).ok());
}

TEST(CsvReaderTest, SniffsDelimiterAndQuote) {
  // Tab, pipe and semicolon files read without options when the counts fit.
  auto tab = Read("abc\tdef\nghi\tjkl\n", {"STRING", "STRING"});
  ASSERT_TRUE(tab.ok()) << tab.status().ToString();
  EXPECT_EQ(Rows(*tab), (std::vector<std::string>{"abc|def", "ghi|jkl"}));
  auto semi = Read("1;'a;b'\n2;'c'\n", {"INT64", "STRING"});
  ASSERT_TRUE(semi.ok()) << semi.status().ToString();
  EXPECT_EQ(Rows(*semi), (std::vector<std::string>{"1|a;b", "2|c"}));
  // A comma file whose text holds pipes stays a comma file.
  auto comma = Read("a|b,c\nd|e,f\n", {"STRING", "STRING"});
  ASSERT_TRUE(comma.ok()) << comma.status().ToString();
  EXPECT_EQ(Rows(*comma), (std::vector<std::string>{"a|b|c", "d|e|f"}));
  // A given delimiter is kept, and AUTO_DETECT=false turns sniffing off.
  CsvOptions given;
  ASSERT_TRUE(given.Set("DELIM", Value::String("|")).ok());
  EXPECT_FALSE(Read("a\tb\n", {"STRING", "STRING"}, given).ok());
  CsvOptions off;
  ASSERT_TRUE(off.Set("auto_detect", Value::Boolean(false)).ok());
  EXPECT_FALSE(Read("abc\tdef\n", {"STRING", "STRING"}, off).ok());
  EXPECT_FALSE(off.Set("auto_detect", Value::Int64(5)).ok());
  EXPECT_FALSE(off.Set("sample_size", Value::Int64(0)).ok());

  CsvOptions load;  // LOAD FROM: the column count is not known
  DetectCsvDialect("a|b|c\n1|'x|y'|3\n", 0, true, &load);
  EXPECT_EQ(load.delimiter, '|');
  EXPECT_EQ(load.quote, '\'');
  CsvOptions plain;
  DetectCsvDialect("a,b\n1,2\n", 0, true, &plain);
  EXPECT_EQ(plain.delimiter, ',');
  // Ragged records over two columns: no candidate fits, the defaults stay.
  CsvOptions ragged;
  DetectCsvDialect("a;b\n1,2,3\n", 2, true, &ragged);
  EXPECT_EQ(ragged.delimiter, ',');
  EXPECT_EQ(plain.quote, '"');
}

TEST(CsvReaderTest, BlankLinesOverOneColumnAreEmptyFields) {
  CsvOptions no_header;
  no_header.header = CsvOptions::Header::kFalse;
  auto one = Read("abc\n\ndef\n", {"STRING"}, no_header);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(Rows(*one), (std::vector<std::string>{"abc", "", "def"}));
  auto two = Read("a,b\n\nc,d\n", {"STRING", "STRING"}, no_header);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(Rows(*two), (std::vector<std::string>{"a|b", "c|d"}));
}

TEST(CsvReaderTest, SniffsAnEscapeThatDoesNotFit) {
  // A backslash before a character other than the quote: without a given ESCAPE the file is
  // read with doubled quotes only, and the backslash stays.
  auto cols = Read("0,\"[ab\\'c]\"\n1,\"[x\"\"y]\"\n", {"INT64", "STRING"});
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  EXPECT_EQ(Rows(*cols), (std::vector<std::string>{"0|[ab\\'c]", "1|[x\"y]"}));
  // Given, the escape is kept and the record is an error.
  CsvOptions given;
  ASSERT_TRUE(given.Set("escape", Value::String("\\")).ok());
  auto bad = Read("0,\"[ab\\'c]\"\n", {"INT64", "STRING"}, given);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("neither QUOTE nor ESCAPE is proceeded by ESCAPE."),
            std::string::npos);
}

}  // namespace
}  // namespace graphdb::formats
