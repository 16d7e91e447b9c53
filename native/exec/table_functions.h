// The rows of the CALL table functions (cypher/binder/table_functions.h names them and their
// columns), read from the catalog and the storage the statement sees.
//
// Thread-safety: runs inside one statement, under its database lock.
#pragma once

#include <memory>
#include <vector>

#include "cypher/binder/table_functions.h"
#include "exec/exec_context.h"
#include "exec/graph_store.h"

namespace graphdb::exec {

// One vector per output row, one value per column of `fn`. `settings` and `warnings`: the
// connection's (ExecContext); clear_warnings() empties `warnings`.
std::vector<std::vector<Value>> TableFunctionRows(const binder::BoundTableFunction& fn,
                                                  GraphStore& store,
                                                  const binder::SessionSettings* settings,
                                                  WarningLog* warnings);

// ---- Table functions of a module above exec (native/algo) ----

// What a connection keeps for an extension's functions between statements (projected graphs):
// created by the extension (NewState), owned by the session, reached through
// ExecContext::extension_state.
class TableFunctionState {
 public:
  virtual ~TableFunctionState() = default;
};

// The rows of one call, produced as they are asked for.
class TableFunctionRowSource {
 public:
  virtual ~TableFunctionRowSource() = default;
  // The next row (one value per column of the function) into *row; false when there is none.
  virtual bool Next(std::vector<Value>* row) = 0;
};

// Rows computed up front, handed out in order.
class MaterializedRows final : public TableFunctionRowSource {
 public:
  explicit MaterializedRows(std::vector<std::vector<Value>> rows) : rows_(std::move(rows)) {}
  bool Next(std::vector<Value>* row) override {
    if (next_ >= rows_.size()) return false;
    *row = std::move(rows_[next_++]);
    return true;
  }

 private:
  std::vector<std::vector<Value>> rows_;
  size_t next_ = 0;
};

class TableFunctionExtension {
 public:
  virtual ~TableFunctionExtension() = default;
  // Runs a call its binding bound (fn.extension) over the statement's snapshot; nullptr for a
  // call of another module's function.
  virtual std::unique_ptr<TableFunctionRowSource> Open(const binder::BoundTableFunction& fn,
                                                       GraphStore& store,
                                                       ExecContext& ctx) const = 0;
  // A new connection's state, or nullptr when the module keeps none. One module keeps
  // connection state (native/algo's projected graphs, ExecContext::extension_state); others
  // that read it depend on that module.
  virtual std::unique_ptr<TableFunctionState> NewState() const { return nullptr; }
};

// Makes `extension` (which must live as long as the process) one of those that run bound
// extension calls. Several modules register theirs; registering one again does nothing.
void RegisterTableFunctionExtension(const TableFunctionExtension* extension);
// Opens a bound extension call with the first registered extension that runs it; throws
// NOT_SUPPORTED when none does.
std::unique_ptr<TableFunctionRowSource> OpenExtensionCall(const binder::BoundTableFunction& fn,
                                                          GraphStore& store, ExecContext& ctx);
// A new connection's extension state (the first registered extension's that keeps one), or
// nullptr.
std::unique_ptr<TableFunctionState> NewConnectionState();

}  // namespace graphdb::exec
