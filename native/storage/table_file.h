// The container format of every file in a database directory (catalog, node table, rel table,
// manifest), documented in docs/storage-format.md:
//
//   data file = header (16 bytes) | payload | footer (20 bytes)
//     header: magic "GDBFILE\0" | u32 format version | u8 kind | 3 zero bytes
//     footer: u64 payload length | u32 CRC32C | magic "GDBFEND\0"
//   version 1, 2: the payload is one byte stream; the CRC covers header + payload.
//   version 3 (written now): payload = sections | descriptor | section table | trailer, each
//     section starting at a multiple of 4096 bytes from the start of the file and padded with
//     zeros to the next one; a section holds one array exactly as tables keep it in memory,
//     so loading maps it (copy-on-write) instead of decoding it. The descriptor is the
//     table's small fields naming sections by index; the section table gives per section
//     u64 offset, u64 length, u32 CRC32C of its bytes and the zeros after them; the trailer
//     u64 descriptor offset, u64 descriptor length, u32 section count. The footer CRC covers
//     the header and the zeros up to the first section, the descriptor, section table and
//     trailer, and is checked at open; section CRCs are checked by StorageManager::Verify
//     (reading every page at open would undo the mapping). Every byte has a checksum.
//   manifest  = magic "GDBMANIF" | u32 version | u64 checkpoint sequence |
//               u64 last commit ts (version >= 2) | varint #files |
//               per file: u8 kind, varint table id, string name, varint size, u32 crc,
//               [version >= 3: varint #constant columns, each string type, string value]
//               [version 4: varint #segments, each string name, varint size, u32 crc,
//                varint rows] |
//               u32 CRC32C of everything before
// All integers are little-endian. Any mismatch (magic, version, kind, length, checksum) is
// reported as ErrorCode::kCorruption naming the file.
//
// Thread-safety: TableFileWriter is used by one thread; the free functions are reentrant.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/binary_codec.h"
#include "common/result.h"
#include "env/file_system.h"

namespace graphdb::storage {

inline constexpr char kFileMagic[8] = {'G', 'D', 'B', 'F', 'I', 'L', 'E', '\0'};
inline constexpr char kFooterMagic[8] = {'G', 'D', 'B', 'F', 'E', 'N', 'D', '\0'};
inline constexpr char kManifestMagic[8] = {'G', 'D', 'B', 'M', 'A', 'N', 'I', 'F'};
// Version 2 may store a rel table's adjacency entries as 32-bit pairs (docs/storage-format.md);
// version 3 lays tables out in sections that are mapped; version 4 packs adjacency (entries
// and offsets in the fewest bytes that hold them, implicit rel offsets) and the primary-key
// index (8-byte slots); versions 1 to 3 are still read.
inline constexpr uint32_t kFileFormatVersion = 4;
inline constexpr uint32_t kFirstMappedFormatVersion = 3;
inline constexpr uint32_t kFirstPackedFormatVersion = 4;
// Sections of a version 3 file start at multiples of this many bytes.
inline constexpr uint64_t kSectionAlignment = 4096;
inline constexpr uint32_t kOldestFileFormatVersion = 1;
// Version 2 added last_commit_ts; version 1 manifests are still read (as last_commit_ts 0).
// Version 3 added constant columns to table entries; it is written only when an entry has
// some (otherwise version 2), and versions 1-3 are read.
// Version 4 added append segments to table entries; it is written only when an entry has some.
// Version 5 added previous_logs_live; it is written only when that is set.
inline constexpr uint32_t kManifestVersionWithLiveLogs = 5;
inline constexpr uint32_t kManifestVersion = 4;
inline constexpr uint32_t kManifestVersionWithConstants = 3;
inline constexpr uint32_t kManifestVersionWithoutConstants = 2;
// No manifest is larger (an entry takes some 30 bytes: a million tables fit in 32 MiB); a larger
// MANIFEST is damaged and is not read into memory.
inline constexpr uint64_t kMaxManifestSize = 64ULL << 20;
inline constexpr size_t kFileHeaderSize = 16;
inline constexpr size_t kFileFooterSize = 20;
inline constexpr char kManifestName[] = "MANIFEST";
// Held locked (flock) by the process that has the database open.
inline constexpr char kLockName[] = "LOCK";
inline constexpr char kManifestTmpName[] = "MANIFEST.tmp";

// Segments (kinds 4 and 5) are named by a table's manifest entry, never by an entry of their own.
enum class FileKind : uint8_t {
  kCatalog = 1,
  kNodeTable = 2,
  kRelTable = 3,
  kNodeSegment = 4,
  kRelSegment = 5
};

// Where the version 3 form of a table goes: a small descriptor, and sections of raw bytes that
// the descriptor names by the index EndSection() returns (the first section is 0).
class TableSink {
 public:
  virtual ~TableSink() = default;
  // The format version whose encodings the table writes: kFileFormatVersion, or 3 (tests
  // write the older form to check that it still opens).
  uint32_t format_version() const { return format_version_; }
  void set_format_version(uint32_t version) { format_version_ = version; }
  virtual catalog::BinaryWriter& descriptor() = 0;
  virtual void BeginSection() = 0;
  virtual void Append(const void* data, size_t n) = 0;
  virtual uint32_t EndSection() = 0;
  uint32_t Section(const void* data, size_t n) {
    BeginSection();
    Append(data, n);
    return EndSection();
  }

 private:
  uint32_t format_version_ = kFileFormatVersion;
};

// The sections of a version 3 file being loaded.
class SectionSource {
 public:
  virtual ~SectionSource() = default;
  // The file's format version (3 or later): what the descriptor's encodings are.
  virtual uint32_t format_version() const = 0;
  virtual uint64_t num_sections() const = 0;
  virtual uint64_t section_length(uint64_t i) const = 0;
  // A region of `capacity` (>= the section's length) bytes that starts with section `i`
  // (env::FileSystem::MapRegion: mapped copy-on-write where it can be), the rest zero.
  virtual Result<std::unique_ptr<env::MemoryRegion>> MapSection(uint64_t i,
                                                                uint64_t capacity) const = 0;
};

// Streams one data file (format version 3). writer() is the descriptor, kept in memory until
// Finish; section bytes reach the file in the pieces Append gets.
class TableFileWriter final : public TableSink {
 public:
  // `version`: kFileFormatVersion, or kFirstMappedFormatVersion (tests of older files).
  static Result<std::unique_ptr<TableFileWriter>> Create(env::FileSystem* fs, std::string path,
                                                         FileKind kind,
                                                         uint32_t version = kFileFormatVersion);

  catalog::BinaryWriter& writer() { return descriptor_; }
  catalog::BinaryWriter& descriptor() override { return descriptor_; }
  void BeginSection() override;
  void Append(const void* data, size_t n) override;
  uint32_t EndSection() override;
  // Writes descriptor, section table, trailer and footer, fsyncs and closes. The first IO
  // error seen is returned.
  // `sync` false leaves the sync to the caller (a checkpoint that syncs its files later).
  Status Finish(bool sync = true);
  // Valid after Finish: total file size and the footer checksum.
  uint64_t file_size() const { return file_size_; }
  uint32_t crc() const { return crc_; }
  const std::string& path() const { return path_; }

 private:
  struct SectionEntry {
    uint64_t offset;
    uint64_t length;
    uint32_t crc;
  };
  TableFileWriter(std::string path, std::unique_ptr<env::WritableFile> file);
  // Bytes that the footer CRC covers (`checked`) or not (section bytes).
  void Write(std::string_view bytes, bool checked);
  void PadTo(uint64_t alignment);

  std::string path_;
  std::unique_ptr<env::WritableFile> file_;
  catalog::BinaryWriter descriptor_;
  std::vector<SectionEntry> sections_;
  bool in_section_ = false;
  Status status_;
  uint32_t crc_ = 0;
  uint64_t file_size_ = 0;
};

// A version 3 table's form in memory (tests, and StorageManager::CheckUnchangedTables):
// the descriptor and the sections' bytes.
class BufferTableSink final : public TableSink {
 public:
  catalog::BinaryWriter& descriptor() override { return descriptor_; }
  void BeginSection() override { sections_.emplace_back(); }
  void Append(const void* data, size_t n) override {
    sections_.back().append(static_cast<const char*>(data), n);
  }
  uint32_t EndSection() override { return static_cast<uint32_t>(sections_.size() - 1); }
  const std::vector<std::string>& sections() const { return sections_; }

 private:
  catalog::BinaryWriter descriptor_;
  std::vector<std::string> sections_;
};

// A verified data file, mapped (or read) whole (env::FileSystem::MapForRead): the whole of a
// version 1 or 2 file was checked; of a version 3 file header, descriptor, section table and
// the sections' bounds (their bytes are read only as the tables touch them).
struct TableFileContents : public SectionSource {
  struct Section {
    uint64_t offset;
    uint64_t length;
    uint32_t crc;
  };
  std::unique_ptr<env::MappedFile> file;
  std::string_view bytes;  // file->data()
  uint32_t crc = 0;
  uint32_t version = kFileFormatVersion;  // the header's format version
  env::FileSystem* fs = nullptr;
  std::string path;
  std::string_view descriptor;    // version 3
  std::vector<Section> sections;  // version 3
  // Version 1 and 2: the payload; version 3: the descriptor.
  std::string_view payload() const {
    if (version >= kFirstMappedFormatVersion) return descriptor;
    return bytes.substr(kFileHeaderSize, bytes.size() - kFileHeaderSize - kFileFooterSize);
  }
  uint32_t format_version() const override { return version; }
  uint64_t num_sections() const override { return sections.size(); }
  uint64_t section_length(uint64_t i) const override { return sections[i].length; }
  Result<std::unique_ptr<env::MemoryRegion>> MapSection(uint64_t i,
                                                        uint64_t capacity) const override;
  // Checks every section's CRC (reads every byte): kCorruption naming the first bad one.
  Status VerifySections() const;
};

// Reads a data file and checks magic, version, kind, length and checksum.
Result<TableFileContents> ReadTableFile(env::FileSystem* fs, const std::string& path,
                                        FileKind kind);

// A column that follows a table file's own columns without being in the file: every row of
// the file holds `value` (ALTER TABLE ... ADD of a constant DEFAULT, recorded instead of
// rewriting the table).
struct ConstantColumn {
  std::string type;   // the column's type (Kùzu spelling), checked against the catalog
  std::string value;  // the value: the column encoding of a one-row column
  bool operator==(const ConstantColumn&) const = default;
};

// An append segment of a table (docs/storage-format.md, "Segments"): the rows the table gained
// or changed since the files before it, applied on top of them at open.
struct SegmentRef {
  std::string name;  // file name inside the database directory
  uint64_t size = 0;
  uint32_t crc = 0;
  uint64_t rows = 0;  // rows (rels) it holds, new and changed: for the fold threshold
  bool operator==(const SegmentRef&) const = default;
};

struct ManifestEntry {
  FileKind kind;
  uint64_t table_id = 0;  // unused for the catalog
  std::string name;       // file name inside the database directory
  uint64_t size = 0;
  uint32_t crc = 0;
  // Node and rel table files only: columns after the file's, in order (manifest version 3).
  std::vector<ConstantColumn> constants;
  // Node and rel table files only: segments applied after the file, in order, before the
  // constant columns (manifest version 4).
  std::vector<SegmentRef> segments;
};

struct Manifest {
  uint64_t sequence = 0;
  // The commit timestamp of the last write-ahead-log record folded into this checkpoint:
  // recovery replays the records after it.
  uint64_t last_commit_ts = 0;
  // Whether recovery still reads the write-ahead logs of the previous checkpoint (sequence -
  // 1; manifest version 5): set by a checkpoint written beside writers, whose logs may hold
  // records after last_commit_ts (docs/wal-format.md, "Checkpoints beside writers").
  bool previous_logs_live = false;
  std::vector<ManifestEntry> files;
};

std::string EncodeManifest(const Manifest& manifest);
// `path` is only used in error messages.
Result<Manifest> DecodeManifest(std::string_view bytes, const std::string& path);

}  // namespace graphdb::storage
