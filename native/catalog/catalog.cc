#include "catalog/catalog.h"

#include <algorithm>
#include <atomic>

#include "catalog/binary_codec.h"
#include "common/text.h"
#include "env/crc32c.h"

namespace graphdb::catalog {

namespace {

constexpr char kMagic[8] = {'G', 'D', 'B', 'C', 'A', 'T', 'L', 'G'};
// Version 2 appends the sequences, 3 the types and macros, 4 the indexes; older files still
// load.
constexpr uint32_t kFormatVersion = 4;

Status BindError(std::string message) {
  return Status(ErrorCode::kQueryBinding, "Binder exception: " + std::move(message));
}

Status NoSuchTable(std::string_view name) {
  return BindError("Table " + std::string(name) + " does not exist.");
}

// Checks that property names are unique (case-insensitively) and that none is `_id`, the
// internal id's name.
Status CheckDuplicateProperties(const std::vector<PropertyDefinition>& properties) {
  for (size_t i = 0; i < properties.size(); ++i) {
    if (NamesEqual(properties[i].name, "_id")) {
      return BindError(properties[i].name + " is a reserved property name.");
    }
    for (size_t j = 0; j < i; ++j) {
      if (NamesEqual(properties[i].name, properties[j].name)) {
        return BindError("Duplicated column name: " + properties[i].name +
                         ", column name must be unique.");
      }
    }
  }
  return Status::OK();
}

std::optional<size_t> FindProperty(const std::vector<PropertyDefinition>& properties,
                                   std::string_view name) {
  for (size_t i = 0; i < properties.size(); ++i) {
    if (NamesEqual(properties[i].name, name)) return i;
  }
  return std::nullopt;
}

bool HasSerial(const LogicalType& type) {
  if (type.id() == LogicalTypeId::kSerial) return true;
  if (type.id() == LogicalTypeId::kList || type.id() == LogicalTypeId::kArray) {
    return HasSerial(type.child());
  }
  if (type.id() == LogicalTypeId::kStruct || type.id() == LogicalTypeId::kUnion) {
    for (const auto& f : type.fields()) {
      if (HasSerial(*f.type)) return true;
    }
  }
  if (type.id() == LogicalTypeId::kMap)
    return HasSerial(type.map_key()) || HasSerial(type.map_value());
  return false;
}

void WriteProperties(BinaryWriter& w, const std::vector<PropertyDefinition>& properties) {
  w.PutVarint(properties.size());
  for (const auto& p : properties) {
    w.PutString(p.name);
    w.PutString(p.type.ToString());
    w.PutU8(p.default_expr.has_value() ? 1 : 0);
    if (p.default_expr) w.PutString(*p.default_expr);
    w.PutVarint(p.id);
  }
}

bool ReadProperties(BinaryReader& r, std::vector<PropertyDefinition>* properties,
                    std::string* error) {
  uint64_t n;
  if (!r.GetVarint(&n) || n > r.remaining()) return false;
  properties->resize(n);
  for (auto& p : *properties) {
    std::string type_text;
    uint8_t has_default;
    uint64_t id;
    if (!r.GetString(&p.name) || !r.GetString(&type_text) || !r.GetU8(&has_default)) return false;
    if (has_default > 1) return false;
    if (has_default) {
      std::string expr;
      if (!r.GetString(&expr)) return false;
      p.default_expr = std::move(expr);
    }
    if (!r.GetVarint(&id) || id > UINT32_MAX) return false;
    p.id = static_cast<PropertyId>(id);
    std::string type_error;
    auto type = ParseLogicalType(type_text, &type_error);
    if (!type) {
      *error = "bad type '" + type_text + "': " + type_error;
      return false;
    }
    p.type = std::move(*type);
  }
  return true;
}

}  // namespace

const char* RelMultiplicityName(RelMultiplicity m) {
  switch (m) {
    case RelMultiplicity::kManyMany: return "MANY_MANY";
    case RelMultiplicity::kManyOne: return "MANY_ONE";
    case RelMultiplicity::kOneMany: return "ONE_MANY";
    case RelMultiplicity::kOneOne: return "ONE_ONE";
  }
  return "MANY_MANY";
}

std::optional<RelMultiplicity> ParseRelMultiplicity(std::string_view text) {
  std::string folded = FoldName(text);
  if (folded == "many_many") return RelMultiplicity::kManyMany;
  if (folded == "many_one") return RelMultiplicity::kManyOne;
  if (folded == "one_many") return RelMultiplicity::kOneMany;
  if (folded == "one_one") return RelMultiplicity::kOneOne;
  return std::nullopt;
}

bool IsSingleForward(RelMultiplicity m) {
  return m == RelMultiplicity::kManyOne || m == RelMultiplicity::kOneOne;
}

bool IsSingleBackward(RelMultiplicity m) {
  return m == RelMultiplicity::kOneMany || m == RelMultiplicity::kOneOne;
}

std::string FoldName(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool NamesEqual(std::string_view a, std::string_view b) { return EqualsIgnoreAsciiCase(a, b); }

bool IsValidPrimaryKeyType(const LogicalType& type) {
  switch (type.id()) {
    case LogicalTypeId::kInt8:
    case LogicalTypeId::kInt16:
    case LogicalTypeId::kInt32:
    case LogicalTypeId::kInt64:
    case LogicalTypeId::kInt128:
    case LogicalTypeId::kUInt8:
    case LogicalTypeId::kUInt16:
    case LogicalTypeId::kUInt32:
    case LogicalTypeId::kUInt64:
    case LogicalTypeId::kFloat:
    case LogicalTypeId::kDouble:
    case LogicalTypeId::kString:
    case LogicalTypeId::kBlob:
    case LogicalTypeId::kUuid:
    case LogicalTypeId::kDate:
    case LogicalTypeId::kTimestamp:
    case LogicalTypeId::kTimestampTz:
    case LogicalTypeId::kTimestampNs:
    case LogicalTypeId::kTimestampMs:
    case LogicalTypeId::kTimestampSec:
    case LogicalTypeId::kSerial: return true;
    default: return false;
  }
}

std::optional<size_t> NodeTableSchema::PropertyIndex(std::string_view name) const {
  return FindProperty(properties, name);
}

std::optional<size_t> RelTableSchema::PropertyIndex(std::string_view name) const {
  return FindProperty(properties, name);
}

const RelTablePair* RelTableSchema::FindPair(TableId src, TableId dst) const {
  for (const auto& p : pairs) {
    if (p.src_table == src && p.dst_table == dst) return &p;
  }
  return nullptr;
}

const RelTablePair* RelTableSchema::FindPairById(TableId pair_id) const {
  for (const auto& p : pairs) {
    if (p.id == pair_id) return &p;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// DDL

Status Catalog::CheckNewName(std::string_view name, bool* exists) const {
  *exists = false;
  if (name.empty()) return BindError("Table name cannot be empty.");
  if (FindId(name)) *exists = true;
  return Status::OK();
}

Result<TableId> Catalog::ResolveNodeTable(std::string_view name) const {
  auto id = FindId(name);
  if (!id) return NoSuchTable(name);
  if (node_tables_.count(*id) == 0) {
    return BindError(std::string(name) + " is not a node table.");
  }
  return *id;
}

void Catalog::Index(TableId id, std::string_view name) { by_name_[FoldName(name)] = id; }

void Catalog::Unindex(std::string_view name) { by_name_.erase(FoldName(name)); }

Result<DdlOutcome> Catalog::CreateNodeTable(NodeTableDefinition def) {
  bool exists;
  Status s = CheckNewName(def.name, &exists);
  if (!s.ok()) return s;
  if (exists) {
    if (def.if_not_exists) {
      return DdlOutcome{*FindId(def.name), false, "Table " + def.name + " already exists."};
    }
    return BindError(def.name + " already exists in catalog.");
  }
  s = CheckDuplicateProperties(def.properties);
  if (!s.ok()) return s;
  if (def.primary_key.empty()) return BindError("Can not find primary key.");
  auto pk = FindProperty(def.properties, def.primary_key);
  if (!pk) {
    return BindError("Primary key " + def.primary_key +
                     " does not match any of the predefined node properties.");
  }
  const LogicalType& pk_type = def.properties[*pk].type;
  if (!IsValidPrimaryKeyType(pk_type)) {
    return BindError("Invalid primary key column type " + pk_type.ToString() +
                     ". Primary keys must be either STRING or a numeric type.");
  }
  NodeTableSchema schema;
  schema.id = next_table_id_++;
  schema.name = std::move(def.name);
  schema.properties = std::move(def.properties);
  for (auto& p : schema.properties) p.id = schema.next_property_id++;
  schema.primary_key = static_cast<uint32_t>(*pk);
  TableId id = schema.id;
  std::string message = "Table " + schema.name + " has been created.";
  Index(id, schema.name);
  node_tables_.emplace(id, std::move(schema));
  version_ = NewVersion();
  return DdlOutcome{id, true, std::move(message)};
}

Result<DdlOutcome> Catalog::CreateRelTable(RelTableDefinition def) {
  bool exists;
  Status s = CheckNewName(def.name, &exists);
  if (!s.ok()) return s;
  if (exists) {
    if (def.if_not_exists) {
      return DdlOutcome{*FindId(def.name), false, "Table " + def.name + " already exists."};
    }
    return BindError(def.name + " already exists in catalog.");
  }
  if (def.from_to.empty()) return BindError("Rel table " + def.name + " has no FROM/TO pair.");
  std::vector<std::pair<TableId, TableId>> endpoints;
  for (const auto& [from, to] : def.from_to) {
    auto src = ResolveNodeTable(from);
    if (!src.ok()) return src.status();
    auto dst = ResolveNodeTable(to);
    if (!dst.ok()) return dst.status();
    for (const auto& e : endpoints) {
      if (e.first == *src && e.second == *dst) {
        return BindError("Found duplicate FROM-TO " + node_tables_.at(*src).name + "-" +
                         node_tables_.at(*dst).name + " pairs.");
      }
    }
    endpoints.emplace_back(*src, *dst);
  }
  s = CheckDuplicateProperties(def.properties);
  if (!s.ok()) return s;
  for (const auto& p : def.properties) {
    // A SERIAL property numbers its rels (storage/rel_table.h); one inside another type does
    // not.
    if (p.type.id() != LogicalTypeId::kSerial && HasSerial(p.type)) {
      return BindError("Serial property in rel table is not supported.");
    }
  }
  RelTableSchema schema;
  // A single pair stores under the table's own id; k > 1 pairs take the next k ids and the
  // table the one after them (Kùzu's order).
  schema.id = endpoints.size() == 1 ? next_table_id_ : next_table_id_ + endpoints.size();
  schema.name = std::move(def.name);
  schema.multiplicity = def.multiplicity;
  schema.storage_direction = def.storage_direction;
  schema.properties = std::move(def.properties);
  for (auto& p : schema.properties) p.id = schema.next_property_id++;
  if (endpoints.size() == 1) {
    schema.pairs.push_back({schema.id, endpoints[0].first, endpoints[0].second});
    next_table_id_ += 2;
  } else {
    for (size_t i = 0; i < endpoints.size(); ++i) {
      schema.pairs.push_back({next_table_id_ + i, endpoints[i].first, endpoints[i].second});
    }
    next_table_id_ += 1 + endpoints.size();
  }
  TableId id = schema.id;
  for (const auto& p : schema.pairs) pair_owner_[p.id] = id;
  std::string message = "Table " + schema.name + " has been created.";
  Index(id, schema.name);
  rel_tables_.emplace(id, std::move(schema));
  version_ = NewVersion();
  return DdlOutcome{id, true, std::move(message)};
}

Result<DdlOutcome> Catalog::DropTable(std::string_view name, bool if_exists) {
  auto id = FindId(name);
  if (!id) {
    if (if_exists) {
      return DdlOutcome{kInvalidTableId, false, "Table " + std::string(name) + " does not exist."};
    }
    return NoSuchTable(name);
  }
  if (auto it = node_tables_.find(*id); it != node_tables_.end()) {
    auto refs = RelTablesReferencing(*id);
    if (!refs.empty()) {
      return BindError("Cannot delete node table " + it->second.name +
                       " because it is referenced by relationship table " + refs[0]->name + ".");
    }
    if (auto indexes = IndexesOn(*id); !indexes.empty()) {
      return BindError("Cannot delete node table " + it->second.name +
                       " because it is referenced by index " + indexes[0]->name + ".");
    }
    std::string message = "Table " + it->second.name + " has been dropped.";
    Unindex(it->second.name);
    node_tables_.erase(it);
    version_ = NewVersion();
    return DdlOutcome{*id, true, std::move(message)};
  }
  auto it = rel_tables_.find(*id);
  std::string message = "Table " + it->second.name + " has been dropped.";
  for (const auto& p : it->second.pairs) pair_owner_.erase(p.id);
  Unindex(it->second.name);
  rel_tables_.erase(it);
  version_ = NewVersion();
  return DdlOutcome{*id, true, std::move(message)};
}

Result<DdlOutcome> Catalog::RenameTable(std::string_view name, std::string new_name) {
  auto id = FindId(name);
  if (!id) return NoSuchTable(name);
  if (new_name.empty()) return BindError("Table name cannot be empty.");
  auto other = FindId(new_name);
  if (other && *other != *id) return BindError("Table " + new_name + " already exists.");
  std::string* stored = nullptr;
  if (auto it = node_tables_.find(*id); it != node_tables_.end()) {
    stored = &it->second.name;
  } else {
    stored = &rel_tables_.at(*id).name;
  }
  std::string message = "Table " + *stored + " has been renamed to " + new_name + ".";
  Unindex(*stored);
  *stored = std::move(new_name);
  Index(*id, *stored);
  version_ = NewVersion();
  return DdlOutcome{*id, true, std::move(message)};
}

std::vector<PropertyDefinition>* Catalog::MutableProperties(TableId id) {
  if (auto it = node_tables_.find(id); it != node_tables_.end()) return &it->second.properties;
  if (auto it = rel_tables_.find(id); it != rel_tables_.end()) return &it->second.properties;
  return nullptr;
}

PropertyId* Catalog::MutableNextPropertyId(TableId id) {
  if (auto it = node_tables_.find(id); it != node_tables_.end()) {
    return &it->second.next_property_id;
  }
  if (auto it = rel_tables_.find(id); it != rel_tables_.end()) {
    return &it->second.next_property_id;
  }
  return nullptr;
}

Result<DdlOutcome> Catalog::AddProperty(std::string_view table, PropertyDefinition property,
                                        bool if_not_exists) {
  auto id = FindId(table);
  if (!id) return NoSuchTable(table);
  std::string table_name = TableName(*id);
  auto* properties = MutableProperties(*id);
  if (FindProperty(*properties, property.name)) {
    std::string text = table_name + " table already has property " + property.name + ".";
    if (if_not_exists) return DdlOutcome{*id, false, std::move(text)};
    return Status(ErrorCode::kQueryRuntime, "Runtime exception: " + text);
  }
  if (rel_tables_.count(*id) && property.type.id() != LogicalTypeId::kSerial &&
      HasSerial(property.type)) {
    return BindError("Serial property in rel table is not supported.");
  }
  property.id = (*MutableNextPropertyId(*id))++;
  std::string message =
      "Property " + property.name + " has been added to table " + table_name + ".";
  properties->push_back(std::move(property));
  version_ = NewVersion();
  return DdlOutcome{*id, true, std::move(message)};
}

Result<DdlOutcome> Catalog::DropProperty(std::string_view table, std::string_view property,
                                         bool if_exists) {
  auto id = FindId(table);
  if (!id) return NoSuchTable(table);
  std::string table_name = TableName(*id);
  auto* properties = MutableProperties(*id);
  auto index = FindProperty(*properties, property);
  if (!index) {
    std::string text = table_name + " table does not have property " + std::string(property) + ".";
    if (if_exists) return DdlOutcome{*id, false, std::move(text)};
    return BindError(std::move(text));
  }
  if (auto it = node_tables_.find(*id); it != node_tables_.end()) {
    NodeTableSchema& schema = it->second;
    if (*index == schema.primary_key) {
      return BindError("Cannot drop property " + schema.properties[*index].name + " in table " +
                       schema.name + " because it is used as primary key.");
    }
    const PropertyId dropped = schema.properties[*index].id;
    for (const IndexDefinition* def : IndexesOn(*id)) {
      if (std::find(def->properties.begin(), def->properties.end(), dropped) !=
          def->properties.end()) {
        return BindError("Cannot drop property " + std::string(property) + " in table " +
                         schema.name +
                         " because it is used in one or more indexes. Please remove the "
                         "associated indexes before attempting to drop this property.");
      }
    }
    if (*index < schema.primary_key) --schema.primary_key;
  }
  // Kùzu names the property as the statement spells it.
  std::string message =
      "Property " + std::string(property) + " has been dropped from table " + table_name + ".";
  properties->erase(properties->begin() + static_cast<ptrdiff_t>(*index));
  version_ = NewVersion();
  return DdlOutcome{*id, true, std::move(message)};
}

Result<DdlOutcome> Catalog::RenameProperty(std::string_view table, std::string_view property,
                                           std::string new_name) {
  auto id = FindId(table);
  if (!id) return NoSuchTable(table);
  std::string table_name = TableName(*id);
  auto* properties = MutableProperties(*id);
  auto index = FindProperty(*properties, property);
  if (!index) {
    return BindError(table_name + " table does not have property " + std::string(property) + ".");
  }
  auto other = FindProperty(*properties, new_name);
  if (other && *other != *index) {
    return BindError(table_name + " table already has property " + new_name + ".");
  }
  std::string message =
      "Property " + (*properties)[*index].name + " has been renamed to " + new_name + ".";
  (*properties)[*index].name = std::move(new_name);
  version_ = NewVersion();
  return DdlOutcome{*id, true, std::move(message)};
}

Result<Catalog::PairRef> Catalog::ResolvePair(std::string_view rel_table, std::string_view from,
                                              std::string_view to) {
  auto id = FindId(rel_table);
  if (!id) return NoSuchTable(rel_table);
  auto it = rel_tables_.find(*id);
  if (it == rel_tables_.end()) return BindError(std::string(rel_table) + " is not a rel table.");
  auto src = ResolveNodeTable(from);
  if (!src.ok()) return src.status();
  auto dst = ResolveNodeTable(to);
  if (!dst.ok()) return dst.status();
  return PairRef{*id, &it->second, *src, *dst,
                 node_tables_.at(*src).name + "->" + node_tables_.at(*dst).name};
}

Result<DdlOutcome> Catalog::AddRelPair(std::string_view rel_table, std::string_view from,
                                       std::string_view to, bool if_not_exists) {
  auto ref = ResolvePair(rel_table, from, to);
  if (!ref.ok()) return ref.status();
  RelTableSchema& schema = *ref->schema;
  if (schema.FindPair(ref->src, ref->dst)) {
    std::string text = ref->text + " already exists in " + schema.name + " table.";
    if (if_not_exists) return DdlOutcome{ref->rel_table, false, std::move(text)};
    return BindError(std::move(text));
  }
  TableId pair_id = next_table_id_++;
  schema.pairs.push_back({pair_id, ref->src, ref->dst});
  pair_owner_[pair_id] = ref->rel_table;
  version_ = NewVersion();
  return DdlOutcome{pair_id, true, ref->text + " added to table " + schema.name + "."};
}

Result<DdlOutcome> Catalog::DropRelPair(std::string_view rel_table, std::string_view from,
                                        std::string_view to, bool if_exists) {
  auto ref = ResolvePair(rel_table, from, to);
  if (!ref.ok()) return ref.status();
  RelTableSchema& schema = *ref->schema;
  const RelTablePair* pair = schema.FindPair(ref->src, ref->dst);
  if (pair == nullptr) {
    std::string text = ref->text + " does not exist in " + schema.name + " table.";
    if (if_exists) return DdlOutcome{ref->rel_table, false, std::move(text)};
    return BindError(std::move(text));
  }
  TableId pair_id = pair->id;
  pair_owner_.erase(pair_id);
  schema.pairs.erase(schema.pairs.begin() + (pair - schema.pairs.data()));
  version_ = NewVersion();
  return DdlOutcome{pair_id, true, ref->text + " has been dropped from table " + schema.name + "."};
}

Status Catalog::SetComment(std::string_view table, std::string comment) {
  auto id = FindId(table);
  if (!id) return NoSuchTable(table);
  if (auto it = node_tables_.find(*id); it != node_tables_.end()) {
    it->second.comment = std::move(comment);
  } else {
    rel_tables_.at(*id).comment = std::move(comment);
  }
  version_ = NewVersion();
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Sequences

namespace {
thread_local uint64_t t_sequence_draws = 0;
}  // namespace

uint64_t SequenceDrawsOnThisThread() { return t_sequence_draws; }

Result<int64_t> SequenceSchema::NextValue() const {
  ++t_sequence_draws;
  const SequenceDefinition& o = options;
  return counter->Update([&o](SequenceCounter::State& state) -> Result<int64_t> {
    if (!state.used) {
      state = {true, o.start_value};
      return o.start_value;
    }
    int64_t next;
    bool overflow = __builtin_add_overflow(state.current, o.increment, &next);
    if (o.increment > 0 && (overflow || next > o.max_value)) {
      if (!o.cycle) {
        return Status(ErrorCode::kQueryRuntime,
                      "Catalog exception: nextval: reached maximum value of sequence \"" + o.name +
                          "\" " + std::to_string(o.max_value));
      }
      next = o.min_value;
    } else if (o.increment < 0 && (overflow || next < o.min_value)) {
      if (!o.cycle) {
        return Status(ErrorCode::kQueryRuntime,
                      "Catalog exception: nextval: reached minimum value of sequence \"" + o.name +
                          "\" " + std::to_string(o.min_value));
      }
      next = o.max_value;
    }
    state.current = next;
    return next;
  });
}

Result<int64_t> SequenceSchema::CurrentValue() const {
  SequenceCounter::State state = counter->Get();
  if (!state.used) {
    return Status(ErrorCode::kQueryRuntime, "Catalog exception: currval: sequence \"" +
                                                options.name +
                                                "\" is not yet defined. To define the sequence, "
                                                "call nextval first.");
  }
  return state.current;
}

Result<DdlOutcome> Catalog::CreateSequence(SequenceDefinition def) {
  if (def.name.empty()) return BindError("Sequence name cannot be empty.");
  if (sequences_.count(FoldName(def.name))) {
    if (def.if_not_exists) {
      return DdlOutcome{kInvalidTableId, false, "Sequence " + def.name + " already exists."};
    }
    return BindError(def.name + " already exists in catalog.");
  }
  if (def.increment == 0) return BindError("SEQUENCE INCREMENT should not be 0.");
  if (def.max_value < def.min_value) {
    return BindError("SEQUENCE MAXVALUE should be greater than or equal to MINVALUE.");
  }
  if (def.start_value < def.min_value || def.start_value > def.max_value) {
    return BindError("SEQUENCE START value should be between MINVALUE and MAXVALUE.");
  }
  std::string message = "Sequence " + def.name + " has been created.";
  def.if_not_exists = false;
  SequenceSchema schema;
  schema.options = std::move(def);
  std::string key = FoldName(schema.options.name);
  sequences_.emplace(std::move(key), std::move(schema));
  ++version_;
  return DdlOutcome{kInvalidTableId, true, std::move(message)};
}

Result<DdlOutcome> Catalog::DropSequence(std::string_view name, bool if_exists) {
  auto it = sequences_.find(FoldName(name));
  if (it == sequences_.end()) {
    std::string text = "Sequence " + std::string(name) + " does not exist.";
    if (if_exists) return DdlOutcome{kInvalidTableId, false, std::move(text)};
    return BindError(std::move(text));
  }
  std::string message = "Sequence " + it->second.options.name + " has been dropped.";
  sequences_.erase(it);
  ++version_;
  return DdlOutcome{kInvalidTableId, true, std::move(message)};
}

// ---------------------------------------------------------------------------------------------
// User-defined types

Result<DdlOutcome> Catalog::CreateType(std::string name, LogicalType type) {
  std::string key = FoldName(name);
  if (name.empty()) return BindError("Type name cannot be empty.");
  if (user_types_.count(key)) return BindError("Duplicated type name: " + name + ".");
  std::string message = "Type " + name + "(" + type.ToString() + ") has been created.";
  user_types_.emplace(std::move(key), std::make_pair(std::move(name), std::move(type)));
  version_ = NewVersion();
  return DdlOutcome{kInvalidTableId, true, std::move(message)};
}

const LogicalType* Catalog::GetUserType(std::string_view name) const {
  auto it = user_types_.find(FoldName(name));
  return it == user_types_.end() ? nullptr : &it->second.second;
}

std::vector<std::pair<std::string, LogicalType>> Catalog::UserTypes() const {
  std::vector<std::pair<std::string, LogicalType>> out;
  for (const auto& [key, entry] : user_types_) out.push_back(entry);
  return out;
}

std::optional<LogicalType> Catalog::ParseType(std::string_view text, std::string* error) const {
  if (user_types_.empty()) return ParseLogicalType(text, error);
  UserTypeResolver resolve = [this](std::string_view name) -> std::optional<LogicalType> {
    const LogicalType* type = GetUserType(name);
    if (!type) return std::nullopt;
    return *type;
  };
  return ParseLogicalType(text, error, &resolve);
}

// ---------------------------------------------------------------------------------------------
// Macros

Result<DdlOutcome> Catalog::CreateMacro(MacroDefinition def) {
  for (auto& c : def.name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string key = FoldName(def.name);
  if (def.name.empty()) return BindError("Macro name cannot be empty.");
  if (macros_.count(key)) return BindError("Macro " + def.name + " already exists.");
  std::string message = "Macro: " + def.name + " has been created.";
  macros_.emplace(std::move(key), std::move(def));
  version_ = NewVersion();
  return DdlOutcome{kInvalidTableId, true, std::move(message)};
}

Result<DdlOutcome> Catalog::DropMacro(std::string_view name, bool if_exists) {
  auto it = macros_.find(FoldName(name));
  if (it == macros_.end()) {
    std::string text = "Macro " + std::string(name) + " does not exist.";
    if (if_exists) return DdlOutcome{kInvalidTableId, false, std::move(text)};
    return BindError(std::move(text));
  }
  std::string message = "Macro: " + it->second.name + " has been dropped.";
  macros_.erase(it);
  version_ = NewVersion();
  return DdlOutcome{kInvalidTableId, true, std::move(message)};
}

const MacroDefinition* Catalog::GetMacro(std::string_view name) const {
  auto it = macros_.find(FoldName(name));
  return it == macros_.end() ? nullptr : &it->second;
}

std::vector<const MacroDefinition*> Catalog::Macros() const {
  std::vector<const MacroDefinition*> out;
  for (const auto& [key, def] : macros_) out.push_back(&def);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Indexes

Result<DdlOutcome> Catalog::CreateIndex(IndexDefinition def) {
  auto table = node_tables_.find(def.table);
  if (table == node_tables_.end()) {
    return BindError("Table " + std::to_string(def.table) + " is not a node table.");
  }
  if (def.name.empty()) return BindError("Index name cannot be empty.");
  if (GetIndex(def.table, def.name)) {
    return BindError("Index " + def.name + " already exists in table " + table->second.name + ".");
  }
  for (PropertyId p : def.properties) {
    bool found = false;
    for (const auto& prop : table->second.properties) found = found || prop.id == p;
    if (!found) return BindError("Index " + def.name + " names an unknown property.");
  }
  std::string message = "Index " + def.name + " has been created.";
  indexes_.push_back(std::move(def));
  version_ = NewVersion();
  return DdlOutcome{indexes_.back().table, true, std::move(message)};
}

Result<DdlOutcome> Catalog::DropIndex(TableId table, std::string_view name) {
  for (auto it = indexes_.begin(); it != indexes_.end(); ++it) {
    if (it->table != table || !NamesEqual(it->name, name)) continue;
    std::string message = "Index " + it->name + " has been dropped.";
    indexes_.erase(it);
    version_ = NewVersion();
    return DdlOutcome{table, true, std::move(message)};
  }
  return BindError("Table " + TableName(table) + " doesn't have an index with name " +
                   std::string(name) + ".");
}

const IndexDefinition* Catalog::GetIndex(TableId table, std::string_view name) const {
  for (const IndexDefinition& def : indexes_) {
    if (def.table == table && NamesEqual(def.name, name)) return &def;
  }
  return nullptr;
}

std::vector<const IndexDefinition*> Catalog::Indexes() const {
  std::vector<const IndexDefinition*> out;
  for (const IndexDefinition& def : indexes_) out.push_back(&def);
  return out;
}

std::vector<const IndexDefinition*> Catalog::IndexesOn(TableId table) const {
  std::vector<const IndexDefinition*> out;
  for (const IndexDefinition& def : indexes_) {
    if (def.table == table) out.push_back(&def);
  }
  return out;
}

const SequenceSchema* Catalog::GetSequence(std::string_view name) const {
  auto it = sequences_.find(FoldName(name));
  return it == sequences_.end() ? nullptr : &it->second;
}

bool Catalog::HasUnloggedSequences() const {
  for (const auto& [key, schema] : sequences_) {
    if (schema.counter->Unlogged()) return true;
  }
  return false;
}

std::vector<const SequenceSchema*> Catalog::Sequences() const {
  std::vector<const SequenceSchema*> out;
  for (const auto& [key, schema] : sequences_) out.push_back(&schema);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Lookup

std::optional<TableId> Catalog::FindId(std::string_view name) const {
  auto it = by_name_.find(FoldName(name));
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

std::optional<TableKind> Catalog::KindOf(TableId id) const {
  if (node_tables_.count(id)) return TableKind::kNode;
  if (rel_tables_.count(id)) return TableKind::kRel;
  return std::nullopt;
}

const NodeTableSchema* Catalog::GetNodeTable(std::string_view name) const {
  auto id = FindId(name);
  return id ? GetNodeTable(*id) : nullptr;
}

const NodeTableSchema* Catalog::GetNodeTable(TableId id) const {
  auto it = node_tables_.find(id);
  return it == node_tables_.end() ? nullptr : &it->second;
}

const RelTableSchema* Catalog::GetRelTable(std::string_view name) const {
  auto id = FindId(name);
  return id ? GetRelTable(*id) : nullptr;
}

const RelTableSchema* Catalog::GetRelTable(TableId id) const {
  auto it = rel_tables_.find(id);
  return it == rel_tables_.end() ? nullptr : &it->second;
}

const RelTableSchema* Catalog::GetRelTableByPairId(TableId pair_id) const {
  auto it = pair_owner_.find(pair_id);
  return it == pair_owner_.end() ? nullptr : GetRelTable(it->second);
}

std::string Catalog::TableName(TableId id) const {
  if (auto* n = GetNodeTable(id)) return n->name;
  if (auto* r = GetRelTable(id)) return r->name;
  return "";
}

std::vector<const NodeTableSchema*> Catalog::NodeTables() const {
  std::vector<const NodeTableSchema*> out;
  for (const auto& [id, schema] : node_tables_) out.push_back(&schema);
  return out;
}

std::vector<const RelTableSchema*> Catalog::RelTables() const {
  std::vector<const RelTableSchema*> out;
  for (const auto& [id, schema] : rel_tables_) out.push_back(&schema);
  return out;
}

const RelTableSchema* Catalog::FindRelPairByLegacyName(std::string_view name, TableId* src,
                                                       TableId* dst) const {
  const std::string wanted = FoldName(name);
  for (const auto& [id, table] : rel_tables_) {
    for (const auto& pair : table.pairs) {
      if (FoldName(table.name + "_" + TableName(pair.src_table) + "_" +
                   TableName(pair.dst_table)) == wanted) {
        *src = pair.src_table;
        *dst = pair.dst_table;
        return &table;
      }
    }
  }
  return nullptr;
}

std::vector<const RelTableSchema*> Catalog::RelTablesReferencing(TableId node_table) const {
  std::vector<const RelTableSchema*> out;
  for (const auto& [id, schema] : rel_tables_) {
    for (const auto& p : schema.pairs) {
      if (p.src_table == node_table || p.dst_table == node_table) {
        out.push_back(&schema);
        break;
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Persistence
//
// Layout: magic "GDBCATLG" | u32 format version | varint next_table_id | varint #node tables |
// node tables | varint #rel tables | rel tables | u32 CRC32C of all preceding bytes.

std::string Catalog::Serialize() const {
  BinaryWriter w;
  w.PutRaw(kMagic, sizeof kMagic);
  w.PutU32(kFormatVersion);
  w.PutVarint(next_table_id_);
  w.PutVarint(node_tables_.size());
  for (const auto& [id, t] : node_tables_) {
    w.PutVarint(t.id);
    w.PutString(t.name);
    WriteProperties(w, t.properties);
    w.PutVarint(t.primary_key);
    w.PutVarint(t.next_property_id);
    w.PutString(t.comment);
  }
  w.PutVarint(rel_tables_.size());
  for (const auto& [id, t] : rel_tables_) {
    w.PutVarint(t.id);
    w.PutString(t.name);
    w.PutVarint(t.pairs.size());
    for (const auto& p : t.pairs) {
      w.PutVarint(p.id);
      w.PutVarint(p.src_table);
      w.PutVarint(p.dst_table);
    }
    w.PutU8(static_cast<uint8_t>(t.multiplicity));
    w.PutU8(static_cast<uint8_t>(t.storage_direction));
    WriteProperties(w, t.properties);
    w.PutVarint(t.next_property_id);
    w.PutString(t.comment);
  }
  w.PutVarint(sequences_.size());
  for (const auto& [key, seq] : sequences_) {
    const SequenceDefinition& o = seq.options;
    SequenceCounter::State state = seq.counter->Get();
    w.PutString(o.name);
    w.PutSignedVarint(o.start_value);
    w.PutSignedVarint(o.increment);
    w.PutSignedVarint(o.min_value);
    w.PutSignedVarint(o.max_value);
    w.PutU8((o.cycle ? 1 : 0) | (state.used ? 2 : 0));
    w.PutSignedVarint(state.current);
  }
  w.PutVarint(user_types_.size());
  for (const auto& [key, entry] : user_types_) {
    w.PutString(entry.first);
    w.PutString(entry.second.ToString());
  }
  w.PutVarint(macros_.size());
  for (const auto& [key, def] : macros_) {
    w.PutString(def.name);
    w.PutVarint(def.parameters.size());
    for (const auto& name : def.parameters) w.PutString(name);
    w.PutVarint(def.defaults.size());
    for (const auto& [name, value] : def.defaults) {
      w.PutString(name);
      w.PutString(value);
    }
    w.PutString(def.body);
  }
  w.PutVarint(indexes_.size());
  for (const IndexDefinition& def : indexes_) {
    w.PutString(def.name);
    w.PutString(def.kind);
    w.PutVarint(def.table);
    w.PutVarint(def.properties.size());
    for (PropertyId p : def.properties) w.PutVarint(p);
    w.PutVarint(def.options.size());
    for (const auto& [key, value] : def.options) {
      w.PutString(key);
      w.PutString(value);
    }
  }
  std::string bytes = w.Release();
  uint32_t crc = env::crc32c::Value(bytes);
  bytes.append(reinterpret_cast<const char*>(&crc), sizeof crc);
  return bytes;
}

Result<Catalog> Catalog::Deserialize(std::string_view bytes) {
  auto corrupt = [](std::string why) {
    return Status(ErrorCode::kCorruption, "catalog is corrupt: " + std::move(why));
  };
  if (bytes.size() < sizeof kMagic + 8) return corrupt("too short");
  if (std::string_view(bytes.data(), sizeof kMagic) != std::string_view(kMagic, sizeof kMagic)) {
    return corrupt("bad magic");
  }
  uint32_t stored_crc;
  std::memcpy(&stored_crc, bytes.data() + bytes.size() - 4, 4);
  std::string_view body = bytes.substr(0, bytes.size() - 4);
  if (env::crc32c::Value(body) != stored_crc) return corrupt("checksum mismatch");
  BinaryReader r(body.substr(sizeof kMagic));
  uint32_t version;
  if (!r.GetU32(&version)) return corrupt("truncated header");
  if (version > kFormatVersion || version < 1) {
    return corrupt("unsupported format version " + std::to_string(version));
  }
  Catalog c;
  std::string error;
  uint64_t n;
  if (!r.GetVarint(&c.next_table_id_) || !r.GetVarint(&n) || n > r.remaining()) {
    return corrupt("truncated table list");
  }
  for (uint64_t i = 0; i < n; ++i) {
    NodeTableSchema t;
    uint64_t pk;
    uint64_t next_pid;
    if (!r.GetVarint(&t.id) || !r.GetString(&t.name) || !ReadProperties(r, &t.properties, &error) ||
        !r.GetVarint(&pk) || !r.GetVarint(&next_pid) || !r.GetString(&t.comment)) {
      return corrupt(error.empty() ? "truncated node table" : error);
    }
    if (pk >= t.properties.size() || next_pid > UINT32_MAX || t.id >= c.next_table_id_ ||
        c.FindId(t.name) || c.node_tables_.count(t.id)) {
      return corrupt("invalid node table " + t.name);
    }
    t.primary_key = static_cast<uint32_t>(pk);
    t.next_property_id = static_cast<PropertyId>(next_pid);
    c.Index(t.id, t.name);
    TableId id = t.id;
    c.node_tables_.emplace(id, std::move(t));
  }
  if (!r.GetVarint(&n) || n > r.remaining()) return corrupt("truncated rel table list");
  for (uint64_t i = 0; i < n; ++i) {
    RelTableSchema t;
    uint64_t pairs;
    if (!r.GetVarint(&t.id) || !r.GetString(&t.name) || !r.GetVarint(&pairs) ||
        pairs > r.remaining()) {
      return corrupt("truncated rel table");
    }
    for (uint64_t k = 0; k < pairs; ++k) {
      RelTablePair p;
      if (!r.GetVarint(&p.id) || !r.GetVarint(&p.src_table) || !r.GetVarint(&p.dst_table)) {
        return corrupt("truncated rel table pair");
      }
      if (!c.node_tables_.count(p.src_table) || !c.node_tables_.count(p.dst_table) ||
          c.pair_owner_.count(p.id) || p.id >= c.next_table_id_) {
        return corrupt("invalid pair in rel table " + t.name);
      }
      c.pair_owner_[p.id] = t.id;
      t.pairs.push_back(p);
    }
    uint8_t multiplicity;
    uint8_t direction;
    uint64_t next_pid;
    if (!r.GetU8(&multiplicity) || !r.GetU8(&direction) ||
        !ReadProperties(r, &t.properties, &error) || !r.GetVarint(&next_pid) ||
        !r.GetString(&t.comment)) {
      return corrupt(error.empty() ? "truncated rel table" : error);
    }
    if (multiplicity > 3 || direction > 2 || next_pid > UINT32_MAX || t.id >= c.next_table_id_ ||
        c.FindId(t.name) || c.node_tables_.count(t.id) || c.rel_tables_.count(t.id)) {
      return corrupt("invalid rel table " + t.name);
    }
    t.multiplicity = static_cast<RelMultiplicity>(multiplicity);
    t.storage_direction = static_cast<RelStorageDirection>(direction);
    t.next_property_id = static_cast<PropertyId>(next_pid);
    c.Index(t.id, t.name);
    TableId id = t.id;
    c.rel_tables_.emplace(id, std::move(t));
  }
  if (version >= 2) {
    if (!r.GetVarint(&n) || n > r.remaining()) return corrupt("truncated sequence list");
    for (uint64_t i = 0; i < n; ++i) {
      SequenceSchema seq;
      SequenceDefinition& o = seq.options;
      uint8_t flags;
      int64_t current;
      if (!r.GetString(&o.name) || !r.GetSignedVarint(&o.start_value) ||
          !r.GetSignedVarint(&o.increment) || !r.GetSignedVarint(&o.min_value) ||
          !r.GetSignedVarint(&o.max_value) || !r.GetU8(&flags) || !r.GetSignedVarint(&current)) {
        return corrupt("truncated sequence");
      }
      std::string key = FoldName(o.name);
      if (o.name.empty() || o.increment == 0 || o.min_value > o.max_value ||
          o.start_value < o.min_value || o.start_value > o.max_value || flags > 3 ||
          c.sequences_.count(key)) {
        return corrupt("invalid sequence " + o.name);
      }
      o.cycle = (flags & 1) != 0;
      seq.counter->Set({(flags & 2) != 0, current});
      c.sequences_.emplace(std::move(key), std::move(seq));
    }
  }
  if (version >= 3) {
    if (!r.GetVarint(&n) || n > r.remaining()) return corrupt("truncated type list");
    for (uint64_t i = 0; i < n; ++i) {
      std::string name, type_text, type_error;
      if (!r.GetString(&name) || !r.GetString(&type_text)) return corrupt("truncated type");
      auto type = ParseLogicalType(type_text, &type_error);
      std::string key = FoldName(name);
      if (name.empty() || !type || c.user_types_.count(key)) {
        return corrupt("invalid type " + name);
      }
      c.user_types_.emplace(std::move(key), std::make_pair(std::move(name), std::move(*type)));
    }
    if (!r.GetVarint(&n) || n > r.remaining()) return corrupt("truncated macro list");
    for (uint64_t i = 0; i < n; ++i) {
      MacroDefinition def;
      uint64_t count;
      if (!r.GetString(&def.name) || !r.GetVarint(&count) || count > r.remaining()) {
        return corrupt("truncated macro");
      }
      def.parameters.resize(count);
      for (auto& name : def.parameters) {
        if (!r.GetString(&name)) return corrupt("truncated macro " + def.name);
      }
      if (!r.GetVarint(&count) || count > r.remaining()) return corrupt("truncated macro");
      def.defaults.resize(count);
      for (auto& [name, value] : def.defaults) {
        if (!r.GetString(&name) || !r.GetString(&value)) {
          return corrupt("truncated macro " + def.name);
        }
      }
      if (!r.GetString(&def.body)) return corrupt("truncated macro " + def.name);
      std::string key = FoldName(def.name);
      if (def.name.empty() || def.body.empty() || c.macros_.count(key)) {
        return corrupt("invalid macro " + def.name);
      }
      c.macros_.emplace(std::move(key), std::move(def));
    }
  }
  if (version >= 4) {
    if (!r.GetVarint(&n) || n > r.remaining()) return corrupt("truncated index list");
    for (uint64_t i = 0; i < n; ++i) {
      IndexDefinition def;
      uint64_t count;
      if (!r.GetString(&def.name) || !r.GetString(&def.kind) || !r.GetVarint(&def.table) ||
          !r.GetVarint(&count) || count > r.remaining()) {
        return corrupt("truncated index");
      }
      for (uint64_t k = 0; k < count; ++k) {
        uint64_t p;
        if (!r.GetVarint(&p) || p > UINT32_MAX) return corrupt("truncated index " + def.name);
        def.properties.push_back(static_cast<PropertyId>(p));
      }
      if (!r.GetVarint(&count) || count > r.remaining()) return corrupt("truncated index");
      def.options.resize(count);
      for (auto& [key, value] : def.options) {
        if (!r.GetString(&key) || !r.GetString(&value)) {
          return corrupt("truncated index " + def.name);
        }
      }
      const std::string name = def.name;
      if (!c.CreateIndex(std::move(def)).ok()) return corrupt("invalid index " + name);
    }
  }
  if (!r.done()) return corrupt("trailing bytes");
  return c;
}

uint64_t Catalog::NewVersion() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

bool Catalog::operator==(const Catalog& other) const { return Serialize() == other.Serialize(); }

}  // namespace graphdb::catalog
