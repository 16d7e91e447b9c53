#include "storage/table_file.h"

#include <algorithm>
#include <cstring>

#include "common/assert.h"
#include "env/crc32c.h"

namespace graphdb::storage {

namespace {

Status Corrupt(const std::string& path, const std::string& why) {
  return Status(ErrorCode::kCorruption, "corruption in " + path + ": " + why);
}

const char* KindName(FileKind kind) {
  switch (kind) {
    case FileKind::kCatalog: return "catalog";
    case FileKind::kNodeTable: return "node table";
    case FileKind::kRelTable: return "rel table";
    case FileKind::kNodeSegment: return "node table segment";
    case FileKind::kRelSegment: return "rel table segment";
  }
  return "unknown";
}

}  // namespace

TableFileWriter::TableFileWriter(std::string path, std::unique_ptr<env::WritableFile> file)
    : path_(std::move(path)), file_(std::move(file)) {}

Result<std::unique_ptr<TableFileWriter>> TableFileWriter::Create(env::FileSystem* fs,
                                                                 std::string path, FileKind kind,
                                                                 uint32_t version) {
  GRAPHDB_ASSERT(version >= kFirstMappedFormatVersion && version <= kFileFormatVersion);
  auto file = fs->OpenForWrite(path);
  if (!file.ok()) return file.status();
  std::unique_ptr<TableFileWriter> w(new TableFileWriter(std::move(path), std::move(*file)));
  w->set_format_version(version);
  char header[kFileHeaderSize] = {};
  std::memcpy(header, kFileMagic, 8);
  std::memcpy(header + 8, &version, 4);
  header[12] = static_cast<char>(kind);
  w->Write(std::string_view(header, sizeof header), /*checked=*/true);
  return w;
}

void TableFileWriter::Write(std::string_view bytes, bool checked) {
  if (checked) crc_ = env::crc32c::Extend(crc_, bytes.data(), bytes.size());
  file_size_ += bytes.size();
  if (status_.ok()) status_ = file_->Append(bytes);
}

void TableFileWriter::PadTo(uint64_t alignment) {
  static const char kZeros[4096] = {};
  while (file_size_ % alignment != 0) {
    const uint64_t n = std::min<uint64_t>(alignment - file_size_ % alignment, sizeof kZeros);
    // The zeros after the header count in the file's CRC, those after a section in its own.
    if (in_section_) {
      SectionEntry& s = sections_.back();
      s.crc = env::crc32c::Extend(s.crc, kZeros, n);
    }
    Write(std::string_view(kZeros, n), /*checked=*/!in_section_);
  }
}

void TableFileWriter::BeginSection() {
  GRAPHDB_ASSERT(!in_section_);
  PadTo(kSectionAlignment);
  sections_.push_back(SectionEntry{file_size_, 0, 0});
  in_section_ = true;
}

void TableFileWriter::Append(const void* data, size_t n) {
  GRAPHDB_ASSERT(in_section_);
  SectionEntry& s = sections_.back();
  s.crc = env::crc32c::Extend(s.crc, static_cast<const char*>(data), n);
  s.length += n;
  Write(std::string_view(static_cast<const char*>(data), n), /*checked=*/false);
}

uint32_t TableFileWriter::EndSection() {
  GRAPHDB_ASSERT(in_section_);
  // Zeros up to the next page: a mapped section's last page holds nothing of another's.
  PadTo(kSectionAlignment);
  in_section_ = false;
  return static_cast<uint32_t>(sections_.size() - 1);
}

Status TableFileWriter::Finish(bool sync) {
  GRAPHDB_ASSERT(!in_section_);
  catalog::BinaryWriter meta;
  const uint64_t descriptor_offset = file_size_;
  const std::string& descriptor = descriptor_.buffer();
  meta.PutRaw(descriptor.data(), descriptor.size());
  for (const SectionEntry& s : sections_) {
    meta.PutU64(s.offset);
    meta.PutU64(s.length);
    meta.PutU32(s.crc);
  }
  meta.PutU64(descriptor_offset);
  meta.PutU64(descriptor.size());
  meta.PutU32(static_cast<uint32_t>(sections_.size()));
  Write(meta.buffer(), /*checked=*/true);
  char footer[kFileFooterSize];
  uint64_t len = file_size_ - kFileHeaderSize;
  std::memcpy(footer, &len, 8);
  std::memcpy(footer + 8, &crc_, 4);
  std::memcpy(footer + 12, kFooterMagic, 8);
  Write(std::string_view(footer, sizeof footer), /*checked=*/false);
  if (status_.ok() && sync) status_ = file_->Sync();
  Status close = file_->Close();
  if (status_.ok()) status_ = close;
  return status_;
}

namespace {

// Reads the section table of a version 3 file and checks the CRC of its metadata.
Status ReadSections(const std::string& path, TableFileContents* contents) {
  const std::string_view b = contents->bytes;
  const uint64_t end = b.size() - kFileFooterSize;  // where the trailer ends
  constexpr uint64_t kTrailer = 8 + 8 + 4;
  constexpr uint64_t kEntry = 8 + 8 + 4;
  if (end < kFileHeaderSize + kTrailer) return Corrupt(path, "file is truncated");
  uint64_t descriptor_offset;
  uint64_t descriptor_length;
  uint32_t count;
  std::memcpy(&descriptor_offset, b.data() + end - kTrailer, 8);
  std::memcpy(&descriptor_length, b.data() + end - kTrailer + 8, 8);
  std::memcpy(&count, b.data() + end - kTrailer + 16, 4);
  const uint64_t table_bytes = static_cast<uint64_t>(count) * kEntry;
  if (table_bytes > end - kFileHeaderSize - kTrailer) return Corrupt(path, "bad section table");
  const uint64_t table_offset = end - kTrailer - table_bytes;
  if (descriptor_offset < kFileHeaderSize || descriptor_offset > table_offset ||
      descriptor_length != table_offset - descriptor_offset) {
    return Corrupt(path, "bad descriptor bounds");
  }
  // The header and the zeros up to the first section (or the descriptor), then descriptor,
  // section table and trailer. The section table is read before it is checked: only its
  // first offset, bounded by the descriptor's.
  uint64_t first = descriptor_offset;
  if (count > 0) std::memcpy(&first, b.data() + table_offset, 8);
  if (first < kFileHeaderSize || first > descriptor_offset)
    return Corrupt(path, "bad section table");
  uint32_t crc = env::crc32c::Value(b.data(), first);
  crc = env::crc32c::Extend(crc, b.data() + descriptor_offset, end - descriptor_offset);
  if (crc != contents->crc) return Corrupt(path, "checksum mismatch");
  contents->descriptor = b.substr(descriptor_offset, descriptor_length);
  uint64_t previous_end = kFileHeaderSize;
  for (uint32_t i = 0; i < count; ++i) {
    TableFileContents::Section s;
    const char* p = b.data() + table_offset + i * kEntry;
    std::memcpy(&s.offset, p, 8);
    std::memcpy(&s.length, p + 8, 8);
    std::memcpy(&s.crc, p + 16, 4);
    // In order, aligned, apart, and before the descriptor: every byte a section names is in
    // the file, so touching a mapped page never runs past its end.
    if (s.offset % kSectionAlignment != 0 || s.offset < previous_end ||
        s.offset > descriptor_offset || s.length > descriptor_offset - s.offset) {
      return Corrupt(path, "section " + std::to_string(i) + " lies outside the file");
    }
    // The zeros after the section, which its CRC covers, end where the next part starts.
    previous_end =
        (s.offset + s.length + kSectionAlignment - 1) / kSectionAlignment * kSectionAlignment;
    if (previous_end > descriptor_offset) {
      return Corrupt(path, "section " + std::to_string(i) + " lies outside the file");
    }
    contents->sections.push_back(s);
  }
  if (count > 0 && previous_end != descriptor_offset) return Corrupt(path, "bad section table");
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<env::MemoryRegion>> TableFileContents::MapSection(uint64_t i,
                                                                         uint64_t capacity) const {
  const Section& s = sections[i];
  GRAPHDB_ASSERT(capacity >= s.length);
  if (s.length == 0 || capacity < env::MemoryRegion::kSmallRegion) {
    // Small: copied from the file's view (a heap region), which the checks just read.
    auto region = env::MemoryRegion::Anonymous(capacity);
    if (region.ok() && s.length > 0)
      std::memcpy((*region)->data(), bytes.data() + s.offset, s.length);
    return region;
  }
  return fs->MapRegion(path, s.offset, s.length, capacity);
}

Status TableFileContents::VerifySections() const {
  for (size_t i = 0; i < sections.size(); ++i) {
    const Section& s = sections[i];
    const uint64_t padded =
        (s.length + kSectionAlignment - 1) / kSectionAlignment * kSectionAlignment;
    if (env::crc32c::Value(bytes.data() + s.offset, padded) != s.crc) {
      return Corrupt(path, "checksum mismatch in section " + std::to_string(i));
    }
  }
  return Status::OK();
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
  contents.fs = fs;
  contents.path = path;
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
  uint32_t version;
  std::memcpy(&version, b.data() + 8, 4);
  if (version < kOldestFileFormatVersion || version > kFileFormatVersion) {
    return Corrupt(path, "unsupported format version " + std::to_string(version));
  }
  contents.crc = crc;
  contents.version = version;
  if (version >= kFirstMappedFormatVersion) {
    Status s = ReadSections(path, &contents);
    if (!s.ok()) return s;
  } else if (env::crc32c::Value(b.data(), b.size() - kFileFooterSize) != crc) {
    return Corrupt(path, "checksum mismatch");
  }
  if (static_cast<uint8_t>(b[12]) != static_cast<uint8_t>(kind)) {
    return Corrupt(path, std::string("expected a ") + KindName(kind) + " file");
  }
  return contents;
}

std::string EncodeManifest(const Manifest& manifest) {
  catalog::BinaryWriter w;
  // Each version holds the fields of the ones before it.
  const bool live_logs = manifest.previous_logs_live;
  const bool segments =
      live_logs || std::any_of(manifest.files.begin(), manifest.files.end(),
                               [](const ManifestEntry& e) { return !e.segments.empty(); });
  const bool constants =
      segments || std::any_of(manifest.files.begin(), manifest.files.end(),
                              [](const ManifestEntry& e) { return !e.constants.empty(); });
  w.PutRaw(kManifestMagic, 8);
  w.PutU32(live_logs   ? kManifestVersionWithLiveLogs
           : segments  ? kManifestVersion
           : constants ? kManifestVersionWithConstants
                       : kManifestVersionWithoutConstants);
  w.PutU64(manifest.sequence);
  w.PutU64(manifest.last_commit_ts);
  if (live_logs) w.PutU8(1);
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
    if (segments) {
      w.PutVarint(f.segments.size());
      for (const auto& g : f.segments) {
        w.PutString(g.name);
        w.PutVarint(g.size);
        w.PutU32(g.crc);
        w.PutVarint(g.rows);
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
  if (version < 1 || version > kManifestVersionWithLiveLogs) {
    return Corrupt(path, "unsupported manifest version " + std::to_string(version));
  }
  if (version >= 2 && !r.GetU64(&m.last_commit_ts)) return Corrupt(path, "manifest is truncated");
  if (version >= kManifestVersionWithLiveLogs) {
    uint8_t live;
    if (!r.GetU8(&live)) return Corrupt(path, "manifest is truncated");
    if (live > 1 || m.sequence == 0) return Corrupt(path, "bad manifest: previous logs flag");
    m.previous_logs_live = live == 1;
  }
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
    uint64_t segments = 0;
    if (version >= 4 && (!r.GetVarint(&segments) || segments > r.remaining())) {
      return Corrupt(path, "manifest is truncated");
    }
    if (segments > 0 && kind == static_cast<uint8_t>(FileKind::kCatalog)) {
      return Corrupt(path, "bad manifest entry: segments on the catalog");
    }
    for (uint64_t k = 0; k < segments; ++k) {
      SegmentRef g;
      if (!r.GetString(&g.name) || !r.GetVarint(&g.size) || !r.GetU32(&g.crc) ||
          !r.GetVarint(&g.rows)) {
        return Corrupt(path, "manifest is truncated");
      }
      if (g.name.empty() || g.name.find('/') != std::string::npos) {
        return Corrupt(path, "bad manifest entry: segment name");
      }
      e.segments.push_back(std::move(g));
    }
    e.kind = static_cast<FileKind>(kind);
    m.files.push_back(std::move(e));
  }
  if (!r.done()) return Corrupt(path, "trailing bytes in manifest");
  return m;
}

}  // namespace graphdb::storage
