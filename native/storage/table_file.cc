#include "storage/table_file.h"

#include <algorithm>
#include <cstring>

#include "env/crc32c.h"

namespace graphdb::storage {

namespace {

Status Corrupt(const std::string& path, const std::string& why) {
  return Status(ErrorCode::kCorruption, "corruption in " + path + ": " + why);
}

const char* KindName(FileKind kind) {
  switch (kind) {
    case FileKind::kCatalog:
      return "catalog";
    case FileKind::kNodeTable:
      return "node table";
    case FileKind::kRelTable:
      return "rel table";
  }
  return "unknown";
}

}  // namespace

TableFileWriter::TableFileWriter(std::string path, std::unique_ptr<env::WritableFile> file)
    : path_(std::move(path)),
      file_(std::move(file)),
      writer_([this](std::string_view bytes) { Write(bytes); }) {}

Result<std::unique_ptr<TableFileWriter>> TableFileWriter::Create(env::FileSystem* fs,
                                                                 std::string path, FileKind kind) {
  auto file = fs->OpenForWrite(path);
  if (!file.ok()) return file.status();
  std::unique_ptr<TableFileWriter> w(new TableFileWriter(std::move(path), std::move(*file)));
  char header[kFileHeaderSize] = {};
  std::memcpy(header, kFileMagic, 8);
  uint32_t version = kFileFormatVersion;
  std::memcpy(header + 8, &version, 4);
  header[12] = static_cast<char>(kind);
  w->Write(std::string_view(header, sizeof header));
  w->payload_size_ = 0;
  return w;
}

void TableFileWriter::Write(std::string_view bytes) {
  crc_ = env::crc32c::Extend(crc_, bytes.data(), bytes.size());
  file_size_ += bytes.size();
  payload_size_ += bytes.size();
  if (status_.ok()) status_ = file_->Append(bytes);
}

Status TableFileWriter::Finish() {
  writer_.Flush();
  char footer[kFileFooterSize];
  uint64_t len = payload_size_;
  std::memcpy(footer, &len, 8);
  std::memcpy(footer + 8, &crc_, 4);
  std::memcpy(footer + 12, kFooterMagic, 8);
  file_size_ += sizeof footer;
  if (status_.ok()) status_ = file_->Append(std::string_view(footer, sizeof footer));
  if (status_.ok()) status_ = file_->Sync();
  Status close = file_->Close();
  if (status_.ok()) status_ = close;
  return status_;
}

Result<TableFileContents> ReadTableFile(env::FileSystem* fs, const std::string& path,
                                        FileKind kind) {
  auto file = fs->MapForRead(path);
  if (!file.ok()) {
    if (!fs->Exists(path)) return Corrupt(path, "file is missing");
    return file.status();
  }
  TableFileContents contents;
  contents.file = std::move(*file);
  contents.bytes = contents.file->data();
  const std::string_view b = contents.bytes;
  if (b.size() < kFileHeaderSize + kFileFooterSize) return Corrupt(path, "file is truncated");
  if (std::memcmp(b.data(), kFileMagic, 8) != 0) return Corrupt(path, "bad file magic");
  const char* footer = b.data() + b.size() - kFileFooterSize;
  if (std::memcmp(footer + 12, kFooterMagic, 8) != 0) {
    return Corrupt(path, "bad footer (file truncated or overwritten)");
  }
  uint64_t len;
  uint32_t crc;
  std::memcpy(&len, footer, 8);
  std::memcpy(&crc, footer + 8, 4);
  if (len != b.size() - kFileHeaderSize - kFileFooterSize) {
    return Corrupt(path, "length mismatch (file truncated or extended)");
  }
  if (env::crc32c::Value(b.data(), b.size() - kFileFooterSize) != crc) {
    return Corrupt(path, "checksum mismatch");
  }
  uint32_t version;
  std::memcpy(&version, b.data() + 8, 4);
  if (version < kOldestFileFormatVersion || version > kFileFormatVersion) {
    return Corrupt(path, "unsupported format version " + std::to_string(version));
  }
  if (static_cast<uint8_t>(b[12]) != static_cast<uint8_t>(kind)) {
    return Corrupt(path, std::string("expected a ") + KindName(kind) + " file");
  }
  contents.crc = crc;
  contents.version = version;
  return contents;
}

std::string EncodeManifest(const Manifest& manifest) {
  catalog::BinaryWriter w;
  const bool constants = std::any_of(manifest.files.begin(), manifest.files.end(),
                                     [](const ManifestEntry& e) { return !e.constants.empty(); });
  w.PutRaw(kManifestMagic, 8);
  w.PutU32(constants ? kManifestVersion : kManifestVersionWithoutConstants);
  w.PutU64(manifest.sequence);
  w.PutU64(manifest.last_commit_ts);
  w.PutVarint(manifest.files.size());
  for (const auto& f : manifest.files) {
    w.PutU8(static_cast<uint8_t>(f.kind));
    w.PutVarint(f.table_id);
    w.PutString(f.name);
    w.PutVarint(f.size);
    w.PutU32(f.crc);
    if (constants) {
      w.PutVarint(f.constants.size());
      for (const auto& c : f.constants) {
        w.PutString(c.type);
        w.PutString(c.value);
      }
    }
  }
  std::string bytes = w.Release();
  uint32_t crc = env::crc32c::Value(bytes);
  bytes.append(reinterpret_cast<const char*>(&crc), 4);
  return bytes;
}

Result<Manifest> DecodeManifest(std::string_view bytes, const std::string& path) {
  if (bytes.size() < 8 + 4 + 8 + 1 + 4) return Corrupt(path, "manifest is truncated");
  if (std::memcmp(bytes.data(), kManifestMagic, 8) != 0) return Corrupt(path, "bad manifest magic");
  uint32_t crc;
  std::memcpy(&crc, bytes.data() + bytes.size() - 4, 4);
  std::string_view body = bytes.substr(0, bytes.size() - 4);
  if (env::crc32c::Value(body) != crc) return Corrupt(path, "manifest checksum mismatch");
  catalog::BinaryReader r(body.substr(8));
  uint32_t version;
  Manifest m;
  uint64_t n;
  if (!r.GetU32(&version) || !r.GetU64(&m.sequence)) return Corrupt(path, "manifest is truncated");
  if (version < 1 || version > kManifestVersion) {
    return Corrupt(path, "unsupported manifest version " + std::to_string(version));
  }
  if (version >= 2 && !r.GetU64(&m.last_commit_ts)) return Corrupt(path, "manifest is truncated");
  if (!r.GetVarint(&n) || n > r.remaining()) return Corrupt(path, "manifest is truncated");
  for (uint64_t i = 0; i < n; ++i) {
    ManifestEntry e;
    uint8_t kind;
    if (!r.GetU8(&kind) || !r.GetVarint(&e.table_id) || !r.GetString(&e.name) ||
        !r.GetVarint(&e.size) || !r.GetU32(&e.crc)) {
      return Corrupt(path, "manifest is truncated");
    }
    if (kind < 1 || kind > 3 || e.name.empty() || e.name.find('/') != std::string::npos) {
      return Corrupt(path, "bad manifest entry");
    }
    uint64_t constants = 0;
    if (version >= 3 && (!r.GetVarint(&constants) || constants > r.remaining())) {
      return Corrupt(path, "manifest is truncated");
    }
    if (constants > 0 && kind == static_cast<uint8_t>(FileKind::kCatalog)) {
      return Corrupt(path, "bad manifest entry: constant columns on the catalog");
    }
    for (uint64_t k = 0; k < constants; ++k) {
      ConstantColumn c;
      if (!r.GetString(&c.type) || !r.GetString(&c.value)) {
        return Corrupt(path, "manifest is truncated");
      }
      e.constants.push_back(std::move(c));
    }
    e.kind = static_cast<FileKind>(kind);
    m.files.push_back(std::move(e));
  }
  if (!r.done()) return Corrupt(path, "trailing bytes in manifest");
  return m;
}

}  // namespace graphdb::storage
