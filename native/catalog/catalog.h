// Catalog: the schema of a database: node tables, rel tables and their properties.
//
// Table names and property names are case-insensitive for lookup (ASCII folding) and kept as
// written. Table ids follow Kùzu's numbering so that internal ids print the same way
// (`_ID: 3:0`):
//   - a node table takes one id;
//   - a rel table takes one id for itself plus one per FROM/TO pair; with a single pair the
//     pair's storage id is the table id itself (tinysnb: person 0, organisation 1, movies 2,
//     knows 3, studyAt 5, ...); with k > 1 pairs the pairs take the next k ids and the table
//     the one after them (after person 0, B 1, C 2: pairs 3 and 4, the table 5);
//   - ids are never reused: DROP TABLE leaves a hole, ALTER TABLE ... ADD FROM a TO b takes
//     the next free id.
// Errors carry Kùzu's message text including its prefix ("Binder exception: Table X does not
// exist."), with ErrorCode kQueryBinding (or kQueryRuntime where Kùzu reports a runtime
// exception).
//
// Serialize()/Deserialize() give a versioned, CRC32C-checksummed byte form; a damaged input
// yields ErrorCode::kCorruption.
//
// Thread-safety: a Catalog is a plain value (copyable). Const methods may run concurrently;
// mutations need exclusive access. The transaction layer can copy a catalog to get a snapshot.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/result.h"
#include "common/status.h"
#include "types/logical_type.h"

namespace graphdb::catalog {

using TableId = uint64_t;
using PropertyId = uint32_t;

inline constexpr TableId kInvalidTableId = ~0ULL;

enum class TableKind : uint8_t { kNode = 0, kRel = 1 };

enum class RelMultiplicity : uint8_t { kManyMany = 0, kManyOne = 1, kOneMany = 2, kOneOne = 3 };

// Which adjacency directions the rel table promises (Kùzu's `storage_direction`). Storage keeps
// both directions either way; the setting is recorded for the binder.
enum class RelStorageDirection : uint8_t { kBoth = 0, kFwd = 1, kBwd = 2 };

// "MANY_MANY", "MANY_ONE", ...
const char* RelMultiplicityName(RelMultiplicity m);
// Parses a multiplicity keyword case-insensitively ("many_one" -> kManyOne).
std::optional<RelMultiplicity> ParseRelMultiplicity(std::string_view text);
// True when a source vertex may have at most one outgoing edge (MANY_ONE, ONE_ONE).
bool IsSingleForward(RelMultiplicity m);
// True when a destination vertex may have at most one incoming edge (ONE_MANY, ONE_ONE).
bool IsSingleBackward(RelMultiplicity m);

struct PropertyDefinition {
  std::string name;
  LogicalType type;
  // The DEFAULT expression exactly as written ("5 + 5"), evaluated by the binder; nullopt when
  // the column defaults to NULL (or, for SERIAL, to the next sequence value).
  std::optional<std::string> default_expr;
  // Stable within its table; assigned by the catalog, never reused after DROP.
  PropertyId id = 0;
};

struct NodeTableSchema {
  TableId id = kInvalidTableId;
  std::string name;
  std::vector<PropertyDefinition> properties;  // declaration order = column order in storage
  uint32_t primary_key = 0;                    // index into `properties`
  PropertyId next_property_id = 0;
  std::string comment;

  const PropertyDefinition& primary_key_property() const { return properties[primary_key]; }
  // Index into `properties` of a case-insensitive name, or nullopt.
  std::optional<size_t> PropertyIndex(std::string_view name) const;
};

// One FROM/TO pair of a rel table. `id` is the table id of the edges stored for this pair.
struct RelTablePair {
  TableId id = kInvalidTableId;
  TableId src_table = kInvalidTableId;
  TableId dst_table = kInvalidTableId;
};

struct RelTableSchema {
  TableId id = kInvalidTableId;
  std::string name;
  std::vector<RelTablePair> pairs;
  RelMultiplicity multiplicity = RelMultiplicity::kManyMany;
  RelStorageDirection storage_direction = RelStorageDirection::kBoth;
  std::vector<PropertyDefinition> properties;  // Kùzu's _ID is implicit; ids start at 1
  PropertyId next_property_id = 1;
  std::string comment;

  std::optional<size_t> PropertyIndex(std::string_view name) const;
  // The pair with these endpoint tables, or nullptr.
  const RelTablePair* FindPair(TableId src, TableId dst) const;
  const RelTablePair* FindPairById(TableId pair_id) const;
};

// A request to create a node table. `primary_key` names one of `properties`.
struct NodeTableDefinition {
  std::string name;
  std::vector<PropertyDefinition> properties;  // ids are ignored and assigned by the catalog
  std::string primary_key;
  bool if_not_exists = false;
};

// A request to create a rel table; `from_to` lists node table names.
struct RelTableDefinition {
  std::string name;
  std::vector<std::pair<std::string, std::string>> from_to;
  std::vector<PropertyDefinition> properties;
  RelMultiplicity multiplicity = RelMultiplicity::kManyMany;
  RelStorageDirection storage_direction = RelStorageDirection::kBoth;
  bool if_not_exists = false;
};

// CREATE SEQUENCE's options, resolved: the caller fills in the defaults (for a positive
// increment MINVALUE 1, MAXVALUE INT64 max, START = MINVALUE; for a negative one MINVALUE
// INT64 min, MAXVALUE -1, START = MAXVALUE). The catalog checks MINVALUE <= START <= MAXVALUE.
struct SequenceDefinition {
  std::string name;
  int64_t start_value = 1;
  int64_t increment = 1;
  int64_t min_value = 1;
  int64_t max_value = INT64_MAX;
  bool cycle = false;
  bool if_not_exists = false;
};

// The counter of a sequence. nextval() runs in read statements too, so the counter has its own
// lock; copies of the catalog share it, and, as in PostgreSQL, a rollback does not give values
// back. It also tells whether it advanced since its state last went into a WAL record, so a
// statement that only called nextval() still makes the values it handed out durable.
class SequenceCounter {
 public:
  struct State {
    bool used = false;    // nextval() has been called
    int64_t current = 0;  // the value nextval() returned last
  };
  State Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return state_;
  }
  void Set(State state) {
    std::lock_guard<std::mutex> lock(mu_);
    state_ = state;
  }
  // Applies `advance` to the state under the lock.
  template <typename F>
  auto Update(F&& advance) {
    std::lock_guard<std::mutex> lock(mu_);
    ++changes_;
    return advance(state_);
  }
  // The state, for a WAL record: the counter counts as logged up to here.
  State GetForLog() const {
    std::lock_guard<std::mutex> lock(mu_);
    logged_ = changes_;
    return state_;
  }
  // Whether Update ran since the last GetForLog.
  bool Unlogged() const {
    std::lock_guard<std::mutex> lock(mu_);
    return logged_ != changes_;
  }

 private:
  mutable std::mutex mu_;
  State state_;
  uint64_t changes_ = 0;         // Update calls
  mutable uint64_t logged_ = 0;  // changes_ at the last GetForLog
};

// nextval() calls made on the calling thread so far (any sequence, any database): a statement
// compares it before and after it runs to know whether it handed out sequence values.
uint64_t SequenceDrawsOnThisThread();

struct SequenceSchema {
  SequenceDefinition options;  // if_not_exists unused
  std::shared_ptr<SequenceCounter> counter = std::make_shared<SequenceCounter>();

  // nextval(): START first, then each value `increment` further; past MAXVALUE (MINVALUE for a
  // negative increment) it wraps to the other bound with CYCLE, else fails with Kùzu's
  // "Catalog exception: nextval: reached maximum value of sequence "s" 10".
  Result<int64_t> NextValue() const;
  // currval(): the value nextval() returned last; fails before the first nextval().
  Result<int64_t> CurrentValue() const;
};

// CREATE MACRO name(a, b := 3) AS body: kept as source text (the binder parses the body and
// the defaults when a statement calls the macro). The name is kept upper-cased, as Kùzu shows
// it.
struct MacroDefinition {
  std::string name;
  std::vector<std::string> parameters;                        // without defaults, in order
  std::vector<std::pair<std::string, std::string>> defaults;  // name, default expression text
  std::string body;                                           // expression text
};

// A secondary index (CALL CREATE_FTS_INDEX / CREATE_VECTOR_INDEX) of a node table: its
// definition. Its contents are derived from the table's rows (exec/secondary_index.h).
struct IndexDefinition {
  std::string name;                    // as written; unique per table, case-insensitively
  std::string kind;                    // "FTS", "HNSW": SHOW_INDEXES's index_type
  TableId table = kInvalidTableId;     // a node table
  std::vector<PropertyId> properties;  // the indexed properties, in the order given
  // The kind's parameters, resolved (defaults filled in), as text: {"stemmer", "porter"},
  // {"metric", "l2"} ... The kind parses them.
  std::vector<std::pair<std::string, std::string>> options;
};

// What a DDL call did: the table it concerns, whether anything changed (false for IF [NOT]
// EXISTS no-ops), and Kùzu's one-line result message ("Table person has been created.").
struct DdlOutcome {
  TableId table_id = kInvalidTableId;
  bool changed = false;
  std::string message;
};

class Catalog {
 public:
  Catalog() = default;

  // ---- DDL ----
  Result<DdlOutcome> CreateNodeTable(NodeTableDefinition def);
  Result<DdlOutcome> CreateRelTable(RelTableDefinition def);
  // Refuses to drop a node table that a rel table still references.
  Result<DdlOutcome> DropTable(std::string_view name, bool if_exists = false);
  Result<DdlOutcome> RenameTable(std::string_view name, std::string new_name);
  // Appends a property (its id is assigned here).
  Result<DdlOutcome> AddProperty(std::string_view table, PropertyDefinition property,
                                 bool if_not_exists = false);
  // The primary key cannot be dropped.
  Result<DdlOutcome> DropProperty(std::string_view table, std::string_view property,
                                  bool if_exists = false);
  Result<DdlOutcome> RenameProperty(std::string_view table, std::string_view property,
                                    std::string new_name);
  // ALTER TABLE rel ADD [IF NOT EXISTS] FROM a TO b: the new pair takes the next table id.
  Result<DdlOutcome> AddRelPair(std::string_view rel_table, std::string_view from,
                                std::string_view to, bool if_not_exists = false);
  Result<DdlOutcome> DropRelPair(std::string_view rel_table, std::string_view from,
                                 std::string_view to, bool if_exists = false);
  Status SetComment(std::string_view table, std::string comment);
  // Sequences have their own names: a sequence may share its name with a table.
  Result<DdlOutcome> CreateSequence(SequenceDefinition def);
  Result<DdlOutcome> DropSequence(std::string_view name, bool if_exists = false);
  // CREATE TYPE name AS type: an alias, resolved when a statement names it (a column keeps the
  // type it stands for, as in Kùzu). Type names have their own namespace; a built-in type's
  // name still means the built-in type.
  Result<DdlOutcome> CreateType(std::string name, LogicalType type);
  // Macros share no names with one another (case-insensitively).
  Result<DdlOutcome> CreateMacro(MacroDefinition def);
  // DROP MACRO: Kùzu's "Macro x does not exist." (the name as written) when there is none.
  // Macros that call it stay, and fail to bind until one of that name exists again.
  Result<DdlOutcome> DropMacro(std::string_view name, bool if_exists = false);
  // Index names are per table (case-insensitively): Kùzu's "Index X already exists in table
  // T." when taken. The table must be a node table; the properties must be its own. A table
  // with indexes cannot be dropped, nor can an indexed property (Kùzu's errors).
  Result<DdlOutcome> CreateIndex(IndexDefinition def);
  Result<DdlOutcome> DropIndex(TableId table, std::string_view name);

  // ---- Lookup ----
  bool Contains(std::string_view name) const { return FindId(name).has_value(); }
  std::optional<TableId> FindId(std::string_view name) const;
  std::optional<TableKind> KindOf(TableId id) const;
  // nullptr when missing or of the other kind. Pointers stay valid until the next mutation.
  const NodeTableSchema* GetNodeTable(std::string_view name) const;
  const NodeTableSchema* GetNodeTable(TableId id) const;
  const RelTableSchema* GetRelTable(std::string_view name) const;
  const RelTableSchema* GetRelTable(TableId id) const;
  // The rel table owning a pair id (a single-pair rel table owns its own id).
  const RelTableSchema* GetRelTableByPairId(TableId pair_id) const;
  // Name of a node or rel table, or "" if unknown.
  std::string TableName(TableId id) const;
  // All tables in id order.
  std::vector<const NodeTableSchema*> NodeTables() const;
  std::vector<const RelTableSchema*> RelTables() const;
  // Kùzu's older name for one FROM/TO pair of a rel table, `<rel>_<from>_<to>` (its rel groups
  // had a child table per pair; `COPY knows_person_person FROM ...` still copies into that
  // pair): the rel table, with the pair's tables in *src and *dst, or nullptr when no pair has
  // that name (case-insensitively).
  const RelTableSchema* FindRelPairByLegacyName(std::string_view name, TableId* src,
                                                TableId* dst) const;
  // Rel tables with at least one pair touching the node table.
  std::vector<const RelTableSchema*> RelTablesReferencing(TableId node_table) const;
  // Whether a sequence advanced since its state last went into a WAL record.
  bool HasUnloggedSequences() const;
  // A sequence by case-insensitive name, or nullptr; all sequences in name order.
  const SequenceSchema* GetSequence(std::string_view name) const;
  std::vector<const SequenceSchema*> Sequences() const;
  // A CREATE TYPE alias by case-insensitive name, or nullptr; all of them in name order.
  const LogicalType* GetUserType(std::string_view name) const;
  std::vector<std::pair<std::string, LogicalType>> UserTypes() const;
  // Parses a type name as ParseLogicalType does, with this catalog's CREATE TYPE aliases.
  std::optional<LogicalType> ParseType(std::string_view text, std::string* error) const;
  // A macro by case-insensitive name, or nullptr; all of them in name order.
  const MacroDefinition* GetMacro(std::string_view name) const;
  std::vector<const MacroDefinition*> Macros() const;
  // An index of `table` by case-insensitive name, or nullptr; all indexes in creation order;
  // the indexes of one table, in creation order.
  const IndexDefinition* GetIndex(TableId table, std::string_view name) const;
  std::vector<const IndexDefinition*> Indexes() const;
  std::vector<const IndexDefinition*> IndexesOn(TableId table) const;

  TableId next_table_id() const { return next_table_id_; }
  // Identifies the schema's state, so callers can cache derived data (query plans): every
  // successful change sets a new version, and versions are never reused within the process,
  // not even by another Catalog (each new or deserialized catalog starts with a fresh one).
  // Copies share their version, as they share their content: a catalog restored from a copy
  // (a rollback) is at the version its content had.
  uint64_t version() const { return version_; }
  // Gives the catalog a version no catalog had before: after it was put back to an earlier
  // state (a rolled-back transaction's schema changes), plans compiled meanwhile must not match.
  void RenewVersion() { version_ = NewVersion(); }

  // ---- Persistence ----
  std::string Serialize() const;
  static Result<Catalog> Deserialize(std::string_view bytes);

  bool operator==(const Catalog& other) const;

 private:
  Status CheckNewName(std::string_view name, bool* exists) const;
  Result<TableId> ResolveNodeTable(std::string_view name) const;
  // A FROM/TO pair named in ALTER TABLE ... ADD/DROP FROM a TO b: the rel table it belongs to
  // and its two node tables, resolved (errors name what does not exist or is of another kind).
  struct PairRef {
    TableId rel_table;
    RelTableSchema* schema;
    TableId src, dst;
    std::string text;  // "Src->Dst", as the messages name the pair
  };
  Result<PairRef> ResolvePair(std::string_view rel_table, std::string_view from,
                              std::string_view to);
  void Index(TableId id, std::string_view name);
  void Unindex(std::string_view name);
  std::vector<PropertyDefinition>* MutableProperties(TableId id);
  PropertyId* MutableNextPropertyId(TableId id);

  std::map<TableId, NodeTableSchema> node_tables_;
  std::map<TableId, RelTableSchema> rel_tables_;
  std::unordered_map<std::string, TableId> by_name_;  // lower-cased name -> id
  std::unordered_map<TableId, TableId> pair_owner_;   // pair id -> rel table id
  std::map<std::string, SequenceSchema> sequences_;   // lower-cased name -> sequence
  // lower-cased name -> (name as written, the type it stands for)
  std::map<std::string, std::pair<std::string, LogicalType>> user_types_;
  std::map<std::string, MacroDefinition> macros_;  // lower-cased name -> macro
  std::vector<IndexDefinition> indexes_;           // in creation order
  TableId next_table_id_ = 0;
  uint64_t version_ = NewVersion();

  // The next unused version number (process-wide, thread-safe).
  static uint64_t NewVersion();
};

// ASCII lower-casing used for case-insensitive names.
std::string FoldName(std::string_view name);
bool NamesEqual(std::string_view a, std::string_view b);

// Whether a type may be a primary key: integers (and SERIAL), INT128, FLOAT, DOUBLE, STRING,
// BLOB, UUID, DATE and the TIMESTAMP types.
bool IsValidPrimaryKeyType(const LogicalType& type);

}  // namespace graphdb::catalog
