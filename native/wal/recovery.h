// ReadAllWals: the recovery half of the WAL. Reads the log of every slot in a database folder,
// repairs torn tails, and returns every record written after the last checkpoint, merged into
// commit-timestamp order for the transaction layer to replay.
//
// Rules (docs/wal-format.md, "Recovery"):
//   - every file named wal-<slot>.log is read; its header must name the same slot.
//   - a log whose header names an older checkpoint is ignored (already checkpointed), except
//     the previous checkpoint's after a checkpoint written beside writers (its records after
//     the checkpoint's last commit are read); one naming a newer checkpoint is CORRUPTION.
//   - a torn tail is cut off, with a warning: the file is rewritten to its last intact record
//     (copied to wal-<slot>.tmp, synced, renamed over the log, directory synced). Files are
//     only changed once every log has been read without error, and not at all when the
//     caller asks for no cuts (the database, which must open on a full disk).
//   - corruption before the end of any log fails the whole call with CORRUPTION (naming the
//     file and offset) and changes nothing on disk.
//   - records are ordered by commit timestamp, ties broken by slot id, then file order.
//
// Thread-safety: reentrant, but no WalWriter may be open on `dir` while it runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "env/file_system.h"
#include "wal/reader.h"

namespace graphdb::wal {

// A torn tail that recovery cut off.
struct WalTruncation {
  std::string path;
  uint64_t old_size = 0;
  uint64_t new_size = 0;  // the offset just past the last intact record
};

struct WalRecoveryResult {
  std::vector<WalRecord> records;     // in replay order
  std::vector<std::string> warnings;  // one per torn tail
  std::vector<WalTruncation> truncations;
  std::vector<std::string> stale_files;  // logs of older checkpoints, ignored
};

// REQUIRES: `checkpoint_seq` is the sequence of the database's last durable checkpoint.
// With `cut_torn_tails` false nothing is written: torn tails are reported (warnings) but left
// in place, and `truncations` stays empty; the caller must then not open a writer on those
// logs (WalWriter::Open refuses a torn tail) but replace or remove them.
Result<WalRecoveryResult> ReadAllWals(env::FileSystem* fs, const std::string& dir,
                                      uint64_t checkpoint_seq, bool cut_torn_tails = true);

// The same after a checkpoint written beside writers (MANIFEST's previous_logs_live,
// docs/wal-format.md "Checkpoints beside writers"): logs naming the previous checkpoint
// (checkpoint_seq - 1) are read too, and their records up to `folded_ts` (the checkpoint's
// last_commit_ts, which holds them) are skipped. REQUIRES: checkpoint_seq >= 1.
Result<WalRecoveryResult> ReadAllWalsWithPreviousLogs(env::FileSystem* fs, const std::string& dir,
                                                      uint64_t checkpoint_seq, uint64_t folded_ts,
                                                      bool cut_torn_tails = true);

// Shortens the log of `slot_id` at `path` to its first `new_size` bytes, atomically (copy to
// wal-<slot>.tmp, sync, rename, sync the directory): the FileSystem has no truncate call.
Status TruncateWalFile(env::FileSystem* fs, const std::string& dir, const std::string& path,
                       uint32_t slot_id, uint64_t new_size);

}  // namespace graphdb::wal
