#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "exec/query_result.h"
#include "types/temporal.h"

namespace graphdb::exec {

namespace {

void AppendId(std::string& out, InternalId id) {
  out += '"';
  out += std::to_string(id.table);
  out += ':';
  out += std::to_string(id.offset);
  out += '"';
}

void AppendDouble(std::string& out, double v) {
  if (!std::isfinite(v)) {  // JSON has no NaN or infinity
    out += "null";
    return;
  }
  // The text of printf's "%.*g" at the least precision (1 to 17) that reads back to the same
  // double. No precision below the shortest round-trip form's digit count can, so the search
  // starts there, which spares the dozen printf and strtod calls of a search from 1.
  char buf[40];
  const auto shortest = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  int digits = 0;
  for (const char* p = buf; p != shortest.ptr && *p != 'e'; ++p) digits += *p >= '0' && *p <= '9';
  for (int precision = std::max(digits, 1); precision < 17; ++precision) {
    const auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, precision);
    double back = 0;
    std::from_chars(buf, end.ptr, back);
    if (back == v) {
      out.append(buf, end.ptr);
      return;
    }
  }
  const auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 17);
  out.append(buf, end.ptr);
}

void AppendProperties(std::string& out, const ValueHeap& heap) {
  for (size_t i = 0; i < heap.children.size(); ++i) {
    out += ',';
    AppendJsonString(out, heap.names[i]);
    out += ':';
    AppendJson(out, heap.children[i]);
  }
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view text) {
  out += '"';
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void AppendJson(std::string& out, const Value& v) {
  if (v.is_null()) {
    out += "null";
    return;
  }
  switch (v.type_id()) {
    case LogicalTypeId::kBool: out += v.GetBool() ? "true" : "false"; return;
    case LogicalTypeId::kInt8:
    case LogicalTypeId::kInt16:
    case LogicalTypeId::kInt32:
    case LogicalTypeId::kInt64:
    case LogicalTypeId::kSerial: out += std::to_string(v.GetInt()); return;
    case LogicalTypeId::kUInt8:
    case LogicalTypeId::kUInt16:
    case LogicalTypeId::kUInt32:
    case LogicalTypeId::kUInt64: out += std::to_string(v.GetUInt()); return;
    case LogicalTypeId::kInt128: out += Int128ToString(v.GetInt128()); return;
    case LogicalTypeId::kDecimal:  // a JSON number with every digit
      out += v.ToString();
      return;
    case LogicalTypeId::kFloat:
    case LogicalTypeId::kDouble: AppendDouble(out, v.GetDouble()); return;
    case LogicalTypeId::kDate:
      AppendJsonString(out, temporal::FormatIsoDate(static_cast<int32_t>(v.GetInt())));
      return;
    case LogicalTypeId::kTimestamp:
    case LogicalTypeId::kTimestampMs:
    case LogicalTypeId::kTimestampNs:
    case LogicalTypeId::kTimestampSec:
    case LogicalTypeId::kTimestampTz:
      AppendJsonString(out, temporal::FormatIsoTimestampMicros(
                                temporal::TicksToMicros(v.type_id(), v.GetInt())));
      return;
    case LogicalTypeId::kInternalId: AppendId(out, v.GetId()); return;
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray: {
      out += '[';
      const auto& children = v.children();
      for (size_t i = 0; i < children.size(); ++i) {
        if (i) out += ',';
        AppendJson(out, children[i]);
      }
      out += ']';
      return;
    }
    case LogicalTypeId::kMap: {
      // Keys of any type: written as a list of {"key","value"} objects to stay lossless.
      out += '[';
      const auto& entries = v.children();
      for (size_t i = 0; i < entries.size(); ++i) {
        if (i) out += ',';
        out += "{\"key\":";
        AppendJson(out, entries[i].children()[0]);
        out += ",\"value\":";
        AppendJson(out, entries[i].children()[1]);
        out += '}';
      }
      out += ']';
      return;
    }
    case LogicalTypeId::kStruct: {
      out += '{';
      const auto& fields = v.heap()->type.fields();
      const auto& children = v.children();
      for (size_t i = 0; i < children.size(); ++i) {
        if (i) out += ',';
        AppendJsonString(out, fields[i].name);
        out += ':';
        AppendJson(out, children[i]);
      }
      out += '}';
      return;
    }
    case LogicalTypeId::kUnion: AppendJson(out, v.children()[0]); return;
    case LogicalTypeId::kNode:
      out += "{\"_id\":";
      AppendId(out, v.GetId());
      out += ",\"_label\":";
      AppendJsonString(out, v.heap()->str);
      AppendProperties(out, *v.heap());
      out += '}';
      return;
    case LogicalTypeId::kRel:
      out += "{\"_id\":";
      AppendId(out, v.GetId());
      out += ",\"_label\":";
      AppendJsonString(out, v.heap()->str);
      out += ",\"_src\":";
      AppendId(out, v.heap()->src);
      out += ",\"_dst\":";
      AppendId(out, v.heap()->dst);
      AppendProperties(out, *v.heap());
      out += '}';
      return;
    case LogicalTypeId::kRecursiveRel:
      out += "{\"_nodes\":";
      AppendJson(out, v.children()[0]);
      out += ",\"_rels\":";
      AppendJson(out, v.children()[1]);
      out += '}';
      return;
    default:
      // STRING, BLOB, UUID, INTERVAL: their text form.
      AppendJsonString(out, v.ToString());
      return;
  }
}

namespace {

void AppendColumns(std::string& out, const QueryResult& result) {
  out += "\"columns\":[";
  for (size_t i = 0; i < result.column_names.size(); ++i) {
    if (i) out += ',';
    AppendJsonString(out, result.column_names[i]);
  }
  out += "],\"types\":[";
  for (size_t i = 0; i < result.column_types.size(); ++i) {
    if (i) out += ',';
    AppendJsonString(out, result.column_types[i].ToString());
  }
  out += ']';
}

// Appends `name` (the JSON text before the number) and the number, without a temporary string.
template <typename Integer>
void AppendCount(std::string& out, std::string_view name, Integer value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(name);
  out.append(digits, end);
}

void AppendSummary(std::string& out, const QueryResult& result, uint64_t row_count) {
  AppendCount(out, "\"summary\":{\"rowCount\":", row_count);
  out += ",\"elapsedMs\":";
  AppendDouble(out, result.elapsed_ms);
  const QueryCounters& c = result.counters;
  AppendCount(out, ",\"counters\":{\"nodesCreated\":", c.nodes_created);
  AppendCount(out, ",\"nodesDeleted\":", c.nodes_deleted);
  AppendCount(out, ",\"relationshipsCreated\":", c.rels_created);
  AppendCount(out, ",\"relationshipsDeleted\":", c.rels_deleted);
  AppendCount(out, ",\"propertiesSet\":", c.properties_set);
  out += "}}";
}

}  // namespace

void AppendJsonRow(std::string& out, const std::vector<Value>& row) {
  out += '[';
  for (size_t c = 0; c < row.size(); ++c) {
    if (c) out += ',';
    AppendJson(out, row[c]);
  }
  out += ']';
}

std::string ToJson(const QueryResult& result) {
  std::string out;
  WriteJson(result, out);
  return out;
}

void WriteJson(const QueryResult& result, std::string& out) {
  out.clear();
  out.reserve(128 + result.rows.size() * 16 * (result.num_columns() + 1));
  out += '{';
  AppendColumns(out, result);
  out += ",\"rows\":[";
  for (size_t r = 0; r < result.rows.size(); ++r) {
    if (r) out += ',';
    AppendJsonRow(out, result.rows[r]);
  }
  out += "],";
  AppendSummary(out, result, result.rows.size());
  out += '}';
}

std::string HeaderJsonLine(const QueryResult& result) {
  std::string out = "{";
  AppendColumns(out, result);
  out += "}\n";
  return out;
}

void AppendJsonLines(std::string& out, const QueryResult& result) {
  for (const auto& row : result.rows) {
    AppendJsonRow(out, row);
    out += '\n';
  }
}

void AppendSummaryLine(std::string& out, const QueryResult& result, uint64_t row_count) {
  out += '{';
  AppendSummary(out, result, row_count);
  out += "}\n";
}

}  // namespace graphdb::exec
