#include "formats/npy_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>

namespace graphdb::formats {
namespace {

// A version-1 .npy file of `descr` and `shape` holding `data`.
std::string Npy(const std::string& descr, const std::string& shape, const std::string& data,
                bool fortran = false) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': (" +
                       shape + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

template <typename T>
std::string Bytes(std::initializer_list<T> values) {
  std::string out;
  for (T v : values) out.append(reinterpret_cast<const char*>(&v), sizeof(T));
  return out;
}

class NpyReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/graphdb_npy_test_XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override {
    for (const auto& p : written_) (void)env::FileSystem::Default()->Remove(p);
    (void)env::FileSystem::Default()->RemoveDir(dir_);
  }
  std::string Write(const std::string& name, const std::string& bytes) {
    std::string path = env::JoinPath(dir_, name);
    EXPECT_TRUE(env::WriteStringToFile(env::FileSystem::Default(), path, bytes, false).ok());
    written_.push_back(path);
    return path;
  }
  std::string dir_;
  std::vector<std::string> written_;
};

TEST_F(NpyReaderTest, ReadsOneAndMoreDimensions) {
  auto* fs = env::FileSystem::Default();
  std::string ints = Write("i.npy", Npy("<i4", "3,", Bytes<int32_t>({1, -2, 3})));
  auto header = ReadNpyHeader(fs, ints, "i.npy");
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  EXPECT_EQ(header->RowType().ToString(), "INT32");
  auto column = ReadNpyColumn(fs, ints, "i.npy", LogicalType::Int64());  // widened
  ASSERT_TRUE(column.ok()) << column.status().ToString();
  ASSERT_EQ(column->size(), 3u);
  EXPECT_EQ(column->Get(1).ToString(), "-2");

  // (2, 2, 2): rows of four values, flattened.
  std::string cube = Write("c.npy", Npy("<f8", "2, 2, 2", Bytes<double>({1, 2, 3, 4, 5, 6, 7, 8})));
  header = ReadNpyHeader(fs, cube, "c.npy");
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->RowType().ToString(), "DOUBLE[4]");
  column = ReadNpyColumn(fs, cube, "c.npy", header->RowType());
  ASSERT_TRUE(column.ok()) << column.status().ToString();
  EXPECT_EQ(column->Get(1).ToString(), "[5.000000,6.000000,7.000000,8.000000]");
  // The row width must fit a fixed-size list, and rows need a list.
  std::string error;
  EXPECT_FALSE(ReadNpyColumn(fs, cube, "c.npy", *ParseLogicalType("DOUBLE[3]", &error)).ok());
  EXPECT_FALSE(ReadNpyColumn(fs, cube, "c.npy", LogicalType::Double()).ok());
}

TEST_F(NpyReaderTest, RefusesWhatItCannotRead) {
  auto* fs = env::FileSystem::Default();
  std::string big = Write("b.npy", Npy(">i4", "1,", Bytes<int32_t>({1})));
  auto r = ReadNpyHeader(fs, big, "b.npy");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("little-endian only"), std::string::npos);
  std::string fortran = Write("f.npy", Npy("<i4", "1, 1", Bytes<int32_t>({1}), true));
  EXPECT_NE(ReadNpyHeader(fs, fortran, "f.npy").status().message().find("Fortran"),
            std::string::npos);
  std::string short_data = Write("s.npy", Npy("<i8", "4,", Bytes<int64_t>({1})));
  EXPECT_FALSE(ReadNpyHeader(fs, short_data, "s.npy").ok());
  std::string junk = Write("j.npy", "not numpy at all");
  EXPECT_FALSE(ReadNpyHeader(fs, junk, "j.npy").ok());
  // A value out of the target's range.
  std::string wide = Write("w.npy", Npy("<i8", "1,", Bytes<int64_t>({1LL << 40})));
  EXPECT_FALSE(ReadNpyColumn(fs, wide, "w.npy", LogicalType(LogicalTypeId::kInt32)).ok());
}

}  // namespace
}  // namespace graphdb::formats
