// The parsed syntax tree (AST) of Kùzu-dialect Cypher, produced by ParseStatements (parser.h)
// and consumed by the binder.
//
// Design:
//  - Plain structs owning their children through std::unique_ptr; move-only.
//  - Expressions are one struct, ParsedExpression, tagged by ExpressionKind; each kind uses a
//    documented subset of the fields, so a binder walks them with a switch.
//  - Clauses and statements are small class hierarchies tagged by an enum (ClauseKind,
//    StatementKind): switch on `kind`, then `As<ParsedMatchClause>()` etc.
//  - Every node carries the 1-based line and column (in code points) of its first token.
//  - Names are kept exactly as written (identifiers keep their case; backticks removed);
//    keywords such as labels' case-insensitivity are for the binder to decide.
//  - Types (column types, CAST ... AS type) are kept as their source text, e.g.
//    "STRUCT(a INT64, b STRING[])"; the types module parses them.
//
// Thread-safety: immutable after parsing; safe to read from several threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace graphdb::parser {

struct ParsedExpression;
struct ParsedPatternElement;
struct ParsedSubquery;
struct ParsedRegularQuery;

using ParsedExpressionPtr = std::unique_ptr<ParsedExpression>;

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

enum class ExpressionKind : uint8_t {
  kLiteral,            // literal_kind, value, bool_value
  kParameter,          // name: "x" for $x, "1" for $1
  kVariable,           // name
  kProperty,           // children[0] = object, name = property key; is_star for `n.*`
  kLabelTest,          // children[0] = object, labels (`n:A:B`)
  kFunctionCall,       // name (as written), distinct, children = arguments; argument_names
                       // is empty, or holds one entry per argument ("" when positional) if
                       // any argument is named: struct_pack(a := 1, b := 2)
  kCountStar,          // count(*); name = the function name as written
  kCast,               // children[0] = operand; `CAST(x AS T)`: type_text = "T";
                       // `CAST(x, 'T')`: children[1] = the type expression, type_text empty
  kCase,               // case_operand (null for searched CASE), children = when/then pairs
                       // [when0, then0, when1, then1, ...], case_else (nullable)
  kListLiteral,        // children = elements (an empty entry, [1,,3], is a NULL literal)
  kMapLiteral,         // keys[i] -> children[i]; `{a: 1}` (Kùzu binds it as a STRUCT)
  kListComprehension,  // [name IN children[0] WHERE where_expression | projection]
                       // (where_expression and projection are nullable)
  kQuantifier,         // quantifier(name IN children[0] WHERE where_expression)
  kLambda,             // lambda_parameters -> children[0]; `x -> x + 1`, `(x, y) -> x + y`
  kExistsSubquery,     // EXISTS { MATCH ... }: subquery
  kCountSubquery,      // COUNT { MATCH ... }: subquery
  kPatternPredicate,   // a path pattern used as a predicate: pattern
  kUnary,              // unary_op applied to children[0]
  kBinary,             // children[0] binary_ops[0] children[1] binary_ops[1] children[2] ...:
                       // a left-associative run of operators of one precedence level, such as
                       // 1 - 2 + 3 ((1 - 2) + 3), kept as one node so that a long run (a sum
                       // of ten thousand terms) adds one level to the tree, not one per term
  kSubscript,          // children[0][children[1]]
  kSlice,              // children[0][slice_begin : slice_end] (either bound nullable)
};

enum class LiteralKind : uint8_t {
  kInteger,  // value = decimal digits, with a leading '-' when written as -123
  kDouble,   // value = the literal as written (e.g. "1.5e-3", "-.5")
  kString,   // value = the decoded string
  kBoolean,  // bool_value
  kNull,
};

enum class UnaryOp : uint8_t {
  kNot,
  kNegate,     // -x (a minus directly in front of a number literal is folded into it)
  kPlus,       // +x (no-op)
  kFactorial,  // x!
  kIsNull,     // x IS NULL
  kIsNotNull,  // x IS NOT NULL
};

enum class BinaryOp : uint8_t {
  kOr,
  kXor,
  kAnd,
  kEqual,
  kNotEqual,
  kLessThan,
  kLessEqual,
  kGreaterThan,
  kGreaterEqual,
  kBitwiseOr,
  kBitwiseAnd,
  kShiftLeft,
  kShiftRight,
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kModulo,
  kPower,
  kIn,
  kStartsWith,
  kEndsWith,
  kContains,
  kRegexMatch,  // =~
};

enum class QuantifierKind : uint8_t { kAll, kAny, kNone, kSingle };

struct ParsedExpression {
  ParsedExpression();
  ~ParsedExpression();
  ParsedExpression(ParsedExpression&&) noexcept;
  ParsedExpression& operator=(ParsedExpression&&) noexcept;

  ExpressionKind kind = ExpressionKind::kLiteral;
  int32_t line = 0;
  int32_t column = 0;
  // The levels of the tree from this node down to its deepest leaf (1 for a leaf), counting
  // the expressions inside EXISTS / COUNT subqueries and pattern predicates. The parser
  // refuses an expression deeper than kMaxNestingDepth (parser.h), so that every later
  // recursive walk over it (binding, planning, evaluation, destruction) stays within a small
  // stack.
  int32_t depth = 1;
  // The source text of the whole expression as written (whitespace and comments included),
  // e.g. "a.name" or "count( * )". Kùzu names unaliased result columns by this text.
  std::string text;

  // kLiteral.
  LiteralKind literal_kind = LiteralKind::kNull;
  std::string value;
  bool bool_value = false;

  // kVariable, kParameter, kProperty (key), kFunctionCall / kCountStar (function name),
  // kListComprehension / kQuantifier (the iteration variable).
  std::string name;
  bool distinct = false;  // kFunctionCall: f(DISTINCT x)
  bool is_star = false;   // kProperty: n.*
  UnaryOp unary_op = UnaryOp::kNot;
  std::vector<BinaryOp> binary_ops;  // kBinary: children.size() - 1 operators
  QuantifierKind quantifier = QuantifierKind::kAll;
  std::string type_text;                       // kCast with AS
  std::vector<std::string> keys;               // kMapLiteral
  std::vector<std::string> argument_names;     // kFunctionCall
  std::vector<std::string> labels;             // kLabelTest
  std::vector<std::string> lambda_parameters;  // kLambda

  std::vector<ParsedExpressionPtr> children;
  ParsedExpressionPtr case_operand;               // kCase
  ParsedExpressionPtr case_else;                  // kCase
  ParsedExpressionPtr where_expression;           // kListComprehension, kQuantifier
  ParsedExpressionPtr projection;                 // kListComprehension
  ParsedExpressionPtr slice_begin;                // kSlice
  ParsedExpressionPtr slice_end;                  // kSlice
  std::unique_ptr<ParsedSubquery> subquery;       // kExistsSubquery, kCountSubquery
  std::unique_ptr<ParsedPatternElement> pattern;  // kPatternPredicate
};

// Calls `visit` on every direct child expression of `expression` (children and the non-null
// optional operands; not the expressions inside subqueries or patterns).
void ForEachChild(const ParsedExpression& expression,
                  const std::function<void(const ParsedExpression&)>& visit);

// `expr [AS alias]` in WITH / RETURN (and in recursive-comprehension projections).
struct ParsedProjectionItem {
  int32_t line = 0;
  int32_t column = 0;
  ParsedExpressionPtr expression;
  std::string alias;  // empty when there is no AS; the column is then named expression->text
  bool has_alias = false;
};

// ---------------------------------------------------------------------------------------------
// Patterns
// ---------------------------------------------------------------------------------------------

// `key: value` inside `{...}` of a node or relationship pattern.
struct ParsedPropertyEntry {
  int32_t line = 0;
  int32_t column = 0;
  std::string key;
  ParsedExpressionPtr value;
};

struct ParsedNodePattern {
  int32_t line = 0;
  int32_t column = 0;
  std::string variable;             // empty when anonymous
  std::vector<std::string> labels;  // `:A:B` and `:A|B` both list A, B
  std::vector<ParsedPropertyEntry> properties;
};

enum class RelDirection : uint8_t {
  kRight,  // (a)-[]->(b)
  kLeft,   // (a)<-[]-(b)
  kBoth,   // (a)-[]-(b)
};

enum class RecursiveKind : uint8_t {
  kNone,                 // a single-hop relationship (no '*')
  kVariableLength,       // *, *2, *1..3
  kShortest,             // * SHORTEST
  kAllShortest,          // * ALL SHORTEST
  kWeightedShortest,     // * WSHORTEST(weight_property)
  kAllWeightedShortest,  // * ALL WSHORTEST(weight_property)
  kTrail,                // * TRAIL
  kAcyclic,              // * ACYCLIC
};

struct ParsedRelPattern {
  ParsedRelPattern();
  ~ParsedRelPattern();
  ParsedRelPattern(ParsedRelPattern&&) noexcept;
  ParsedRelPattern& operator=(ParsedRelPattern&&) noexcept;

  int32_t line = 0;
  int32_t column = 0;
  std::string variable;            // empty when anonymous
  std::vector<std::string> types;  // `:R|S` and `:R|:S` both list R, S
  RelDirection direction = RelDirection::kBoth;
  std::vector<ParsedPropertyEntry> properties;

  // Variable-length relationships (recursive_kind != kNone).
  RecursiveKind recursive_kind = RecursiveKind::kNone;
  std::string weight_property;  // kWeightedShortest, kAllWeightedShortest
  // Bounds as written (decimal digits); empty when not given. `*2` sets both to "2",
  // `*..3` only the upper bound, `*1..` only the lower one, `*` neither.
  std::string lower_bound;
  std::string upper_bound;
  // Kùzu's recursive comprehension: `*1..3 (r, n | WHERE pred | {rel items}, {node items})`.
  bool has_comprehension = false;
  std::string comprehension_rel_variable;
  std::string comprehension_node_variable;
  ParsedExpressionPtr comprehension_where;  // nullable
  bool has_comprehension_projection = false;
  std::vector<ParsedProjectionItem> rel_projection;
  std::vector<ParsedProjectionItem> node_projection;
};

// One comma-separated part of a pattern: `p = (a)-[r]->(b)<-[s]-(c)`.
// rels[i] connects nodes[i] and nodes[i + 1]; nodes is never empty.
struct ParsedPatternElement {
  int32_t line = 0;
  int32_t column = 0;
  std::string path_variable;  // empty when the path is not named
  std::vector<ParsedNodePattern> nodes;
  std::vector<ParsedRelPattern> rels;
};

// Kùzu's join-order hint: `HINT (a JOIN e) JOIN b`, `HINT a MULTI_JOIN b MULTI_JOIN c`.
// A leaf has a variable and no children; an inner node joins its children.
struct ParsedJoinHint {
  int32_t line = 0;
  int32_t column = 0;
  std::string variable;
  bool multi_join = false;
  std::vector<std::unique_ptr<ParsedJoinHint>> children;
};

// The body of EXISTS { MATCH ... } and COUNT { MATCH ... }.
struct ParsedSubquery {
  int32_t line = 0;
  int32_t column = 0;
  std::vector<ParsedPatternElement> patterns;
  ParsedExpressionPtr where;             // nullable
  std::unique_ptr<ParsedJoinHint> hint;  // nullable
};

// ---------------------------------------------------------------------------------------------
// Projections (WITH / RETURN bodies)
// ---------------------------------------------------------------------------------------------

struct ParsedSortItem {
  int32_t line = 0;
  int32_t column = 0;
  ParsedExpressionPtr expression;
  bool descending = false;
};

struct ParsedProjection {
  int32_t line = 0;
  int32_t column = 0;
  bool distinct = false;
  bool star = false;  // `RETURN *` / `WITH *, x AS y` (items hold the explicit ones)
  std::vector<ParsedProjectionItem> items;
  std::vector<ParsedSortItem> order_by;
  ParsedExpressionPtr skip;   // nullable
  ParsedExpressionPtr limit;  // nullable
};

// ---------------------------------------------------------------------------------------------
// Shared DDL / COPY pieces
// ---------------------------------------------------------------------------------------------

// `name TYPE [DEFAULT expr] [PRIMARY KEY]`, also used by LOAD WITH HEADERS (name TYPE, ...).
struct ParsedColumnDefinition {
  int32_t line = 0;
  int32_t column = 0;
  std::string name;
  std::string type_text;              // as written, e.g. "INT64[]", "MAP(STRING, INT64)"
  ParsedExpressionPtr default_value;  // nullable
  bool primary_key = false;           // inline `PRIMARY KEY`
};

// `name = value` in COPY/LOAD options and REL TABLE ... WITH (...). A bare `name` has a null
// value (a flag meaning true).
struct ParsedOption {
  int32_t line = 0;
  int32_t column = 0;
  std::string name;
  ParsedExpressionPtr value;
};

// `FROM a TO b` of a relationship table.
struct ParsedFromTo {
  int32_t line = 0;
  int32_t column = 0;
  std::string from;
  std::string to;
};

enum class ScanSourceKind : uint8_t {
  kFiles,      // 'file' or ['f1', 'f2']
  kQuery,      // (MATCH ... RETURN ...)
  kParameter,  // $df
  kVariable,   // a name (e.g. a data frame known to the host)
};

struct ParsedScanSource {
  ParsedScanSource();
  ~ParsedScanSource();
  ParsedScanSource(ParsedScanSource&&) noexcept;
  ParsedScanSource& operator=(ParsedScanSource&&) noexcept;

  int32_t line = 0;
  int32_t column = 0;
  ScanSourceKind kind = ScanSourceKind::kFiles;
  std::vector<std::string> file_paths;        // kFiles
  bool file_list = false;                     // kFiles written as a [list]
  std::unique_ptr<ParsedRegularQuery> query;  // kQuery
  bool table_function = false;                // kQuery made of `FROM fn(...)` (COPY)
  std::string name;                           // kParameter, kVariable
};

// ---------------------------------------------------------------------------------------------
// Clauses
// ---------------------------------------------------------------------------------------------

enum class ClauseKind : uint8_t {
  kMatch,     // ParsedMatchClause (MATCH and OPTIONAL MATCH)
  kUnwind,    // ParsedUnwindClause
  kCall,      // ParsedCallClause (in-query CALL fn(...))
  kLoadFrom,  // ParsedLoadFromClause
  kCreate,    // ParsedCreateClause
  kMerge,     // ParsedMergeClause
  kSet,       // ParsedSetClause
  kDelete,    // ParsedDeleteClause
  kRemove,    // ParsedRemoveClause
  kWith,      // ParsedWithClause
  kReturn,    // ParsedReturnClause
};

struct ParsedClause {
  explicit ParsedClause(ClauseKind k) : kind(k) {}
  virtual ~ParsedClause() = default;

  template <typename T>
  const T& As() const {
    return static_cast<const T&>(*this);
  }
  template <typename T>
  T& As() {
    return static_cast<T&>(*this);
  }

  ClauseKind kind;
  int32_t line = 0;
  int32_t column = 0;
};

struct ParsedMatchClause : ParsedClause {
  ParsedMatchClause() : ParsedClause(ClauseKind::kMatch) {}
  bool optional = false;
  std::vector<ParsedPatternElement> patterns;
  ParsedExpressionPtr where;             // nullable
  std::unique_ptr<ParsedJoinHint> hint;  // nullable
};

struct ParsedUnwindClause : ParsedClause {
  ParsedUnwindClause() : ParsedClause(ClauseKind::kUnwind) {}
  ParsedExpressionPtr expression;
  std::string alias;
};

// `YIELD name [AS alias]` of an in-query CALL.
struct ParsedYieldItem {
  int32_t line = 0;
  int32_t column = 0;
  std::string name;
  std::string alias;  // empty when there is no AS
};

struct ParsedCallClause : ParsedClause {
  ParsedCallClause() : ParsedClause(ClauseKind::kCall) {}
  ParsedExpressionPtr function;  // kFunctionCall
  std::vector<ParsedYieldItem> yield_items;
  ParsedExpressionPtr where;  // nullable
};

struct ParsedLoadFromClause : ParsedClause {
  ParsedLoadFromClause() : ParsedClause(ClauseKind::kLoadFrom) {}
  bool has_headers = false;  // LOAD WITH HEADERS (name TYPE, ...) FROM ...
  std::vector<ParsedColumnDefinition> headers;
  ParsedScanSource source;
  std::vector<ParsedOption> options;
  ParsedExpressionPtr where;  // nullable
};

struct ParsedCreateClause : ParsedClause {
  ParsedCreateClause() : ParsedClause(ClauseKind::kCreate) {}
  std::vector<ParsedPatternElement> patterns;
};

// One SET item. `target` is a kProperty expression (`n.p = value`) or, for a label set
// (`SET n:Label`), a kLabelTest expression with a null value. Kùzu's `SET n = {a: 1, b: 2}` is
// expanded into one property item per map entry (their targets' text is synthesized: "n.a").
struct ParsedSetItem {
  int32_t line = 0;
  int32_t column = 0;
  ParsedExpressionPtr target;
  ParsedExpressionPtr value;  // nullable for label sets
};

struct ParsedMergeClause : ParsedClause {
  ParsedMergeClause() : ParsedClause(ClauseKind::kMerge) {}
  std::vector<ParsedPatternElement> patterns;  // Kùzu allows MERGE (a), (b)
  std::vector<ParsedSetItem> on_match;         // ON MATCH SET ...
  std::vector<ParsedSetItem> on_create;        // ON CREATE SET ...
};

struct ParsedSetClause : ParsedClause {
  ParsedSetClause() : ParsedClause(ClauseKind::kSet) {}
  std::vector<ParsedSetItem> items;
};

struct ParsedDeleteClause : ParsedClause {
  ParsedDeleteClause() : ParsedClause(ClauseKind::kDelete) {}
  bool detach = false;
  std::vector<ParsedExpressionPtr> expressions;
};

// REMOVE n.prop, m:Label: items are kProperty or kLabelTest expressions.
struct ParsedRemoveClause : ParsedClause {
  ParsedRemoveClause() : ParsedClause(ClauseKind::kRemove) {}
  std::vector<ParsedExpressionPtr> items;
};

struct ParsedWithClause : ParsedClause {
  ParsedWithClause() : ParsedClause(ClauseKind::kWith) {}
  ParsedProjection projection;
  ParsedExpressionPtr where;  // nullable
};

struct ParsedReturnClause : ParsedClause {
  ParsedReturnClause() : ParsedClause(ClauseKind::kReturn) {}
  ParsedProjection projection;
};

// ---------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------

// One query without UNION: the clauses in source order. The parser guarantees Kùzu's shape:
// within each part reading clauses (MATCH, UNWIND, CALL, LOAD FROM) come before updating
// clauses (CREATE, MERGE, SET, DELETE, REMOVE); parts are separated by WITH; the query ends
// with RETURN, or with updating clauses.
struct ParsedSingleQuery {
  int32_t line = 0;
  int32_t column = 0;
  std::vector<std::unique_ptr<ParsedClause>> clauses;
};

struct ParsedRegularQuery {
  int32_t line = 0;
  int32_t column = 0;
  std::vector<ParsedSingleQuery> queries;  // at least one
  // union_all[i] tells whether queries[i] and queries[i + 1] are joined by UNION ALL.
  std::vector<bool> union_all;
};

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

enum class StatementKind : uint8_t {
  kQuery,            // ParsedQueryStatement
  kCreateNodeTable,  // ParsedCreateNodeTable
  kCreateRelTable,   // ParsedCreateRelTable
  kCreateSequence,   // ParsedCreateSequence
  kDropTable,        // ParsedDrop
  kDropSequence,     // ParsedDrop
  kAlterTable,       // ParsedAlterTable
  kCopyFrom,         // ParsedCopyFrom
  kCopyTo,           // ParsedCopyTo
  kTransaction,      // ParsedTransaction (BEGIN TRANSACTION [READ ONLY], COMMIT, ROLLBACK)
  kCheckpoint,       // ParsedStatement (no fields)
  kStandaloneCall,   // ParsedStandaloneCall: CALL option = value
  kCallFunction,     // ParsedCallFunction: CALL fn(...) on its own
  kCommentOn,        // ParsedCommentOn: COMMENT ON TABLE name IS 'text'
  kExtension,        // ParsedExtension: INSTALL / UNINSTALL / UPDATE / FORCE INSTALL name
  kCreateType,       // ParsedCreateType: CREATE TYPE name AS type
  kCreateMacro,      // ParsedCreateMacro: CREATE MACRO name(params) AS expression
  kExportDatabase,   // ParsedPortDatabase: EXPORT DATABASE 'dir' [(options)]
  kImportDatabase,   // ParsedPortDatabase: IMPORT DATABASE 'dir'
  kDropMacro,        // ParsedDrop: DROP MACRO [IF EXISTS] name
};

struct ParsedStatement {
  explicit ParsedStatement(StatementKind k) : kind(k) {}
  virtual ~ParsedStatement() = default;

  template <typename T>
  const T& As() const {
    return static_cast<const T&>(*this);
  }
  template <typename T>
  T& As() {
    return static_cast<T&>(*this);
  }

  StatementKind kind;
  bool explain = false;  // EXPLAIN prefix
  bool profile = false;  // PROFILE prefix
  int32_t line = 0;
  int32_t column = 0;
  // The statement's source text (without the EXPLAIN/PROFILE prefix and the trailing ';').
  std::string text;
  // The name, as written, of every function the statement calls anywhere (each name once):
  // what the service's access modes look at (main/request.h) without walking the tree.
  std::vector<std::string> function_names;
  // Whether it reads or writes a file of the server's anywhere (COPY FROM a file, COPY TO,
  // LOAD FROM): a service allows that to its admins only (main/request.h).
  bool names_server_files = false;
};

struct ParsedQueryStatement : ParsedStatement {
  ParsedQueryStatement() : ParsedStatement(StatementKind::kQuery) {}
  ParsedRegularQuery query;
};

struct ParsedCreateNodeTable : ParsedStatement {
  ParsedCreateNodeTable() : ParsedStatement(StatementKind::kCreateNodeTable) {}
  std::string table_name;
  bool if_not_exists = false;
  std::vector<ParsedColumnDefinition> columns;
  // From `PRIMARY KEY (col)` or an inline `col TYPE PRIMARY KEY`; empty when not given.
  std::string primary_key;
  int32_t primary_key_line = 0;
  int32_t primary_key_column = 0;
  // CREATE NODE TABLE t AS <query>: the columns come from the query (columns is empty).
  std::unique_ptr<ParsedRegularQuery> as_query;
};

struct ParsedCreateRelTable : ParsedStatement {
  ParsedCreateRelTable() : ParsedStatement(StatementKind::kCreateRelTable) {}
  std::string table_name;
  bool if_not_exists = false;
  bool group = false;  // CREATE REL TABLE GROUP
  std::vector<ParsedFromTo> connections;
  std::vector<ParsedColumnDefinition> columns;
  // MANY_MANY, MANY_ONE, ONE_MANY or ONE_ONE as written (any case); empty when not given.
  std::string multiplicity;
  std::vector<ParsedOption> options;             // WITH (storage_direction = 'fwd')
  std::unique_ptr<ParsedRegularQuery> as_query;  // ... AS <query>
};

struct ParsedCreateSequence : ParsedStatement {
  ParsedCreateSequence() : ParsedStatement(StatementKind::kCreateSequence) {}
  std::string name;
  bool if_not_exists = false;
  // Integer options as written, with a leading '-' if negative; empty when not given.
  std::string start_value;    // START [WITH] n
  std::string increment;      // INCREMENT [BY] n
  std::string min_value;      // MINVALUE n
  std::string max_value;      // MAXVALUE n
  bool no_min_value = false;  // NO MINVALUE
  bool no_max_value = false;  // NO MAXVALUE
  bool cycle = false;         // CYCLE (NO CYCLE leaves it false)
};

// CREATE TYPE name AS type: a name for a type (type_text as written).
struct ParsedCreateType : ParsedStatement {
  ParsedCreateType() : ParsedStatement(StatementKind::kCreateType) {}
  std::string name;
  std::string type_text;
};

// CREATE MACRO name(a, b := 3) AS expression: a scalar macro. The parameters with a default
// (`name := expression`) follow the ones without.
struct ParsedCreateMacro : ParsedStatement {
  ParsedCreateMacro() : ParsedStatement(StatementKind::kCreateMacro) {}
  std::string name;
  std::vector<std::string> parameters;  // without defaults
  std::vector<std::pair<std::string, ParsedExpressionPtr>> defaults;
  ParsedExpressionPtr body;
};

// DROP TABLE / DROP SEQUENCE (see kind).
struct ParsedCommentOn : ParsedStatement {
  ParsedCommentOn() : ParsedStatement(StatementKind::kCommentOn) {}
  std::string table;
  std::string comment;
};

// Kùzu's extension statements. QuiverDB has the features of the extensions it has built in:
// INSTALL / LOAD of one of those does nothing; the others fail with NOT_SUPPORTED when run.
struct ParsedExtension : ParsedStatement {
  ParsedExtension() : ParsedStatement(StatementKind::kExtension) {}
  std::string action;  // "INSTALL", "UNINSTALL", "UPDATE", "FORCE INSTALL", "LOAD"
  std::string name;
};

struct ParsedDrop : ParsedStatement {
  explicit ParsedDrop(StatementKind k) : ParsedStatement(k) {}
  std::string name;
  bool if_exists = false;
};

enum class AlterKind : uint8_t {
  kAddProperty,     // ADD [IF NOT EXISTS] column TYPE [DEFAULT expr]: column
  kDropProperty,    // DROP [IF EXISTS] name: property_name
  kRenameTable,     // RENAME TO new_name
  kRenameProperty,  // RENAME property_name TO new_name
  kAddFromTo,       // ADD [IF NOT EXISTS] FROM a TO b: connection
  kDropFromTo,      // DROP [IF EXISTS] FROM a TO b: connection
};

struct ParsedAlterTable : ParsedStatement {
  ParsedAlterTable() : ParsedStatement(StatementKind::kAlterTable) {}
  std::string table_name;
  AlterKind alter_kind = AlterKind::kAddProperty;
  bool if_exists = false;      // DROP ... IF EXISTS
  bool if_not_exists = false;  // ADD ... IF NOT EXISTS
  ParsedColumnDefinition column;
  std::string property_name;
  std::string new_name;
  ParsedFromTo connection;
};

struct ParsedCopyFrom : ParsedStatement {
  ParsedCopyFrom() : ParsedStatement(StatementKind::kCopyFrom) {}
  std::string table_name;
  std::vector<std::string> column_names;  // COPY t (a, b) FROM ...
  bool has_column_list = false;           // a list was given, perhaps empty: COPY t () FROM
  bool by_column = false;                 // COPY t FROM ("a.npy", ...) BY COLUMN
  ParsedScanSource source;
  std::vector<ParsedOption> options;
};

struct ParsedCopyTo : ParsedStatement {
  ParsedCopyTo() : ParsedStatement(StatementKind::kCopyTo) {}
  ParsedRegularQuery query;
  std::string table_name;  // COPY <table> TO: the table's rows instead of `query`
  std::string file_path;
  std::vector<ParsedOption> options;
};

// EXPORT DATABASE 'dir' [(FORMAT = 'csv', HEADER = true, ...)] and IMPORT DATABASE 'dir' (see
// kind; IMPORT has no options).
struct ParsedPortDatabase : ParsedStatement {
  explicit ParsedPortDatabase(StatementKind k) : ParsedStatement(k) {}
  std::string path;
  std::vector<ParsedOption> options;
};

enum class TransactionAction : uint8_t { kBeginReadWrite, kBeginReadOnly, kCommit, kRollback };

struct ParsedTransaction : ParsedStatement {
  explicit ParsedTransaction(TransactionAction a)
      : ParsedStatement(StatementKind::kTransaction), action(a) {}
  TransactionAction action;
};

// CALL threads = 4, CALL auto_checkpoint = false, ...
struct ParsedStandaloneCall : ParsedStatement {
  ParsedStandaloneCall() : ParsedStatement(StatementKind::kStandaloneCall) {}
  std::string option_name;
  ParsedExpressionPtr value;
};

// CALL show_tables() with nothing after it.
struct ParsedCallFunction : ParsedStatement {
  ParsedCallFunction() : ParsedStatement(StatementKind::kCallFunction) {}
  ParsedExpressionPtr function;  // kFunctionCall
};

// ---------------------------------------------------------------------------------------------
// Debug dumps (used by tests and logs). Expressions print as fully parenthesized prefix forms,
// e.g. "(+ 1 (* 2 3))"; the rest prints as canonical Cypher-like text.
// ---------------------------------------------------------------------------------------------

std::string ToString(const ParsedExpression& expression);
std::string ToString(const ParsedPatternElement& pattern);
std::string ToString(const ParsedRegularQuery& query);
std::string ToString(const ParsedStatement& statement);

// A string literal that reads back as `value` ('it\'s'), and a name in backticks that reads
// back as `name` (a backtick inside doubled): for statements made as text (EXPORT DATABASE).
std::string QuoteString(const std::string& value);
std::string QuoteName(std::string_view name);

const char* BinaryOpName(BinaryOp op);  // "+", "AND", "STARTS WITH", ...
const char* UnaryOpName(UnaryOp op);    // "NOT", "-", "IS NULL", ...

}  // namespace graphdb::parser
