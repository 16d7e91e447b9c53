#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>

#include "env/crc32c.h"
#include "env/fault_injection_file_system.h"
#include "env/file_system.h"

namespace graphdb::env {
namespace {

std::string MakeTempDir() {
  char tmpl[] = "/tmp/graphdb_env_test_XXXXXX";
  char* dir = ::mkdtemp(tmpl);
  EXPECT_NE(dir, nullptr);
  return dir ? std::string(dir) : std::string();
}

void RemoveTree(FileSystem* fs, const std::string& dir) {
  auto names = fs->ListDir(dir);
  if (names.ok()) {
    for (const auto& name : *names) (void)fs->Remove(JoinPath(dir, name));
  }
  (void)fs->RemoveDir(dir);
}

TEST(Crc32cTest, KnownVectors) {
  EXPECT_EQ(crc32c::Value("123456789"), 0xE3069283u);
  std::string zeros(32, '\0');
  EXPECT_EQ(crc32c::Value(zeros), 0x8A9136AAu);
  std::string ones(32, '\xff');
  EXPECT_EQ(crc32c::Value(ones), 0x62A8AB43u);
  std::string ascending(32, '\0');
  for (int i = 0; i < 32; ++i) ascending[i] = static_cast<char>(i);
  EXPECT_EQ(crc32c::Value(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc32c::Value(""), 0u);
}

TEST(Crc32cTest, HardwareAndPortableAgree) {
  if (!crc32c::HardwareAvailable()) GTEST_SKIP() << "no SSE 4.2 CRC32 instruction here";
  std::string data;
  uint32_t x = 12345;
  for (int i = 0; i < 4099; ++i) {
    x = x * 1103515245u + 12345u;
    data += static_cast<char>(x >> 24);
  }
  // Every alignment and tail length, and chained extensions.
  for (size_t start = 0; start < 9; ++start) {
    for (size_t n : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 1000, 4090}) {
      const char* p = data.data() + start;
      EXPECT_EQ(crc32c::ExtendHardware(0, p, n), crc32c::ExtendPortable(0, p, n))
          << start << " " << n;
      EXPECT_EQ(crc32c::ExtendHardware(0xdeadbeef, p, n), crc32c::ExtendPortable(0xdeadbeef, p, n));
    }
  }
}

TEST(Crc32cTest, ExtendEqualsWhole) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data += static_cast<char>(i * 7 + 3);
  for (size_t split : {0, 1, 7, 8, 9, 500, 999, 1000}) {
    uint32_t a = crc32c::Value(data.data(), split);
    EXPECT_EQ(crc32c::Extend(a, data.data() + split, data.size() - split), crc32c::Value(data))
        << split;
  }
}

TEST(PathTest, JoinAndBase) {
  EXPECT_EQ(JoinPath("/a", "b"), "/a/b");
  EXPECT_EQ(JoinPath("/a/", "b"), "/a/b");
  EXPECT_EQ(JoinPath("/a/", "/b"), "/a/b");
  EXPECT_EQ(BaseName("/x/y/z.csv"), "z.csv");
  EXPECT_EQ(BaseName("z.csv"), "z.csv");
}

TEST(PosixFileSystemTest, WriteReadRenameRemove) {
  FileSystem* fs = FileSystem::Default();
  std::string dir = MakeTempDir();
  std::string a = JoinPath(dir, "a.bin");
  std::string b = JoinPath(dir, "b.bin");
  ASSERT_FALSE(fs->Exists(a));
  {
    auto file = fs->OpenForWrite(a);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    ASSERT_TRUE((*file)->Append("hello ").ok());
    std::string big(200 * 1024, 'x');  // larger than the write buffer
    ASSERT_TRUE((*file)->Append(big).ok());
    ASSERT_TRUE((*file)->Append("world").ok());
    ASSERT_TRUE((*file)->Sync().ok());
    ASSERT_TRUE((*file)->DataSync().ok());
    ASSERT_TRUE((*file)->Close().ok());
  }
  EXPECT_TRUE(fs->Exists(a));
  auto size = fs->FileSize(a);
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, 6u + 200 * 1024 + 5);
  {
    auto file = fs->OpenForAppend(a);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE((*file)->Append("!").ok());
    ASSERT_TRUE((*file)->Close().ok());
  }
  auto data = ReadFileToString(fs, a);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->substr(0, 6), "hello ");
  EXPECT_EQ(data->substr(data->size() - 6), "world!");

  auto reader = fs->OpenForRead(a);
  ASSERT_TRUE(reader.ok());
  char buf[8];
  auto n = (*reader)->Read(2, 4, buf);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 4u);
  EXPECT_EQ(std::string(buf, 4), "llo ");
  n = (*reader)->Read(*size - 2, 8, buf);  // short read at the end
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 3u);

  ASSERT_TRUE(fs->Rename(a, b).ok());
  EXPECT_FALSE(fs->Exists(a));
  EXPECT_TRUE(fs->Exists(b));
  ASSERT_TRUE(fs->SyncDir(dir).ok());
  ASSERT_TRUE(fs->CreateDir(JoinPath(dir, "sub")).ok());
  ASSERT_TRUE(fs->CreateDir(JoinPath(dir, "sub")).ok());  // already exists: fine
  auto names = fs->ListDir(dir);
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(names->size(), 2u);
  ASSERT_TRUE(fs->RemoveDir(JoinPath(dir, "sub")).ok());
  ASSERT_TRUE(fs->Remove(b).ok());
  RemoveTree(fs, dir);
}

TEST(PosixFileSystemTest, MapForReadSeesTheWholeFile) {
  FileSystem* fs = FileSystem::Default();
  FaultInjectionFileSystem faulty(fs);  // forwards mapping to the file system it wraps
  std::string dir = MakeTempDir();
  std::string bytes;
  for (int i = 0; i < 300000; ++i) bytes += static_cast<char>(i * 31 + 7);  // > one page
  for (const std::string& content : {std::string(), std::string("x"), bytes}) {
    SCOPED_TRACE(content.size());
    std::string path = JoinPath(dir, "m.bin");
    ASSERT_TRUE(WriteStringToFile(fs, path, content, false).ok());
    for (FileSystem* through : {fs, static_cast<FileSystem*>(&faulty)}) {
      auto mapped = through->MapForRead(path);
      ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
      ASSERT_TRUE(fs->Remove(path).ok());
      EXPECT_EQ((*mapped)->data(), content);  // the mapping outlives the name
      ASSERT_TRUE(WriteStringToFile(fs, path, content, false).ok());
    }
  }
  auto missing = fs->MapForRead(JoinPath(dir, "missing.bin"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kIoError);
  EXPECT_NE(missing.status().message().find("missing.bin"), std::string::npos);
  RemoveTree(fs, dir);
}

// MapRegion: the file's bytes at an offset, copy-on-write (writes never reach the file), then
// zeros up to the capacity; the POSIX mapping (page-aligned offsets) and the copying fallback
// (other offsets, other file systems) agree, and a region past the end of the file is refused
// instead of mapped (touching it would raise SIGBUS).
TEST(PosixFileSystemTest, MapRegionIsTheFileCopyOnWriteThenZeros) {
  FileSystem* fs = FileSystem::Default();
  FaultInjectionFileSystem faulty(fs);
  std::string dir = MakeTempDir();
  std::string bytes;
  // Larger than MemoryRegion::kSmallRegion (smaller regions are heap copies; below).
  for (int i = 0; i < 80 * 4096 + 100; ++i) bytes += static_cast<char>(i * 31 + 7);
  std::string path = JoinPath(dir, "r.bin");
  ASSERT_TRUE(WriteStringToFile(fs, path, bytes, false).ok());
  for (FileSystem* through : {fs, static_cast<FileSystem*>(&faulty)}) {
    for (uint64_t offset : {uint64_t{0}, uint64_t{4096}, uint64_t{4097}}) {
      SCOPED_TRACE(offset);
      const uint64_t length = bytes.size() - offset - 50;
      auto region = through->MapRegion(path, offset, length, length + 3 * 4096);
      ASSERT_TRUE(region.ok()) << region.status().ToString();
      char* data = (*region)->data();
      EXPECT_EQ((*region)->size(), length + 3 * 4096);
      EXPECT_EQ(std::string(data, length), bytes.substr(offset, length));
      EXPECT_EQ(std::string(data + length + 4096, 4096), std::string(4096, '\0'));
      data[0] = 'X';
      data[length + 10] = 'Y';
      auto again = ReadFileToString(fs, path);
      ASSERT_TRUE(again.ok());
      EXPECT_EQ(*again, bytes);  // private: the file is unchanged
    }
    auto past = through->MapRegion(path, 4096, bytes.size(), bytes.size());
    ASSERT_FALSE(past.ok());
    EXPECT_EQ(past.status().code(), ErrorCode::kIoError);
    EXPECT_NE(past.status().message().find("r.bin"), std::string::npos);
  }
  auto small = fs->MapRegion(path, 4096, 100, 200);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(std::string((*small)->data(), 100), bytes.substr(4096, 100));
  EXPECT_EQ(std::string((*small)->data() + 100, 100), std::string(100, '\0'));
  for (uint64_t size : {uint64_t{100}, uint64_t{1} << 20}) {
    auto zeros = MemoryRegion::Anonymous(size);
    ASSERT_TRUE(zeros.ok());
    EXPECT_EQ(std::string((*zeros)->data(), size), std::string(size, '\0'));
  }
  RemoveTree(fs, dir);
}

TEST(PosixFileSystemTest, FilledPagesAreZeroWritableAndHugePageAligned) {
  // Below half a huge page a block is plain pages; from there on it starts on a 2 MiB boundary
  // and is mapped in whole huge pages (the advice itself is the kernel's to take or not).
  for (uint64_t size : {uint64_t{4096}, (uint64_t{1} << 20) - 1, (uint64_t{1} << 20) + 5,
                        (uint64_t{4} << 20) + 12345, uint64_t{64} << 20}) {
    SCOPED_TRACE(size);
    void* block = AllocateFilledPages(size);
    ASSERT_NE(block, nullptr);
#ifdef __linux__
    if (size >= (uint64_t{1} << 20)) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % (uintptr_t{2} << 20), 0u);
    }
#endif
    auto* bytes = static_cast<unsigned char*>(block);
    for (uint64_t i = 0; i < size; i += 4096) ASSERT_EQ(bytes[i], 0);
    EXPECT_EQ(bytes[size - 1], 0);
    std::memset(block, 0xAB, size);  // every byte writable, the last one included
    EXPECT_EQ(bytes[size - 1], 0xAB);
    FreeFilledPages(block, size);
  }
  EXPECT_EQ(AllocateFilledPages(0), nullptr);
  FreeFilledPages(nullptr, 0);
  auto region = MemoryRegion::Anonymous(uint64_t{8} << 20, MemoryRegion::Use::kFilled);
  ASSERT_TRUE(region.ok());
  EXPECT_EQ((*region)->size(), uint64_t{8} << 20);
  EXPECT_EQ((*region)->data()[(uint64_t{8} << 20) - 1], 0);
}

TEST(PosixFileSystemTest, FreedScratchBlocksServeTheNextBlockOfTheirSize) {
  ReleaseScratchPages();
  EXPECT_EQ(KeptScratchBytes(), 0u);
  const uint64_t mib = uint64_t{1} << 20;
  const uint64_t size = 3 * mib + 100;
  void* block = AllocateScratchPages(size);
  ASSERT_NE(block, nullptr);
  std::memset(block, 0x5A, size);
  FreeScratchPages(block, size);
#ifdef __linux__
  EXPECT_EQ(KeptScratchBytes(), 4 * mib);  // whole huge pages
#endif
  // A block of another length is new; one of the same mapped length is the kept block, its
  // bytes writable (what they hold is unspecified).
  void* other = AllocateScratchPages(8 * mib);
  ASSERT_NE(other, nullptr);
  EXPECT_NE(other, block);
  void* again = AllocateScratchPages(size + 1000);
  EXPECT_EQ(again, block);
  EXPECT_EQ(KeptScratchBytes(), 0u);
  std::memset(again, 0x11, size + 1000);
  FreeScratchPages(again, size + 1000);
  FreeScratchPages(other, 8 * mib);
  // What is kept is bounded: of kKeptScratchBytes / 2 MiB + 8 blocks freed, the oldest are
  // unmapped, and the last ones freed come back.
  const uint64_t two = 2 * mib;
  const size_t bound = kKeptScratchBytes / two;
  std::vector<void*> blocks;
  for (size_t i = 0; i < bound + 8; ++i) {
    blocks.push_back(AllocateScratchPages(two));
    ASSERT_NE(blocks.back(), nullptr);
    static_cast<char*>(blocks.back())[two - 1] = 1;
  }
  for (void* b : blocks) FreeScratchPages(b, two);
  EXPECT_EQ(KeptScratchBytes(), kKeptScratchBytes);
  // A block over half the bound is unmapped when freed, never kept.
  void* large = AllocateScratchPages(kKeptScratchBytes);
  ASSERT_NE(large, nullptr);
  FreeScratchPages(large, kKeptScratchBytes);
  EXPECT_EQ(KeptScratchBytes(), kKeptScratchBytes);
  // (An address unmapped may come back from a new mapping: only the kept ones are counted.)
  std::set<void*> kept(blocks.end() - static_cast<std::ptrdiff_t>(bound), blocks.end());
  size_t reused = 0;
  blocks.clear();
  for (size_t i = 0; i < bound + 8; ++i) {
    blocks.push_back(AllocateScratchPages(two));
    reused += kept.count(blocks.back());
  }
  EXPECT_EQ(reused, bound);
  EXPECT_EQ(KeptScratchBytes(), 0u);
  for (void* b : blocks) FreeScratchPages(b, two);
  EXPECT_EQ(KeptScratchBytes(), kKeptScratchBytes);
  ReleaseScratchPages();
  EXPECT_EQ(KeptScratchBytes(), 0u);
  EXPECT_EQ(AllocateScratchPages(0), nullptr);
  FreeScratchPages(nullptr, 0);
}

TEST(PosixFileSystemTest, ErrorsNamePathAndErrno) {
  FileSystem* fs = FileSystem::Default();
  auto file = fs->OpenForRead("/nonexistent_dir_graphdb/x");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), ErrorCode::kIoError);
  EXPECT_EQ(file.status().message(), "open /nonexistent_dir_graphdb/x: No such file or directory");
  Status s = fs->Remove("/nonexistent_dir_graphdb/x");
  EXPECT_EQ(s.code(), ErrorCode::kIoError);
  EXPECT_NE(s.message().find("/nonexistent_dir_graphdb/x"), std::string::npos);
  EXPECT_FALSE(fs->ListDir("/nonexistent_dir_graphdb").ok());
  EXPECT_FALSE(fs->FileSize("/nonexistent_dir_graphdb/x").ok());
}

TEST(FaultInjectionFileSystemTest, FailsNthWriteAndSync) {
  FaultInjectionFileSystem fs(FileSystem::Default());
  std::string dir = MakeTempDir();
  std::string path = JoinPath(dir, "f");
  fs.FailNthWrite(2, ENOSPC);
  auto file = fs.OpenForWrite(path);
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE((*file)->Append("a").ok());
  Status s = (*file)->Append("b");
  EXPECT_EQ(s.code(), ErrorCode::kIoError);
  EXPECT_NE(s.message().find("No space left on device"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(path), std::string::npos);
  EXPECT_TRUE((*file)->Append("c").ok());  // not sticky

  fs.FailNthSync(1, EIO);
  s = (*file)->Sync();
  EXPECT_EQ(s.code(), ErrorCode::kIoError);
  EXPECT_NE(s.message().find("Input/output error"), std::string::npos);
  EXPECT_TRUE((*file)->Sync().ok());
  EXPECT_EQ(fs.injected_faults(), 2);

  fs.FailNthWrite(1, ENOSPC, /*sticky=*/true);
  EXPECT_FALSE((*file)->Append("d").ok());
  EXPECT_FALSE((*file)->Append("e").ok());
  fs.Reset();
  EXPECT_TRUE((*file)->Append("f").ok());
  ASSERT_TRUE((*file)->Close().ok());
  auto data = ReadFileToString(&fs, path);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(*data, "acf");

  fs.FailNthRename(1);
  EXPECT_FALSE(fs.Rename(path, path + ".2").ok());
  EXPECT_TRUE(fs.Rename(path, path + ".2").ok());
  fs.FailNthSync(1);
  EXPECT_FALSE(fs.SyncDir(dir).ok());
  RemoveTree(&fs, dir);
}

}  // namespace
}  // namespace graphdb::env
