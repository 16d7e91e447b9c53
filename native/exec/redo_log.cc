#include "exec/redo_log.h"

#include "catalog/binary_codec.h"
#include "exec/secondary_index.h"
#include "storage/value_codec.h"

namespace graphdb::exec {

namespace {

constexpr uint8_t kRedoVersion = 1;

// Operation tags of the payload. Zero is not a tag.
enum class RedoOp : uint8_t {
  kInsertNode = 1,  // table, offset, ncols, values
  kInsertRel = 2,   // pair, rel, src, dst, ncols, values
  kDeleteNode = 3,  // table, offset
  kDeleteRel = 4,   // pair, rel
  kSetNode = 5,     // table, offset, column, value
  kSetRel = 6,      // pair, rel, column, value
  kSequence = 7,    // name, used, current (no table or offset)
};

using Kind = UndoLog::Entry::Kind;

RedoOp OpFor(Kind kind) {
  switch (kind) {
    case Kind::kInsertNode: return RedoOp::kInsertNode;
    case Kind::kInsertRel: return RedoOp::kInsertRel;
    case Kind::kDeleteNode: return RedoOp::kDeleteNode;
    case Kind::kDeleteRel: return RedoOp::kDeleteRel;
    case Kind::kSetNode: return RedoOp::kSetNode;
    case Kind::kSetRel: break;
  }
  return RedoOp::kSetRel;
}

void PutValue(catalog::BinaryWriter& out, const Value& value, const LogicalType& type) {
  Status s = storage::EncodeValue(value, type, out);
  // The value came out of a column of this type, so it always encodes.
  if (!s.ok()) Throw(ErrorCode::kInternal, "cannot log a value: " + s.message());
}

void PutRow(catalog::BinaryWriter& out, const std::vector<const storage::Column*>& columns,
            uint64_t offset) {
  out.PutVarint(columns.size());
  for (const storage::Column* column : columns) PutValue(out, column->Get(offset), column->type());
}

template <typename Table>
std::vector<const storage::Column*> ColumnsOf(const Table& table) {
  std::vector<const storage::Column*> columns;
  for (size_t i = 0; i < table.NumColumns(); ++i) columns.push_back(&table.column(i));
  return columns;
}

Status Corrupt(size_t op_index, const std::string& what) {
  return Status(ErrorCode::kCorruption, "corrupt write-ahead log record: operation " +
                                            std::to_string(op_index) + ": " + what);
}

// Reads the values of one row for a table whose columns have `types`.
Status GetRow(catalog::BinaryReader& in, const std::vector<LogicalType>& types, size_t op,
              std::vector<Value>* values) {
  uint64_t n;
  if (!in.GetVarint(&n)) return Corrupt(op, "truncated");
  if (n != types.size()) {
    return Corrupt(op, "the row has " + std::to_string(n) + " values but the table has " +
                           std::to_string(types.size()) + " columns");
  }
  values->clear();
  for (const LogicalType& type : types) {
    auto v = storage::DecodeValue(in, type);
    if (!v.ok()) return Corrupt(op, v.status().message());
    values->push_back(std::move(v).value());
  }
  return Status::OK();
}

Status Check(const Status& s, size_t op) {
  return s.ok() ? s : Corrupt(op, "replay failed: " + s.message());
}

}  // namespace

std::string EncodeRedo(const UndoLog& log, TableProvider& tables, const catalog::Catalog& catalog) {
  if (log.empty() && !catalog.HasUnloggedSequences()) return {};
  std::vector<std::pair<std::string, catalog::SequenceCounter::State>> sequences;
  for (const catalog::SequenceSchema* sequence : catalog.Sequences()) {
    catalog::SequenceCounter::State state = sequence->counter->GetForLog();
    if (state.used) sequences.emplace_back(sequence->options.name, state);
  }
  catalog::BinaryWriter out;
  out.PutU8(kRedoVersion);
  out.PutVarint(log.entries().size() + sequences.size());
  for (const UndoLog::Entry& e : log.entries()) {
    out.PutU8(static_cast<uint8_t>(OpFor(e.kind)));
    out.PutVarint(e.table);
    out.PutVarint(e.offset);
    switch (e.kind) {
      case Kind::kInsertNode: {
        const storage::NodeTable& table = *tables.GetNodeTable(e.table);
        PutRow(out, ColumnsOf(table), e.offset);
        break;
      }
      case Kind::kInsertRel: {
        const storage::RelTable& table = *tables.GetRelTable(e.table);
        out.PutVarint(e.src);
        out.PutVarint(e.dst);
        PutRow(out, ColumnsOf(table), e.offset);
        break;
      }
      case Kind::kDeleteNode:
      case Kind::kDeleteRel: break;
      case Kind::kSetNode: {
        const storage::Column& column = tables.GetNodeTable(e.table)->column(e.column);
        out.PutVarint(e.column);
        PutValue(out, column.Get(e.offset), column.type());
        break;
      }
      case Kind::kSetRel: {
        const storage::Column& column = tables.GetRelTable(e.table)->column(e.column);
        out.PutVarint(e.column);
        PutValue(out, column.Get(e.offset), column.type());
        break;
      }
    }
  }
  for (const auto& [name, state] : sequences) {
    out.PutU8(static_cast<uint8_t>(RedoOp::kSequence));
    out.PutString(name);
    out.PutU8(state.used ? 1 : 0);
    out.PutSignedVarint(state.current);
  }
  return out.Release();
}

Status ApplyRedo(std::string_view payload, TableProvider& tables, const catalog::Catalog& catalog,
                 uint64_t ts, std::vector<ChangedRow>* changed) {
  catalog::BinaryReader in(payload);
  uint8_t version;
  uint64_t count;
  if (!in.GetU8(&version) || !in.GetVarint(&count)) return Corrupt(0, "truncated header");
  if (version != kRedoVersion) {
    return Corrupt(0, "unknown redo format version " + std::to_string(version));
  }
  std::vector<Value> row;
  for (uint64_t i = 0; i < count; ++i) {
    const size_t op = static_cast<size_t>(i) + 1;
    uint8_t tag;
    if (!in.GetU8(&tag)) return Corrupt(op, "truncated");
    if (tag == static_cast<uint8_t>(RedoOp::kSequence)) {
      std::string name;
      uint8_t used;
      int64_t current;
      if (!in.GetString(&name) || !in.GetU8(&used) || !in.GetSignedVarint(&current) || used > 1) {
        return Corrupt(op, "truncated sequence state");
      }
      const catalog::SequenceSchema* sequence = catalog.GetSequence(name);
      if (!sequence) return Corrupt(op, "sequence " + name + " does not exist");
      sequence->counter->Set({used == 1, current});
      continue;
    }
    uint64_t table_id, offset;
    if (!in.GetVarint(&table_id) || !in.GetVarint(&offset)) return Corrupt(op, "truncated");
    const auto kind = static_cast<RedoOp>(tag);
    const bool node =
        kind == RedoOp::kInsertNode || kind == RedoOp::kDeleteNode || kind == RedoOp::kSetNode;
    if (tag < 1 || tag > 7) return Corrupt(op, "unknown operation " + std::to_string(tag));
    storage::NodeTable* node_table = node ? tables.GetNodeTable(table_id) : nullptr;
    storage::RelTable* rel_table = node ? nullptr : tables.GetRelTable(table_id);
    if (node ? node_table == nullptr : rel_table == nullptr) {
      return Corrupt(op, std::string(node ? "node" : "rel") + " table " + std::to_string(table_id) +
                             " does not exist");
    }
    const uint64_t rows = node ? node_table->NumRows() : rel_table->NumRels();
    if (node && changed && kind != RedoOp::kSetNode)
      changed->push_back({static_cast<catalog::TableId>(table_id), offset, -1, ts});
    switch (kind) {
      case RedoOp::kInsertNode: {
        // Concurrent inserts commit in another order than they took offsets: an offset below
        // the table's end is a placeholder an earlier record left; one beyond it leaves
        // placeholders for later records (or for inserts that were rolled back).
        if (offset < rows && !node_table->IsPlaceholder(offset)) {
          return Corrupt(op, "node insert at offset " + std::to_string(offset) +
                                 ", which holds a row already");
        }
        Status s = GetRow(in, node_table->ColumnTypes(), op, &row);
        if (!s.ok()) return s;
        if (offset < rows) {
          s = node_table->FillPlaceholder(offset, row, ts);
          if (!s.ok()) return Check(s, op);
          break;
        }
        node_table->AppendPlaceholders(offset - rows);
        auto inserted = node_table->Insert(row, ts);
        if (!inserted.ok()) return Check(inserted.status(), op);
        break;
      }
      case RedoOp::kInsertRel: {
        uint64_t src, dst;
        if (!in.GetVarint(&src) || !in.GetVarint(&dst)) return Corrupt(op, "truncated");
        if (offset < rows && !rel_table->IsTombstone(offset)) {
          return Corrupt(
              op, "rel insert at offset " + std::to_string(offset) + ", which holds a rel already");
        }
        const storage::NodeTable* src_table = tables.GetNodeTable(rel_table->src_table());
        const storage::NodeTable* dst_table = tables.GetNodeTable(rel_table->dst_table());
        if (!src_table || !dst_table || src >= src_table->NumRows() ||
            dst >= dst_table->NumRows() || src_table->IsPlaceholder(src) ||
            dst_table->IsPlaceholder(dst)) {
          return Corrupt(op, "rel endpoint out of range");
        }
        std::vector<LogicalType> types;
        for (size_t c = 0; c < rel_table->NumColumns(); ++c) {
          types.push_back(rel_table->column(c).type());
        }
        Status s = GetRow(in, types, op, &row);
        if (!s.ok()) return s;
        if (offset < rows) {  // a hole an earlier record left (see kInsertNode)
          s = rel_table->FillTombstone(offset, src, dst, row, ts);
          if (!s.ok()) return Check(s, op);
          break;
        }
        // Offsets of rels rolled back, or committed later, are holes here.
        rel_table->AppendTombstones(offset - rows);
        auto inserted = rel_table->InsertEdge(src, dst, row, ts);
        if (!inserted.ok()) return Check(inserted.status(), op);
        break;
      }
      case RedoOp::kDeleteNode:
      case RedoOp::kDeleteRel: {
        if (offset >= rows) return Corrupt(op, "delete of a row that does not exist");
        Status s = node ? node_table->Delete(offset, ts) : rel_table->DeleteEdge(offset, ts);
        if (!s.ok()) return Check(s, op);
        break;
      }
      case RedoOp::kSetNode:
      case RedoOp::kSetRel: {
        uint64_t column;
        if (!in.GetVarint(&column)) return Corrupt(op, "truncated");
        const size_t columns = node ? node_table->NumColumns() : rel_table->NumColumns();
        if (offset >= rows || column >= columns) {
          return Corrupt(op, "update of a value that does not exist");
        }
        if (node && changed)
          changed->push_back(
              {static_cast<catalog::TableId>(table_id), offset, static_cast<int64_t>(column), ts});
        const LogicalType& type =
            node ? node_table->column(column).type() : rel_table->column(column).type();
        auto v = storage::DecodeValue(in, type);
        if (!v.ok()) return Corrupt(op, v.status().message());
        Status s = node ? node_table->Set(column, offset, *v) : rel_table->Set(column, offset, *v);
        if (!s.ok()) return Check(s, op);
        break;
      }
      case RedoOp::kSequence:  // handled before the table lookup
        break;
    }
  }
  if (!in.done()) return Corrupt(count, "trailing bytes after the last operation");
  return Status::OK();
}

}  // namespace graphdb::exec
