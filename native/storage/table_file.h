// The container format of every file in a database directory (catalog, node table, rel table,
// manifest), documented in docs/storage-format.md:
//
//   data file = header (16 bytes) | payload | footer (20 bytes)
//     header: magic "GDBFILE\0" | u32 format version | u8 kind | 3 zero bytes
//     footer: u64 payload length | u32 CRC32C of header + payload | magic "GDBFEND\0"
//   manifest  = magic "GDBMANIF" | u32 version | u64 checkpoint sequence |
//               u64 last commit ts (version >= 2) | varint #files |
//               per file: u8 kind, varint table id, string name, varint size, u32 crc,
//               [version 3: varint #constant columns, each string type, string value] |
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
// version 1 files are still read.
inline constexpr uint32_t kFileFormatVersion = 2;
inline constexpr uint32_t kOldestFileFormatVersion = 1;
// Version 2 added last_commit_ts; version 1 manifests are still read (as last_commit_ts 0).
// Version 3 added constant columns to table entries; it is written only when an entry has
// some (otherwise version 2), and versions 1-3 are read.
inline constexpr uint32_t kManifestVersion = 3;
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

enum class FileKind : uint8_t { kCatalog = 1, kNodeTable = 2, kRelTable = 3 };

// Streams one data file: payload bytes go through writer() and reach the file in 1 MiB pieces.
class TableFileWriter {
 public:
  static Result<std::unique_ptr<TableFileWriter>> Create(env::FileSystem* fs, std::string path,
                                                         FileKind kind);

  catalog::BinaryWriter& writer() { return writer_; }
  // Writes the footer, fsyncs and closes. The first IO error seen is returned.
  Status Finish();
  // Valid after Finish: total file size and the footer checksum.
  uint64_t file_size() const { return file_size_; }
  uint32_t crc() const { return crc_; }
  const std::string& path() const { return path_; }

 private:
  TableFileWriter(std::string path, std::unique_ptr<env::WritableFile> file);
  void Write(std::string_view bytes);

  std::string path_;
  std::unique_ptr<env::WritableFile> file_;
  catalog::BinaryWriter writer_;
  Status status_;
  uint32_t crc_ = 0;
  uint64_t file_size_ = 0;
  uint64_t payload_size_ = 0;
};

// A verified data file, mapped (or read) whole (env::FileSystem::MapForRead).
struct TableFileContents {
  std::unique_ptr<env::MappedFile> file;
  std::string_view bytes;  // file->data()
  uint32_t crc = 0;
  uint32_t version = kFileFormatVersion;  // the header's format version
  std::string_view payload() const {
    return bytes.substr(kFileHeaderSize, bytes.size() - kFileHeaderSize - kFileFooterSize);
  }
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

struct ManifestEntry {
  FileKind kind;
  uint64_t table_id = 0;  // unused for the catalog
  std::string name;       // file name inside the database directory
  uint64_t size = 0;
  uint32_t crc = 0;
  // Node and rel table files only: columns after the file's, in order (manifest version 3).
  std::vector<ConstantColumn> constants;
};

struct Manifest {
  uint64_t sequence = 0;
  // The commit timestamp of the last write-ahead-log record folded into this checkpoint:
  // recovery replays the records after it.
  uint64_t last_commit_ts = 0;
  std::vector<ManifestEntry> files;
};

std::string EncodeManifest(const Manifest& manifest);
// `path` is only used in error messages.
Result<Manifest> DecodeManifest(std::string_view bytes, const std::string& path);

}  // namespace graphdb::storage
