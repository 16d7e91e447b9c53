// Out-of-line special members of the AST (needed for members pointing to incomplete types),
// ForEachChild, and the debug dumps declared in ast.h.
#include "cypher/parser/ast.h"

#include <string>
#include <utility>

namespace graphdb::parser {

ParsedExpression::ParsedExpression() = default;
ParsedExpression::~ParsedExpression() = default;
ParsedExpression::ParsedExpression(ParsedExpression&&) noexcept = default;
ParsedExpression& ParsedExpression::operator=(ParsedExpression&&) noexcept = default;

ParsedRelPattern::ParsedRelPattern() = default;
ParsedRelPattern::~ParsedRelPattern() = default;
ParsedRelPattern::ParsedRelPattern(ParsedRelPattern&&) noexcept = default;
ParsedRelPattern& ParsedRelPattern::operator=(ParsedRelPattern&&) noexcept = default;

ParsedScanSource::ParsedScanSource() = default;
ParsedScanSource::~ParsedScanSource() = default;
ParsedScanSource::ParsedScanSource(ParsedScanSource&&) noexcept = default;
ParsedScanSource& ParsedScanSource::operator=(ParsedScanSource&&) noexcept = default;

void ForEachChild(const ParsedExpression& expression,
                  const std::function<void(const ParsedExpression&)>& visit) {
  if (expression.case_operand) visit(*expression.case_operand);
  for (const auto& child : expression.children) {
    if (child) visit(*child);
  }
  if (expression.case_else) visit(*expression.case_else);
  if (expression.where_expression) visit(*expression.where_expression);
  if (expression.projection) visit(*expression.projection);
  if (expression.slice_begin) visit(*expression.slice_begin);
  if (expression.slice_end) visit(*expression.slice_end);
}

const char* BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr: return "OR";
    case BinaryOp::kXor: return "XOR";
    case BinaryOp::kAnd: return "AND";
    case BinaryOp::kEqual: return "=";
    case BinaryOp::kNotEqual: return "<>";
    case BinaryOp::kLessThan: return "<";
    case BinaryOp::kLessEqual: return "<=";
    case BinaryOp::kGreaterThan: return ">";
    case BinaryOp::kGreaterEqual: return ">=";
    case BinaryOp::kBitwiseOr: return "|";
    case BinaryOp::kBitwiseAnd: return "&";
    case BinaryOp::kShiftLeft: return "<<";
    case BinaryOp::kShiftRight: return ">>";
    case BinaryOp::kAdd: return "+";
    case BinaryOp::kSubtract: return "-";
    case BinaryOp::kMultiply: return "*";
    case BinaryOp::kDivide: return "/";
    case BinaryOp::kModulo: return "%";
    case BinaryOp::kPower: return "^";
    case BinaryOp::kIn: return "IN";
    case BinaryOp::kStartsWith: return "STARTS WITH";
    case BinaryOp::kEndsWith: return "ENDS WITH";
    case BinaryOp::kContains: return "CONTAINS";
    case BinaryOp::kRegexMatch: return "=~";
  }
  return "?";
}

const char* UnaryOpName(UnaryOp op) {
  switch (op) {
    case UnaryOp::kNot: return "NOT";
    case UnaryOp::kNegate: return "-";
    case UnaryOp::kPlus: return "+";
    case UnaryOp::kFactorial: return "!";
    case UnaryOp::kIsNull: return "IS NULL";
    case UnaryOp::kIsNotNull: return "IS NOT NULL";
  }
  return "?";
}

std::string QuoteString(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default: out += c;
    }
  }
  out += "'";
  return out;
}

std::string QuoteName(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

namespace {

template <typename T, typename F>
std::string Join(const std::vector<T>& items, const std::string& separator, F&& render) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += render(items[i]);
  }
  return out;
}

std::string JoinNames(const std::vector<std::string>& names, const std::string& separator) {
  return Join(names, separator, [](const std::string& name) { return name; });
}

std::string Dump(const ParsedExpressionPtr& expression) {
  return expression ? ToString(*expression) : std::string("<null>");
}

std::string DumpProperties(const std::vector<ParsedPropertyEntry>& properties) {
  return "{" +
         Join(properties, ", ",
              [](const ParsedPropertyEntry& entry) {
                return entry.key + ": " + Dump(entry.value);
              }) +
         "}";
}

std::string DumpProjectionItem(const ParsedProjectionItem& item) {
  std::string out = Dump(item.expression);
  if (item.has_alias) out += " AS " + item.alias;
  return out;
}

std::string DumpNode(const ParsedNodePattern& node) {
  std::string out = "(" + node.variable;
  for (const auto& label : node.labels) out += ":" + label;
  if (!node.properties.empty()) {
    if (out.size() > 1) out += " ";
    out += DumpProperties(node.properties);
  }
  return out + ")";
}

std::string DumpRel(const ParsedRelPattern& rel) {
  std::string detail = rel.variable;
  if (!rel.types.empty()) detail += ":" + JoinNames(rel.types, "|");
  if (rel.recursive_kind != RecursiveKind::kNone) {
    detail += "*";
    switch (rel.recursive_kind) {
      case RecursiveKind::kShortest: detail += " SHORTEST"; break;
      case RecursiveKind::kAllShortest: detail += " ALL SHORTEST"; break;
      case RecursiveKind::kWeightedShortest:
        detail += " WSHORTEST(" + rel.weight_property + ")";
        break;
      case RecursiveKind::kAllWeightedShortest:
        detail += " ALL WSHORTEST(" + rel.weight_property + ")";
        break;
      case RecursiveKind::kTrail: detail += " TRAIL"; break;
      case RecursiveKind::kAcyclic: detail += " ACYCLIC"; break;
      default: break;
    }
    if (!rel.lower_bound.empty() || !rel.upper_bound.empty()) {
      if (rel.recursive_kind != RecursiveKind::kVariableLength) detail += " ";
      if (rel.lower_bound == rel.upper_bound) {
        detail += rel.lower_bound;
      } else {
        detail += rel.lower_bound + ".." + rel.upper_bound;
      }
    }
    if (rel.has_comprehension) {
      detail += " (" + rel.comprehension_rel_variable + ", " + rel.comprehension_node_variable;
      if (rel.comprehension_where) detail += " | WHERE " + Dump(rel.comprehension_where);
      if (rel.has_comprehension_projection) {
        detail += " | {" + Join(rel.rel_projection, ", ", DumpProjectionItem) + "}, {" +
                  Join(rel.node_projection, ", ", DumpProjectionItem) + "}";
      }
      detail += ")";
    }
  }
  if (!rel.properties.empty()) {
    if (!detail.empty()) detail += " ";
    detail += DumpProperties(rel.properties);
  }
  std::string out = rel.direction == RelDirection::kLeft ? "<-" : "-";
  if (!detail.empty()) out += "[" + detail + "]";
  out += rel.direction == RelDirection::kRight ? "->" : "-";
  return out;
}

std::string DumpHint(const ParsedJoinHint& hint) {
  if (hint.children.empty()) return hint.variable;
  std::string separator = hint.multi_join ? " MULTI_JOIN " : " JOIN ";
  return "(" +
         Join(hint.children, separator,
              [](const std::unique_ptr<ParsedJoinHint>& child) { return DumpHint(*child); }) +
         ")";
}

std::string DumpPatterns(const std::vector<ParsedPatternElement>& patterns) {
  return Join(patterns, ", ", [](const ParsedPatternElement& p) { return ToString(p); });
}

std::string DumpSubquery(const ParsedSubquery& subquery) {
  std::string out = "MATCH " + DumpPatterns(subquery.patterns);
  if (subquery.where) out += " WHERE " + Dump(subquery.where);
  if (subquery.hint) out += " HINT " + DumpHint(*subquery.hint);
  return out;
}

std::string DumpOptions(const std::vector<ParsedOption>& options) {
  return "(" +
         Join(options, ", ",
              [](const ParsedOption& option) {
                return option.value ? option.name + "=" + Dump(option.value) : option.name;
              }) +
         ")";
}

std::string DumpColumn(const ParsedColumnDefinition& column) {
  std::string out = column.name + " " + column.type_text;
  if (column.default_value) out += " DEFAULT " + Dump(column.default_value);
  if (column.primary_key) out += " PRIMARY KEY";
  return out;
}

std::string DumpSource(const ParsedScanSource& source) {
  switch (source.kind) {
    case ScanSourceKind::kFiles:
      if (source.file_list) return "[" + Join(source.file_paths, ", ", QuoteString) + "]";
      return source.file_paths.empty() ? std::string() : QuoteString(source.file_paths[0]);
    case ScanSourceKind::kQuery: return "(" + ToString(*source.query) + ")";
    case ScanSourceKind::kParameter: return "$" + source.name;
    case ScanSourceKind::kVariable: return source.name;
  }
  return "";
}

std::string DumpSetItem(const ParsedSetItem& item) {
  std::string out = Dump(item.target);
  if (item.value) out += " = " + Dump(item.value);
  return out;
}

std::string DumpProjection(const ParsedProjection& projection) {
  std::string out;
  if (projection.distinct) out += "DISTINCT ";
  std::vector<std::string> items;
  if (projection.star) items.push_back("*");
  for (const auto& item : projection.items) items.push_back(DumpProjectionItem(item));
  out += JoinNames(items, ", ");
  if (!projection.order_by.empty()) {
    out += " ORDER BY " + Join(projection.order_by, ", ", [](const ParsedSortItem& item) {
             return Dump(item.expression) + (item.descending ? " DESC" : "");
           });
  }
  if (projection.skip) out += " SKIP " + Dump(projection.skip);
  if (projection.limit) out += " LIMIT " + Dump(projection.limit);
  return out;
}

std::string DumpClause(const ParsedClause& clause) {
  switch (clause.kind) {
    case ClauseKind::kMatch: {
      const auto& match = clause.As<ParsedMatchClause>();
      std::string out = match.optional ? "OPTIONAL MATCH " : "MATCH ";
      out += DumpPatterns(match.patterns);
      if (match.where) out += " WHERE " + Dump(match.where);
      if (match.hint) out += " HINT " + DumpHint(*match.hint);
      return out;
    }
    case ClauseKind::kUnwind: {
      const auto& unwind = clause.As<ParsedUnwindClause>();
      return "UNWIND " + Dump(unwind.expression) + " AS " + unwind.alias;
    }
    case ClauseKind::kCall: {
      const auto& call = clause.As<ParsedCallClause>();
      std::string out = "CALL " + Dump(call.function);
      if (!call.yield_items.empty()) {
        out += " YIELD " + Join(call.yield_items, ", ", [](const ParsedYieldItem& item) {
                 return item.alias.empty() ? item.name : item.name + " AS " + item.alias;
               });
      }
      if (call.where) out += " WHERE " + Dump(call.where);
      return out;
    }
    case ClauseKind::kLoadFrom: {
      const auto& load = clause.As<ParsedLoadFromClause>();
      std::string out = "LOAD ";
      if (load.has_headers) {
        out += "WITH HEADERS (" + Join(load.headers, ", ", DumpColumn) + ") ";
      }
      out += "FROM " + DumpSource(load.source);
      if (!load.options.empty()) out += " " + DumpOptions(load.options);
      if (load.where) out += " WHERE " + Dump(load.where);
      return out;
    }
    case ClauseKind::kCreate:
      return "CREATE " + DumpPatterns(clause.As<ParsedCreateClause>().patterns);
    case ClauseKind::kMerge: {
      const auto& merge = clause.As<ParsedMergeClause>();
      std::string out = "MERGE " + DumpPatterns(merge.patterns);
      if (!merge.on_match.empty()) {
        out += " ON MATCH SET " + Join(merge.on_match, ", ", DumpSetItem);
      }
      if (!merge.on_create.empty()) {
        out += " ON CREATE SET " + Join(merge.on_create, ", ", DumpSetItem);
      }
      return out;
    }
    case ClauseKind::kSet:
      return "SET " + Join(clause.As<ParsedSetClause>().items, ", ", DumpSetItem);
    case ClauseKind::kDelete: {
      const auto& del = clause.As<ParsedDeleteClause>();
      return std::string(del.detach ? "DETACH DELETE " : "DELETE ") +
             Join(del.expressions, ", ", Dump);
    }
    case ClauseKind::kRemove:
      return "REMOVE " + Join(clause.As<ParsedRemoveClause>().items, ", ", Dump);
    case ClauseKind::kWith: {
      const auto& with = clause.As<ParsedWithClause>();
      std::string out = "WITH " + DumpProjection(with.projection);
      if (with.where) out += " WHERE " + Dump(with.where);
      return out;
    }
    case ClauseKind::kReturn:
      return "RETURN " + DumpProjection(clause.As<ParsedReturnClause>().projection);
  }
  return "";
}

}  // namespace

std::string ToString(const ParsedExpression& e) {
  switch (e.kind) {
    case ExpressionKind::kLiteral:
      switch (e.literal_kind) {
        case LiteralKind::kInteger:
        case LiteralKind::kDouble: return e.value;
        case LiteralKind::kString: return QuoteString(e.value);
        case LiteralKind::kBoolean: return e.bool_value ? "true" : "false";
        case LiteralKind::kNull: return "null";
      }
      return "";
    case ExpressionKind::kParameter: return "$" + e.name;
    case ExpressionKind::kVariable: return e.name;
    case ExpressionKind::kProperty:
      return Dump(e.children[0]) + "." + (e.is_star ? std::string("*") : e.name);
    case ExpressionKind::kLabelTest: {
      std::string out = Dump(e.children[0]);
      for (const auto& label : e.labels) out += ":" + label;
      return out;
    }
    case ExpressionKind::kFunctionCall: {
      std::string out = e.name + "(" + (e.distinct ? "DISTINCT " : "");
      for (size_t i = 0; i < e.children.size(); ++i) {
        if (i > 0) out += ", ";
        if (i < e.argument_names.size() && !e.argument_names[i].empty()) {
          out += e.argument_names[i] + " := ";
        }
        out += Dump(e.children[i]);
      }
      return out + ")";
    }
    case ExpressionKind::kCountStar: return e.name + "(*)";
    case ExpressionKind::kCast:
      if (e.children.size() > 1) {
        return "CAST(" + Dump(e.children[0]) + ", " + Dump(e.children[1]) + ")";
      }
      return "CAST(" + Dump(e.children[0]) + " AS " + e.type_text + ")";
    case ExpressionKind::kCase: {
      std::string out = "(CASE";
      if (e.case_operand) out += " " + Dump(e.case_operand);
      for (size_t i = 0; i + 1 < e.children.size(); i += 2) {
        out += " WHEN " + Dump(e.children[i]) + " THEN " + Dump(e.children[i + 1]);
      }
      if (e.case_else) out += " ELSE " + Dump(e.case_else);
      return out + " END)";
    }
    case ExpressionKind::kListLiteral: return "[" + Join(e.children, ", ", Dump) + "]";
    case ExpressionKind::kMapLiteral: {
      std::string out = "{";
      for (size_t i = 0; i < e.children.size(); ++i) {
        if (i > 0) out += ", ";
        out += e.keys[i] + ": " + Dump(e.children[i]);
      }
      return out + "}";
    }
    case ExpressionKind::kListComprehension: {
      std::string out = "[" + e.name + " IN " + Dump(e.children[0]);
      if (e.where_expression) out += " WHERE " + Dump(e.where_expression);
      if (e.projection) out += " | " + Dump(e.projection);
      return out + "]";
    }
    case ExpressionKind::kQuantifier: {
      static const char* const kNames[] = {"ALL", "ANY", "NONE", "SINGLE"};
      return std::string(kNames[static_cast<int>(e.quantifier)]) + "(" + e.name + " IN " +
             Dump(e.children[0]) + " WHERE " + Dump(e.where_expression) + ")";
    }
    case ExpressionKind::kLambda:
      return "((" + JoinNames(e.lambda_parameters, ", ") + ") -> " + Dump(e.children[0]) + ")";
    case ExpressionKind::kExistsSubquery: return "EXISTS { " + DumpSubquery(*e.subquery) + " }";
    case ExpressionKind::kCountSubquery: return "COUNT { " + DumpSubquery(*e.subquery) + " }";
    case ExpressionKind::kPatternPredicate: return ToString(*e.pattern);
    case ExpressionKind::kUnary:
      return std::string("(") + UnaryOpName(e.unary_op) + " " + Dump(e.children[0]) + ")";
    case ExpressionKind::kBinary: {
      // As nested binary forms: 1 - 2 + 3 is (+ (- 1 2) 3).
      std::string out;
      for (size_t i = e.binary_ops.size(); i-- > 0;) {
        out += std::string("(") + BinaryOpName(e.binary_ops[i]) + " ";
      }
      out += Dump(e.children[0]);
      for (size_t i = 1; i < e.children.size(); ++i) out += " " + Dump(e.children[i]) + ")";
      return out;
    }
    case ExpressionKind::kSubscript: return Dump(e.children[0]) + "[" + Dump(e.children[1]) + "]";
    case ExpressionKind::kSlice:
      return Dump(e.children[0]) + "[" + (e.slice_begin ? Dump(e.slice_begin) : "") + ":" +
             (e.slice_end ? Dump(e.slice_end) : "") + "]";
  }
  return "";
}

std::string ToString(const ParsedPatternElement& pattern) {
  std::string out;
  if (!pattern.path_variable.empty()) out += pattern.path_variable + " = ";
  for (size_t i = 0; i < pattern.nodes.size(); ++i) {
    if (i > 0) out += DumpRel(pattern.rels[i - 1]);
    out += DumpNode(pattern.nodes[i]);
  }
  return out;
}

std::string ToString(const ParsedRegularQuery& query) {
  std::string out;
  for (size_t i = 0; i < query.queries.size(); ++i) {
    if (i > 0) out += query.union_all[i - 1] ? " UNION ALL " : " UNION ";
    out += Join(query.queries[i].clauses, " ",
                [](const std::unique_ptr<ParsedClause>& clause) { return DumpClause(*clause); });
  }
  return out;
}

std::string ToString(const ParsedStatement& statement) {
  std::string out;
  if (statement.explain) out += "EXPLAIN ";
  if (statement.profile) out += "PROFILE ";
  switch (statement.kind) {
    case StatementKind::kQuery: return out + ToString(statement.As<ParsedQueryStatement>().query);
    case StatementKind::kCreateNodeTable: {
      const auto& create = statement.As<ParsedCreateNodeTable>();
      out += "CREATE NODE TABLE ";
      if (create.if_not_exists) out += "IF NOT EXISTS ";
      out += create.table_name;
      if (create.as_query) return out + " AS " + ToString(*create.as_query);
      std::vector<std::string> parts;
      for (const auto& column : create.columns) parts.push_back(DumpColumn(column));
      bool inline_key = false;
      for (const auto& column : create.columns) inline_key = inline_key || column.primary_key;
      if (!create.primary_key.empty() && !inline_key) {
        parts.push_back("PRIMARY KEY(" + create.primary_key + ")");
      }
      return out + "(" + JoinNames(parts, ", ") + ")";
    }
    case StatementKind::kCreateRelTable: {
      const auto& create = statement.As<ParsedCreateRelTable>();
      out += "CREATE REL TABLE ";
      if (create.group) out += "GROUP ";
      if (create.if_not_exists) out += "IF NOT EXISTS ";
      out += create.table_name;
      std::vector<std::string> parts;
      for (const auto& c : create.connections) parts.push_back("FROM " + c.from + " TO " + c.to);
      for (const auto& column : create.columns) parts.push_back(DumpColumn(column));
      if (!create.multiplicity.empty()) parts.push_back(create.multiplicity);
      out += "(" + JoinNames(parts, ", ") + ")";
      if (!create.options.empty()) out += " WITH " + DumpOptions(create.options);
      if (create.as_query) out += " AS " + ToString(*create.as_query);
      return out;
    }
    case StatementKind::kCreateSequence: {
      const auto& create = statement.As<ParsedCreateSequence>();
      out += "CREATE SEQUENCE ";
      if (create.if_not_exists) out += "IF NOT EXISTS ";
      out += create.name;
      if (!create.start_value.empty()) out += " START " + create.start_value;
      if (!create.increment.empty()) out += " INCREMENT " + create.increment;
      if (!create.min_value.empty()) out += " MINVALUE " + create.min_value;
      if (create.no_min_value) out += " NO MINVALUE";
      if (!create.max_value.empty()) out += " MAXVALUE " + create.max_value;
      if (create.no_max_value) out += " NO MAXVALUE";
      if (create.cycle) out += " CYCLE";
      return out;
    }
    case StatementKind::kCreateType: {
      const auto& create = statement.As<ParsedCreateType>();
      return out + "CREATE TYPE " + create.name + " AS " + create.type_text;
    }
    case StatementKind::kCreateMacro: {
      const auto& create = statement.As<ParsedCreateMacro>();
      std::vector<std::string> parts = create.parameters;
      for (const auto& [name, value] : create.defaults)
        parts.push_back(name + " := " + Dump(value));
      return out + "CREATE MACRO " + create.name + "(" + JoinNames(parts, ", ") + ") AS " +
             Dump(create.body);
    }
    case StatementKind::kDropTable:
    case StatementKind::kDropSequence:
    case StatementKind::kDropMacro: {
      const auto& drop = statement.As<ParsedDrop>();
      out += statement.kind == StatementKind::kDropTable      ? "DROP TABLE "
             : statement.kind == StatementKind::kDropSequence ? "DROP SEQUENCE "
                                                              : "DROP MACRO ";
      if (drop.if_exists) out += "IF EXISTS ";
      return out + drop.name;
    }
    case StatementKind::kAlterTable: {
      const auto& alter = statement.As<ParsedAlterTable>();
      out += "ALTER TABLE " + alter.table_name + " ";
      switch (alter.alter_kind) {
        case AlterKind::kAddProperty:
          return out + "ADD " + (alter.if_not_exists ? "IF NOT EXISTS " : "") +
                 DumpColumn(alter.column);
        case AlterKind::kDropProperty:
          return out + "DROP " + (alter.if_exists ? "IF EXISTS " : "") + alter.property_name;
        case AlterKind::kRenameTable: return out + "RENAME TO " + alter.new_name;
        case AlterKind::kRenameProperty:
          return out + "RENAME " + alter.property_name + " TO " + alter.new_name;
        case AlterKind::kAddFromTo:
          return out + "ADD " + (alter.if_not_exists ? "IF NOT EXISTS " : "") + "FROM " +
                 alter.connection.from + " TO " + alter.connection.to;
        case AlterKind::kDropFromTo:
          return out + "DROP " + (alter.if_exists ? "IF EXISTS " : "") + "FROM " +
                 alter.connection.from + " TO " + alter.connection.to;
      }
      return out;
    }
    case StatementKind::kCopyFrom: {
      const auto& copy = statement.As<ParsedCopyFrom>();
      out += "COPY " + copy.table_name;
      if (copy.has_column_list) out += "(" + JoinNames(copy.column_names, ", ") + ")";
      out += " FROM " + DumpSource(copy.source);
      if (copy.by_column) out += " BY COLUMN";
      if (!copy.options.empty()) out += " " + DumpOptions(copy.options);
      return out;
    }
    case StatementKind::kCopyTo: {
      const auto& copy = statement.As<ParsedCopyTo>();
      out += copy.table_name.empty() ? "COPY (" + ToString(copy.query) + ")"
                                     : "COPY " + copy.table_name;
      out += " TO " + QuoteString(copy.file_path);
      if (!copy.options.empty()) out += " " + DumpOptions(copy.options);
      return out;
    }
    case StatementKind::kTransaction:
      switch (statement.As<ParsedTransaction>().action) {
        case TransactionAction::kBeginReadWrite: return out + "BEGIN TRANSACTION";
        case TransactionAction::kBeginReadOnly: return out + "BEGIN TRANSACTION READ ONLY";
        case TransactionAction::kCommit: return out + "COMMIT";
        case TransactionAction::kRollback: return out + "ROLLBACK";
      }
      return out;
    case StatementKind::kCheckpoint: return out + "CHECKPOINT";
    case StatementKind::kExportDatabase:
    case StatementKind::kImportDatabase: {
      const auto& port = statement.As<ParsedPortDatabase>();
      out += statement.kind == StatementKind::kExportDatabase ? "EXPORT" : "IMPORT";
      out += " DATABASE " + QuoteString(port.path);
      if (!port.options.empty()) out += " " + DumpOptions(port.options);
      return out;
    }
    case StatementKind::kStandaloneCall: {
      const auto& call = statement.As<ParsedStandaloneCall>();
      return out + "CALL " + call.option_name + " = " + Dump(call.value);
    }
    case StatementKind::kCallFunction:
      return out + "CALL " + Dump(statement.As<ParsedCallFunction>().function);
    case StatementKind::kCommentOn: {
      const auto& comment = statement.As<ParsedCommentOn>();
      return out + "COMMENT ON TABLE " + comment.table + " IS '" + comment.comment + "'";
    }
    case StatementKind::kExtension: {
      const auto& extension = statement.As<ParsedExtension>();
      return out + extension.action + " " + extension.name;
    }
  }
  return out;
}

}  // namespace graphdb::parser
