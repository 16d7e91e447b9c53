#include "wal/recovery.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "wal/format.h"

namespace graphdb::wal {

namespace {

constexpr size_t kCopyChunk = 1 << 20;

Status CopyPrefix(env::FileSystem* fs, const std::string& from, const std::string& to,
                  uint64_t size) {
  auto in = fs->OpenForRead(from);
  if (!in.ok()) return in.status();
  auto out = fs->OpenForWrite(to);
  if (!out.ok()) return out.status();
  std::string chunk;
  for (uint64_t offset = 0; offset < size;) {
    chunk.resize(static_cast<size_t>(std::min<uint64_t>(kCopyChunk, size - offset)));
    auto n = (*in)->Read(offset, chunk.size(), chunk.data());
    if (!n.ok()) return n.status();
    if (*n != chunk.size()) {
      return Status(ErrorCode::kIoError, "read " + from + ": the file shrank while copying");
    }
    Status s = (*out)->Append(chunk);
    if (!s.ok()) return s;
    offset += *n;
  }
  Status s = (*out)->Sync();
  Status c = (*out)->Close();
  return s.ok() ? c : s;
}

}  // namespace

Status TruncateWalFile(env::FileSystem* fs, const std::string& dir, const std::string& path,
                       uint32_t slot_id, uint64_t new_size) {
  const std::string tmp = env::JoinPath(dir, WalTempFileName(slot_id));
  Status s = CopyPrefix(fs, path, tmp, new_size);
  if (s.ok()) s = fs->Rename(tmp, path);
  if (!s.ok()) {
    (void)fs->Remove(tmp);
    return s;
  }
  return fs->SyncDir(dir);
}

namespace {

// ReadAllWals; `previous_live`: the logs of checkpoint_seq - 1 are read too, without their
// records up to `folded_ts`.
Result<WalRecoveryResult> ReadLogs(env::FileSystem* fs, const std::string& dir,
                                   uint64_t checkpoint_seq, bool previous_live, uint64_t folded_ts,
                                   bool cut_torn_tails) {
  auto names = fs->ListDir(dir);
  if (!names.ok()) return names.status();
  std::vector<std::pair<uint32_t, std::string>> logs;
  for (const std::string& name : *names) {
    int64_t slot = ParseWalFileName(name);
    if (slot >= 0) logs.emplace_back(static_cast<uint32_t>(slot), env::JoinPath(dir, name));
  }
  std::sort(logs.begin(), logs.end());

  WalRecoveryResult result;
  struct PendingTruncation {
    uint32_t slot_id;
    WalTruncation truncation;
  };
  std::vector<PendingTruncation> pending;
  for (const auto& [slot_id, path] : logs) {
    auto reader = WalReader::Open(fs, path, checkpoint_seq);
    if (!reader.ok()) return reader.status();
    if ((*reader)->header().slot_id != slot_id) {
      return Status(ErrorCode::kCorruption, "WAL file " + path + " holds the log of slot " +
                                                std::to_string((*reader)->header().slot_id));
    }
    bool previous = false;
    if ((*reader)->stale()) {
      if (!previous_live || (*reader)->header().checkpoint_seq + 1 != checkpoint_seq) {
        result.stale_files.push_back(path);
        continue;
      }
      // A log of the previous checkpoint, still live: read it as a current one.
      reader = WalReader::Open(fs, path, checkpoint_seq - 1);
      if (!reader.ok()) return reader.status();
      previous = true;
    }
    while (true) {
      auto record = (*reader)->Next();
      if (!record.ok()) return record.status();
      if (!record->has_value()) break;
      if (previous && (*record)->commit_ts <= folded_ts) continue;  // in the checkpoint
      result.records.push_back(std::move(**record));
    }
    if ((*reader)->torn_tail()) {
      result.warnings.push_back((*reader)->warning());
      if (cut_torn_tails)
        pending.push_back({slot_id, {path, (*reader)->file_size(), (*reader)->valid_end()}});
    }
  }

  // Every log read cleanly (torn tails aside): now, and only now, repair the files.
  for (auto& [slot_id, truncation] : pending) {
    Status s = TruncateWalFile(fs, dir, truncation.path, slot_id, truncation.new_size);
    if (!s.ok()) return s;
    result.truncations.push_back(std::move(truncation));
  }

  std::sort(result.records.begin(), result.records.end(),
            [](const WalRecord& a, const WalRecord& b) {
              return std::tie(a.commit_ts, a.slot_id, a.offset) <
                     std::tie(b.commit_ts, b.slot_id, b.offset);
            });
  return result;
}

}  // namespace

Result<WalRecoveryResult> ReadAllWals(env::FileSystem* fs, const std::string& dir,
                                      uint64_t checkpoint_seq, bool cut_torn_tails) {
  return ReadLogs(fs, dir, checkpoint_seq, /*previous_live=*/false, 0, cut_torn_tails);
}

Result<WalRecoveryResult> ReadAllWalsWithPreviousLogs(env::FileSystem* fs, const std::string& dir,
                                                      uint64_t checkpoint_seq, uint64_t folded_ts,
                                                      bool cut_torn_tails) {
  return ReadLogs(fs, dir, checkpoint_seq, /*previous_live=*/checkpoint_seq >= 1, folded_ts,
                  cut_torn_tails);
}

}  // namespace graphdb::wal
