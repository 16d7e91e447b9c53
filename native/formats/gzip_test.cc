#include "formats/gzip.h"

#include <gtest/gtest.h>

namespace graphdb::formats {
namespace {

// gzip of "hello hello hello\n" (made with `printf ... | gzip -n`): a fixed-Huffman block with
// a back-reference.
const unsigned char kHello[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
                                0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x90, 0x5c,
                                0x00, 0x3b, 0x7c, 0x8a, 0xdf, 0x12, 0x00, 0x00, 0x00};

std::string Hello() { return std::string(reinterpret_cast<const char*>(kHello), sizeof(kHello)); }

TEST(GzipTest, DecompressesMembersAndChecksThem) {
  auto text = Gunzip(Hello(), "h.gz");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "hello hello hello\n");
  // Two members one after the other.
  auto twice = Gunzip(Hello() + Hello(), "hh.gz");
  ASSERT_TRUE(twice.ok()) << twice.status().ToString();
  EXPECT_EQ(*twice, "hello hello hello\nhello hello hello\n");
  // A stored block (BTYPE 00), written by hand: "abc".
  std::string stored = std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10) +
                       std::string(
                           "\x01\x03\x00\xfc\xff"
                           "abc",
                           8) +
                       std::string("\xc2\x41\x24\x35\x03\x00\x00\x00", 8);
  auto abc = Gunzip(stored, "s.gz");
  ASSERT_TRUE(abc.ok()) << abc.status().ToString();
  EXPECT_EQ(*abc, "abc");
}

TEST(GzipTest, RefusesWhatIsNotGzip) {
  EXPECT_EQ(Gunzip("plain text", "p.gz").status().message(),
            "IO exception: Input is not a GZIP stream.");
  std::string method = Hello();
  method[2] = 7;
  EXPECT_EQ(Gunzip(method, "m.gz").status().message(),
            "IO exception: Unsupported GZIP compression method.");
  std::string flags = Hello();
  flags[3] = static_cast<char>(0x20);
  EXPECT_EQ(Gunzip(flags, "f.gz").status().message(), "IO exception: Unsupported GZIP archive.");
  std::string corrupt = Hello();
  corrupt[corrupt.size() - 8] ^= 1;  // the CRC
  EXPECT_NE(Gunzip(corrupt, "c.gz").status().message().find("checksum mismatch"),
            std::string::npos);
  std::string cut = Hello().substr(0, 15);
  EXPECT_FALSE(Gunzip(cut, "t.gz").ok());
}

}  // namespace
}  // namespace graphdb::formats
