// Redo records: the committed effects of one transaction, as the payload of one write-ahead-log
// record (docs/wal-format.md, "Redo payload"). Built from the transaction's undo log at commit;
// replayed on top of the last checkpoint by recovery.
//
// A payload lists the writes in the order they happened. Every write names the row or edge it
// touched by its offset, and carries the values the row has at commit (so a row inserted and
// then updated by the same transaction replays to the same state). Replay on the state the
// log was written against reproduces the same offsets; any mismatch (a table missing, an
// offset out of place, a value of the wrong type) is reported as CORRUPTION, never applied
// half-way silently.
//
// Thread-safety: stateless functions; the caller holds the database lock that fits (exclusive
// for ApplyRedo, and for EncodeRedo so the rows cannot change under it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "common/status.h"
#include "exec/graph_store.h"

namespace graphdb::exec {

// The payload for the writes in `log` (empty when the log is empty and no sequence advanced
// since it was last logged: nothing to commit). The state of every sequence of `catalog` that
// has handed out values is appended too, so values handed out (in committed rows or returned
// to a client) are not handed out again after a crash; the sequences count as logged then.
std::string EncodeRedo(const UndoLog& log, TableProvider& tables, const catalog::Catalog& catalog);

// Applies a payload, stamping writes with `ts`. Stops at the first problem and returns it as
// CORRUPTION naming the operation; the writes applied before it stay (recovery then fails the
// whole open, so a half-applied record is never served). `changed` (when given) gets the node
// rows the payload inserted, deleted or set (for the secondary indexes to catch up).
struct ChangedRow;  // exec/secondary_index.h
Status ApplyRedo(std::string_view payload, TableProvider& tables, const catalog::Catalog& catalog,
                 uint64_t ts, std::vector<ChangedRow>* changed = nullptr);

}  // namespace graphdb::exec
