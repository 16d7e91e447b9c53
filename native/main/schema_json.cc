#include "main/schema_json.h"

#include <mutex>
#include <shared_mutex>

#include "exec/query_result.h"

namespace graphdb {

namespace {

void AppendProperties(std::string& out, const std::vector<catalog::PropertyDefinition>& props) {
  out += "\"properties\":[";
  for (size_t i = 0; i < props.size(); ++i) {
    if (i) out += ',';
    out += "{\"name\":";
    exec::AppendJsonString(out, props[i].name);
    out += ",\"type\":";
    exec::AppendJsonString(out, props[i].type.ToString());
    out += '}';
  }
  out += ']';
}

}  // namespace

Result<std::string> SchemaJson(Database& db, const void* session) {
  std::shared_lock<StatementLock> lock;
  if (Status waited = db.LockShared(lock, session); !waited.ok()) return waited;
  const catalog::Catalog& cat = db.catalog();
  std::string out = "{\"nodeTables\":[";
  bool first = true;
  for (const auto* table : cat.NodeTables()) {
    if (!first) out += ',';
    first = false;
    out += "{\"name\":";
    exec::AppendJsonString(out, table->name);
    out += ",\"primaryKey\":";
    exec::AppendJsonString(out, table->primary_key_property().name);
    out += ',';
    AppendProperties(out, table->properties);
    out += '}';
  }
  out += "],\"relTables\":[";
  first = true;
  for (const auto* table : cat.RelTables()) {
    if (!first) out += ',';
    first = false;
    out += "{\"name\":";
    exec::AppendJsonString(out, table->name);
    if (!table->pairs.empty()) {
      out += ",\"from\":";
      exec::AppendJsonString(out, cat.TableName(table->pairs[0].src_table));
      out += ",\"to\":";
      exec::AppendJsonString(out, cat.TableName(table->pairs[0].dst_table));
    }
    out += ",\"pairs\":[";
    for (size_t i = 0; i < table->pairs.size(); ++i) {
      if (i) out += ',';
      out += "{\"from\":";
      exec::AppendJsonString(out, cat.TableName(table->pairs[i].src_table));
      out += ",\"to\":";
      exec::AppendJsonString(out, cat.TableName(table->pairs[i].dst_table));
      out += '}';
    }
    out += "],\"multiplicity\":";
    exec::AppendJsonString(out, catalog::RelMultiplicityName(table->multiplicity));
    out += ',';
    AppendProperties(out, table->properties);
    out += '}';
  }
  out += "]}";
  return out;
}

}  // namespace graphdb
