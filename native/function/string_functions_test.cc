// String functions, with cases from the conformance suite's string tests.
#include <gtest/gtest.h>

#include "function/function_test_util.h"

namespace graphdb::function::testing {
namespace {

const char* kMovie = "The 😂😃🧘🏻‍♂️🌍🌦️🍞🚗 movie";
const char* kSolo = "Sóló cón tu párejâ";

TEST(StringFunctionsTest, CaseMapping) {
  EXPECT_EQ(Eval("lower", {Str("ABFsUni")}), "abfsuni");
  EXPECT_EQ(Eval("upper", {Str(kSolo)}), "SÓLÓ CÓN TU PÁREJÂ");
  EXPECT_EQ(Eval("lcase", {Str(kSolo)}), "sóló cón tu párejâ");
  EXPECT_EQ(Eval("toUpper", {Str("CsWork")}), "CSWORK");
  EXPECT_EQ(Eval("initcap", {Str("ABFsUni")}), "Abfsuni");
  EXPECT_EQ(Eval("initcap", {Str(kSolo)}), kSolo);
}

// A named function's STRING parameter takes any scalar as its text; the operators and the
// functions over strings or lists (list_extract) do not convert to STRING implicitly.
TEST(StringFunctionsTest, StringParametersTakeAnyScalarAsText) {
  EXPECT_EQ(Eval("left", {Val("1950-05-14", "DATE"), I64(4)}), "1950");
  EXPECT_EQ(Eval("left", {Bool(true), I64(4)}), "True");
  EXPECT_EQ(Eval("right", {U8(134), I64(2)}), "34");
  EXPECT_EQ(Eval("left", {Dbl(1.34), I64(8)}), "1.340000");
  EXPECT_EQ(BindType("left", {T("STRING"), T("INT64")}), "STRING");
  EXPECT_EQ(Eval("md5", {I64(123)}), "202cb962ac59075b964b07152d234b70");
  EXPECT_EQ(BindType("list_extract", {T("INT64"), T("INT64")}).substr(0, 6), "ERROR:");
  EXPECT_EQ(BindType("+", {T("INT64"), T("STRING")}).substr(0, 6), "ERROR:");
  EXPECT_EQ(BindType("left", {T("INT64[]"), T("INT64")}).substr(0, 6), "ERROR:");
}

// Simple case mappings from the Unicode tables (common/unicode.h): one code point to one.
TEST(StringFunctionsTest, UnicodeCaseMapping) {
  EXPECT_EQ(Eval("upper", {Str("ǆ")}), "Ǆ");
  EXPECT_EQ(Eval("lower", {Str("Ǆ")}), "ǆ");
  EXPECT_EQ(Eval("lower", {Str("İ")}), "i");  // U+0069, not the dotless ı
  EXPECT_EQ(Eval("upper", {Str("ı")}), "I");
  EXPECT_EQ(Eval("upper", {Str("straße")}), "STRAßE");
  EXPECT_EQ(Eval("lower", {Str("ΣΑΣ")}), "σασ");
  EXPECT_EQ(Eval("upper", {Str("ⱥ")}), "Ⱥ");                  // three bytes to two
  EXPECT_EQ(Eval("upper", {Str("αβγ άέ")}), "ΑΒΓ ΆΈ");        // Greek
  EXPECT_EQ(Eval("upper", {Str("привет ѐӏ")}), "ПРИВЕТ ЀӀ");  // Cyrillic
  EXPECT_EQ(Eval("upper", {Str("բարեւ")}), "ԲԱՐԵՒ");          // Armenian
  EXPECT_EQ(Eval("upper", {Str("ამ")}), "ᲐᲛ");                // Georgian
  EXPECT_EQ(Eval("lower", {Str("ᲐᲛ")}), "ამ");
  EXPECT_EQ(Eval("lower", {Str("\U00010400\U00010401")}), "\U00010428\U00010429");  // Deseret
  EXPECT_EQ(Eval("upper", {Str("\U00010428")}), "\U00010400");
  EXPECT_EQ(Eval("upper", {Str("李雷 😀")}), "李雷 😀");
  EXPECT_EQ(Eval("upper", {Str("a\xff"
                               "b")}),
            "A\xff"
            "B");                                       // invalid bytes stay
  EXPECT_EQ(Eval("initcap", {Str("ǆEMAL")}), "ǅemal");  // titlecase, not uppercase
  EXPECT_EQ(Eval("initcap", {Str("ამ")}), "ამ");        // Georgian titlecase is not Mtavruli
}

TEST(StringFunctionsTest, TrimPadRepeatReverse) {
  EXPECT_EQ(Eval("rtrim", {Str("   ")}), "");
  EXPECT_EQ(Eval("trim", {Str("        成 績      評価")}), "成 績      評価");
  EXPECT_EQ(Eval("lpad", {Str("Bob"), I64(5), Str("<")}), "<<Bob");
  EXPECT_EQ(Eval("lpad", {Str("Alice"), I64(-1), Str(".")}), "");
  EXPECT_EQ(Eval("lpad", {Str(kMovie), I64(25), Str("âó")}), std::string("âóâ") + kMovie);
  EXPECT_EQ(Eval("rpad", {Str("Hubert Blaine Wolfeschlegel"), I64(15), Str(">")}),
            "Hubert Blaine W");
  EXPECT_EQ(Eval("rpad", {Str("😃🌍♂🌦🍞🚗"), I64(7), Str("<")}), "😃🌍♂🌦🍞🚗<");
  EXPECT_EQ(Eval("repeat", {Str("CsWork"), I64(2)}), "CsWorkCsWork");
  EXPECT_EQ(Eval("reverse", {Str(kMovie)}),
            "eivom 🚗🍞🌦️🌍🧘🏻‍♂️😃😂 ehT");
  EXPECT_EQ(Eval("reverse", {Str("raksO")}), "Oskar");
}

TEST(StringFunctionsTest, Substrings) {
  EXPECT_EQ(Eval("substr", {Str("Hubert Blaine Wolfeschlegel"), I64(2), I64(12)}), "ubert Blaine");
  EXPECT_EQ(Eval("substring", {Str("0123456789"), I64(2), I64(10)}), "123456789");
  EXPECT_EQ(Eval("substring", {Str("😃🌍🌦️🍞🚗"), I64(1), I64(3)}), "😃🌍🌦️");
  EXPECT_EQ(Eval("substr", {Str("abcd"), I64(0), I64(1)}), "");
  EXPECT_EQ(Eval("substr", {Str("abcd"), I64(4), I64(1)}), "d");
  EXPECT_EQ(Eval("substr", {Str("abcd"), I64(-99999), I64(1)}), "");
  EXPECT_EQ(Eval("left", {Str("Alice"), I64(-4)}), "A");
  EXPECT_EQ(Eval("left", {Str(kMovie), I64(6)}), "The 😂😃");
  EXPECT_EQ(Eval("right", {Str("Alice"), I64(-4)}), "e");
  EXPECT_EQ(Eval("right", {Str("😃🧘🏻‍♂️🌍🌦️🍞🚗"), I64(3)}), "🌦️🍞🚗");
  EXPECT_EQ(Eval("size", {Str("成績評価の甘い授業が高く評価")}), "14");
  EXPECT_EQ(Eval("list_extract", {Str("ABFsUni"), I64(-2)}), "n");
  EXPECT_EQ(Eval("array_extract", {Str(kMovie), I64(6)}), "😃");
  EXPECT_EQ(Eval("array_extract", {Str("Alice"), I64(0)}), "");
  EXPECT_EQ(Eval("list_extract", {Str("Alice"), I64(8)}), "");
  // Out of range: before the start both give the first character; past the end list_extract
  // gives "" and array_extract the last character.
  EXPECT_EQ(Eval("list_extract", {Str("Roma"), I64(-5)}), "R");
  EXPECT_EQ(Eval("array_extract", {Str("Roma"), I64(-5)}), "R");
  EXPECT_EQ(Eval("array_extract", {Str("Roma"), I64(6)}), "a");
  EXPECT_EQ(Eval("array_extract", {Str("DEsWork"), I64(8)}), "k");
  EXPECT_EQ(Eval("array_extract", {Str(""), I64(1)}), "");
  EXPECT_EQ(Eval("array_extract", {List("INT64[]", {I64(1), I64(2)}), I64(2)}), "2");
  EXPECT_EQ(Eval("list_slice", {Str("这是一个中文句子"), I64(2), I64(5)}), "是一个中");
  EXPECT_EQ(Eval("array_slice", {Str("abcd"), I64(0), I64(-3)}), "ab");
  EXPECT_EQ(Eval("array_slice", {Str("abc"), I64(-1), I64(4)}), "c");
  EXPECT_EQ(Eval("array_slice", {Str("abcd"), I64(-1), I64(2)}), "");
}

TEST(StringFunctionsTest, SearchAndConcat) {
  EXPECT_EQ(Eval("contains", {Str(kMovie), Str("😂😃")}), "True");
  EXPECT_EQ(Eval("starts_with", {Str("成績評価の甘い"), Str("成績")}), "True");
  EXPECT_EQ(Eval("prefix", {Str("ABFsUni"), Str("ABF")}), "True");
  EXPECT_EQ(Eval("suffix", {Str("CsWork"), Str("Work")}), "True");
  EXPECT_EQ(Eval("ends_with", {Str("bbbb"), Str("b")}), "True");
  EXPECT_EQ(Eval("concat", {Str("name: "), Str("Alice"), Str(" ,age: "), Str("5")}),
            "name: Alice ,age: 5");
  EXPECT_EQ(Eval("concat", {Str("note:'"), Null(), Str("'")}), "note:''");
  EXPECT_EQ(Eval("concat_ws", {Str("-"), Str("a"), Null(), Str("b")}), "a-b");
  EXPECT_EQ(Eval("instr", {Str("成績評価"), Str("評")}), "3");
  EXPECT_EQ(Eval("levenshtein", {Str("kitten"), Str("sitting")}), "3");
  EXPECT_EQ(Eval("levenshtein", {Str("成績評価の甘い授業が高く評価"),
                                 Str("成績評価の甘い授業が高く‍")}),
            "6");
  EXPECT_EQ(Eval("string", {I64(10)}), "10");
  EXPECT_EQ(Eval("string", {Dbl(11.7)}), "11.700000");
}

TEST(StringFunctionsTest, RegularExpressions) {
  EXPECT_EQ(Eval("=~", {Str("Alice"), Str("Ali.*")}), "True");
  EXPECT_EQ(Eval("regexp_full_match", {Str("peter_n@examplecom"), Str(".*\\.com")}), "False");
  EXPECT_EQ(Eval("regexp_full_match", {Str("Alice.*^Alice"), Str(".*\\.\\*.*")}), "True");
  EXPECT_EQ(Eval("regexp_matches", {Str("anabanana"), Str("(an)*")}), "True");
  EXPECT_EQ(Eval("regexp_replace", {Str("hello"), Str("[lo]"), Str("-")}), "he-lo");
  EXPECT_EQ(Eval("regexp_replace", {Str("hello"), Str("[lo]"), Str("-"), Str("g")}), "he---");
  EXPECT_EQ(Eval("regexp_replace", {Str("this is a team"), Str("is"), Str("*??"), Str("g")}),
            "th*?? *?? a team");
  EXPECT_EQ(Eval("regexp_replace", {Str("a b"), Str("\\s"), Str(""), Str("g")}), "ab");
  EXPECT_EQ(Eval("regexp_replace", {Str("abc"), Str("(b)"), Str("[\\1]")}), "a[b]c");
  EXPECT_EQ(Eval("regexp_replace", {Str("this is a team"), Str("is"), Str("*??"), Str("l")}),
            "ERROR: Binder exception: regex_replace can only support global replace option: g.");
  EXPECT_EQ(Eval("regexp_replace", {Str("this is a team"), Str("is"), Str("*??"), I64(5)}),
            "ERROR: Binder exception: 5 has data type INT64 but STRING was expected.");
  EXPECT_EQ(Eval("regexp_extract", {Str("hello_world"), Str("([a-z ]+)_?")}), "hello_");
  EXPECT_EQ(Eval("regexp_extract", {Str("hello_world"), Str("([a-z ]+)_?"), I64(1)}), "hello");
  EXPECT_EQ(Eval("regexp_extract_all", {Str("hello_world"), Str("([a-z ]+)_?")}), "[hello_,world]");
  EXPECT_EQ(Eval("regexp_extract_all", {Str("hello"), Str("()"), I64(1)}), "[,,,,,]");
  EXPECT_EQ(Eval("regexp_split_to_array", {Str("hello world! 42?"), Str("o")}),
            "[hell, w,rld! 42?]");
  EXPECT_EQ(Eval("regexp_split_to_array", {Str("hello? world? 42?"), Str("\\?")}),
            "[hello, world, 42]");
}

// RE2 syntax and semantics on code points (common/regex.h).
TEST(StringFunctionsTest, RegularExpressionsOnCodePoints) {
  EXPECT_EQ(Eval("=~", {Str("李"), Str(".")}), "True");
  EXPECT_EQ(Eval("=~", {Str("李雷"), Str(".")}), "False");  // =~ matches the whole string
  EXPECT_EQ(Eval("regexp_matches", {Str("李雷"), Str("雷$")}), "True");
  EXPECT_EQ(Eval("regexp_replace", {Str("李雷"), Str("."), Str("x")}), "x雷");
  EXPECT_EQ(Eval("regexp_replace", {Str("李雷"), Str("."), Str("x"), Str("g")}), "xx");
  EXPECT_EQ(Eval("regexp_replace", {Str("李雷"), Str(""), Str("-"), Str("g")}), "-李-雷-");
  EXPECT_EQ(Eval("regexp_extract", {Str("Ωmega 42"), Str("\\pL+")}), "Ωmega");
  EXPECT_EQ(Eval("regexp_extract_all", {Str("李雷"), Str("")}), "[,,]");
  EXPECT_EQ(Eval("regexp_split_to_array", {Str("李雷"), Str("")}), "[李,雷]");
  EXPECT_EQ(Eval("=~", {Str("Ann"), Str("(?i)ann")}), "True");
  EXPECT_EQ(Eval("=~", {Str("ANN"), Str("(?i:a)nn")}), "False");
  EXPECT_EQ(Eval("=~", {Str("ПРИВЕТ"), Str("(?i)привет")}), "True");
  EXPECT_EQ(Eval("regexp_matches", {Str("line1\nline2"), Str("(?m)^line2$")}), "True");
  EXPECT_EQ(Eval("regexp_matches", {Str("line1\nline2"), Str("^line2$")}), "False");
}

TEST(StringFunctionsTest, RegexReplaceEdges) {
  EXPECT_EQ(Eval("regexp_replace", {Str("abc"), Str("x*"), Str("-"), Str("g")}), "-a-b-c-");
  EXPECT_EQ(Eval("regexp_replace", {Str("aaa"), Str("a*"), Str("-"), Str("g")}), "-");
  EXPECT_EQ(Eval("regexp_replace", {Str("baaac"), Str("a*"), Str("-"), Str("g")}), "-b-c-");
  EXPECT_EQ(Eval("regexp_replace", {Str("abc"), Str("(b)"), Str("[\\1\\0\\\\]")}), "a[bb\\]c");
  EXPECT_EQ(Eval("regexp_replace", {Str("a.b"), Str("\\."), Str("$1")}), "a$1b");
  EXPECT_EQ(Eval("regexp_replace", {Str("abc"), Str("(x)?b"), Str("<\\1>")}), "a<>c");
  EXPECT_EQ(Eval("regexp_replace", {Str("abc"), Str("z"), Str("-")}), "abc");
  EXPECT_EQ(Eval("regexp_replace", {Str("abc"), Str("b"), Str("\\2")}),
            "ERROR: Runtime exception: regexp_replace: the replacement refers to group \\2 but "
            "the pattern has 0 capture groups.");
  EXPECT_EQ(Eval("regexp_replace", {Str("abc"), Str("b"), Str("\\x")}),
            "ERROR: Runtime exception: regexp_replace: invalid replacement '\\x': a backslash "
            "must be followed by a group number 0-9 or another backslash.");
}

TEST(StringFunctionsTest, RegexExtractAndSplitEdges) {
  EXPECT_EQ(Eval("regexp_extract", {Str("abc"), Str("(x)?b"), I64(1)}), "");
  EXPECT_EQ(Eval("regexp_extract", {Str("abc"), Str("z")}), "");
  EXPECT_EQ(Eval("regexp_extract", {Str("abc"), Str("b"), I64(1)}),
            "ERROR: Runtime exception: regexp_extract: group 1 is out of range: the pattern has "
            "0 capture groups.");
  EXPECT_EQ(Eval("regexp_extract", {Str("abc"), Str("b"), I64(-1)}),
            "ERROR: Runtime exception: Group index must be non-negative.");
  EXPECT_EQ(Eval("regexp_extract_all", {Str("a1b22c333"), Str("\\d+")}), "[1,22,333]");
  EXPECT_EQ(Eval("regexp_extract_all", {Str("a1b22"), Str("([a-z])(\\d+)"), I64(2)}), "[1,22]");
  EXPECT_EQ(Eval("regexp_extract_all", {Str("baaac"), Str("a*")}), "[,aaa,,]");
  EXPECT_EQ(Eval("regexp_extract_all", {Str("abc"), Str("z")}), "[]");
  EXPECT_EQ(Eval("regexp_split_to_array", {Str("a1b22c"), Str("\\d+")}), "[a,b,c]");
  EXPECT_EQ(Eval("regexp_split_to_array", {Str("abc"), Str("")}), "[a,b,c]");
  EXPECT_EQ(Eval("regexp_split_to_array", {Str(",a,"), Str(",")}), "[,a]");
  EXPECT_EQ(Eval("regexp_split_to_array", {Str("abc"), Str("z")}), "[abc]");
  EXPECT_EQ(Eval("size", {Call("regexp_split_to_array", {Str(""), Str(",")})}), "1");
}

TEST(StringFunctionsTest, InvalidRegexIsAClearError) {
  EXPECT_EQ(Eval("=~", {Str("a"), Str("(")}),
            "ERROR: Runtime exception: Invalid regular expression '(': missing ) to close the "
            "group opened at offset 0.");
  EXPECT_EQ(Eval("regexp_matches", {Str("a"), Str("a{1001}")}),
            "ERROR: Runtime exception: Invalid regular expression 'a{1001}': bad repetition "
            "count {1001}: counts are at most 1000.");
  EXPECT_EQ(Eval("regexp_replace", {Str("a"), Str("(?=a)"), Str("")}),
            "ERROR: Runtime exception: Invalid regular expression '(?=a)': lookahead and "
            "lookbehind assertions are not supported: (?=a.");
}

TEST(StringFunctionsTest, RegexOnLongStrings) {
  std::string a30k(30000, 'a');
  EXPECT_EQ(Eval("=~", {Str(a30k), Str(".*")}), "True");
  EXPECT_EQ(Eval("regexp_matches", {Str(a30k), Str("(a*)*b")}), "False");
  EXPECT_EQ(Eval("size", {Call("regexp_replace", {Str(a30k), Str("a"), Str("bb"), Str("g")})}),
            "60000");
  std::string mb(1 << 20, 'x');
  EXPECT_EQ(Eval("size", {Call("regexp_replace", {Str(mb), Str("x+"), Str("y")})}), "1");
  EXPECT_EQ(Eval("size", {Call("regexp_split_to_array", {Str(mb), Str("")})}),
            std::to_string(mb.size()));
}

TEST(StringFunctionsTest, Splitting) {
  EXPECT_EQ(Eval("string_split", {Str("Hubert Blaine"), Str("a")}), "[Hubert Bl,ine]");
  EXPECT_EQ(Eval("str_split", {Str("Alice"), Str("li")}), "[A,ce]");
  EXPECT_EQ(Eval("string_to_array", {Str("Bob"), Str("")}), "[B,o,b]");
  EXPECT_EQ(Eval("size", {Call("str_split", {Str(""), Str(",")})}), "1");
  EXPECT_EQ(Eval("split_part", {Str("Alice"), Str(""), I64(5)}), "e");
  EXPECT_EQ(Eval("split_part", {Str("Bob"), Str(""), I64(5)}), "");
  EXPECT_EQ(Eval("split_part", {Str("ABFsUni"), Str("F"), I64(1)}), "AB");
}

TEST(StringFunctionsTest, Hashes) {
  EXPECT_EQ(Eval("md5", {Str("abc")}), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Eval("sha256", {Str("abc")}),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace graphdb::function::testing
