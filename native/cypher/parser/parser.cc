// Statements, clauses and patterns of the recursive-descent parser (see parser.h), plus the
// token helpers shared with parser_expression.cc.
#include "cypher/parser/parser.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "common/stack_guard.h"
#include "common/status.h"
#include "cypher/parser/lexer.h"
#include "cypher/parser/parser_impl.h"
#include "cypher/parser/syntax_error.h"

namespace graphdb::parser {

std::vector<std::unique_ptr<ParsedStatement>> ParseStatements(std::string_view text) {
  internal::Parser parser(text, Tokenize(text));
  return parser.ParseAll();
}

ParsedExpressionPtr ParseExpression(std::string_view text) {
  internal::Parser parser(text, Tokenize(text));
  return parser.ParseWholeExpression();
}

std::vector<std::string> ExpressionFunctionNames(std::string_view text) {
  internal::Parser parser(text, Tokenize(text));
  parser.ParseWholeExpression();
  return parser.TakeFunctionNames();
}

namespace internal {

std::string ToUpper(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

Parser::Parser(std::string_view text, std::vector<Token> tokens)
    : text_(text), tokens_(std::move(tokens)), closing_(tokens_.size(), tokens_.size()) {
  // Each bracket's partner, in one pass: lookahead over a bracketed group is then linear.
  std::vector<size_t> open;
  for (size_t i = 0; i < tokens_.size(); ++i) {
    switch (tokens_[i].kind) {
      case TokenKind::kLeftParen:
      case TokenKind::kLeftBracket:
      case TokenKind::kLeftBrace: open.push_back(i); break;
      case TokenKind::kRightParen:
      case TokenKind::kRightBracket:
      case TokenKind::kRightBrace:
        if (!open.empty()) {
          closing_[open.back()] = i;
          open.pop_back();
        }
        break;
      default: break;
    }
  }
}

Parser::ScopedContext::ScopedContext(Parser* parser, bool stop_at_pipe, bool allow_label_test)
    : parser_(parser), saved_stop_at_pipe_(parser->stop_at_pipe_),
      saved_allow_label_test_(parser->allow_label_test_) {
  parser->stop_at_pipe_ = stop_at_pipe;
  parser->allow_label_test_ = allow_label_test;
}

Parser::ScopedContext::~ScopedContext() {
  parser_->stop_at_pipe_ = saved_stop_at_pipe_;
  parser_->allow_label_test_ = saved_allow_label_test_;
}

Parser::DepthGuard::DepthGuard(Parser* parser) : parser_(parser) {
  CheckStackDepth();
  if (parser_->depth_ >= kMaxNestingDepth) {
    parser_->FailAt(parser_->Current(), "the query is nested too deeply (more than " +
                                            std::to_string(kMaxNestingDepth) + " levels)");
  }
  ++parser_->depth_;
}

Parser::DepthGuard::~DepthGuard() { --parser_->depth_; }

// ---------------------------------------------------------------------------------------------
// Token helpers
// ---------------------------------------------------------------------------------------------

const Token& Parser::Peek(size_t ahead) const {
  size_t index = pos_ + ahead;
  return index < tokens_.size() ? tokens_[index] : tokens_.back();
}

bool IsKeyword(const Token& token, std::string_view keyword) {
  if (token.kind != TokenKind::kIdentifier || token.text.size() != keyword.size()) return false;
  for (size_t i = 0; i < keyword.size(); ++i) {
    char c = token.text[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (c != keyword[i]) return false;
  }
  return true;
}

bool Parser::AtKeyword(std::string_view keyword, size_t ahead) const {
  return IsKeyword(Peek(ahead), keyword);
}

bool Parser::AtName(size_t ahead) const {
  TokenKind kind = Peek(ahead).kind;
  return kind == TokenKind::kIdentifier || kind == TokenKind::kQuotedIdentifier;
}

void Parser::Advance() {
  if (pos_ + 1 < tokens_.size()) ++pos_;
}

bool Parser::Accept(TokenKind kind) {
  if (!At(kind)) return false;
  Advance();
  return true;
}

bool Parser::AcceptKeyword(std::string_view keyword) {
  if (!AtKeyword(keyword)) return false;
  Advance();
  return true;
}

const Token& Parser::Expect(TokenKind kind, std::string_view expected) {
  if (!At(kind)) FailExpected(expected);
  const Token& token = Current();
  Advance();
  return token;
}

void Parser::ExpectKeyword(std::string_view keyword, std::string_view expected) {
  if (!AcceptKeyword(keyword)) FailExpected(expected);
}

std::string Parser::ExpectName(std::string_view expected) {
  if (!AtName()) FailExpected(expected);
  std::string name = Current().text;
  Advance();
  return name;
}

void Parser::FailAt(const Token& token, std::string_view detail) const {
  SyntaxErrorLocation location;
  location.statement_begin = statement_begin_;
  location.begin = token.begin;
  location.end = token.end;
  location.line = token.line;
  location.column = token.column;
  ThrowSyntaxError(text_, location, detail);
}

void Parser::FailExpected(std::string_view expected) const {
  FailAt(Current(), "expected " + std::string(expected));
}

std::string Parser::SourceFrom(size_t start_index) const {
  const Token& first = tokens_[start_index];
  uint32_t end = pos_ > start_index ? Previous().end : first.begin;
  return std::string(text_.substr(first.begin, end - first.begin));
}

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

std::vector<std::unique_ptr<ParsedStatement>> Parser::ParseAll() {
  std::vector<std::unique_ptr<ParsedStatement>> statements;
  while (true) {
    while (Accept(TokenKind::kSemicolon)) {
    }
    if (At(TokenKind::kEnd)) break;
    statement_begin_ = Current().begin;
    statements.push_back(ParseStatement());
    if (!AtEndOfStatement()) FailExpected("';' or end of input");
  }
  return statements;
}

ParsedExpressionPtr Parser::ParseWholeExpression() {
  statement_begin_ = Current().begin;
  expression_nodes_ = 0;
  auto expression = ParseExpression();
  if (!At(TokenKind::kEnd)) FailExpected("end of input after the expression");
  return expression;
}

std::unique_ptr<ParsedStatement> Parser::ParseStatement() {
  bool explain = AcceptKeyword("EXPLAIN");
  // EXPLAIN LOGICAL: the plan as EXPLAIN shows it (GraphDB has one plan form).
  if (explain && AtKeyword("LOGICAL") && !At(TokenKind::kEnd, 1) && !At(TokenKind::kSemicolon, 1)) {
    Advance();
  }
  bool profile = !explain && AcceptKeyword("PROFILE");
  size_t start = pos_;
  function_names_.clear();
  names_server_files_ = false;
  expression_nodes_ = 0;
  auto statement = ParseStatementBody();
  statement->function_names = std::move(function_names_);
  function_names_.clear();
  statement->names_server_files = names_server_files_;
  statement->explain = explain;
  statement->profile = profile;
  SetPosition(*statement, tokens_[start]);
  statement->text = SourceFrom(start);
  return statement;
}

std::unique_ptr<ParsedStatement> Parser::ParseStatementBody() {
  if (AtKeyword("CREATE")) {
    if (AtKeyword("NODE", 1)) return ParseCreateNodeTable();
    if (AtKeyword("REL", 1)) return ParseCreateRelTable();
    if (AtKeyword("SEQUENCE", 1)) return ParseCreateSequence();
    if (AtKeyword("TYPE", 1)) return ParseCreateType();
    if (AtKeyword("MACRO", 1)) return ParseCreateMacro();
  }
  if (AtKeyword("DROP")) return ParseDrop();
  if (AtKeyword("ALTER")) return ParseAlterTable();
  if (AtKeyword("COPY")) return ParseCopy();
  if ((AtKeyword("EXPORT") || AtKeyword("IMPORT")) && AtKeyword("DATABASE", 1)) {
    return ParsePortDatabase();
  }
  if (AtKeyword("BEGIN") || AtKeyword("COMMIT") || AtKeyword("ROLLBACK")) {
    return ParseTransaction();
  }
  if (AtKeyword("CHECKPOINT")) {
    Advance();
    return std::make_unique<ParsedStatement>(StatementKind::kCheckpoint);
  }
  if (AtKeyword("COMMENT") && AtKeyword("ON", 1)) return ParseCommentOn();
  if ((AtKeyword("INSTALL") || AtKeyword("UNINSTALL") || AtKeyword("UPDATE")) && AtName(1)) {
    return ParseExtension();
  }
  if (AtKeyword("FORCE") && AtKeyword("INSTALL", 1)) return ParseExtension();
  // LOAD [EXTENSION] name-or-path (LOAD FROM and LOAD WITH HEADERS read files).
  if (AtKeyword("LOAD") && (AtKeyword("EXTENSION", 1) || At(TokenKind::kString, 1) ||
                            (AtName(1) && !AtKeyword("FROM", 1) && !AtKeyword("WITH", 1)))) {
    return ParseExtension();
  }
  if (AtKeyword("CALL")) {
    if (auto call = ParseCall()) return call;
  }
  auto statement = std::make_unique<ParsedQueryStatement>();
  statement->query = std::move(*ParseRegularQuery());
  return statement;
}

// EXPORT DATABASE 'dir' [(options)], IMPORT DATABASE 'dir': both name a folder of the server's.
std::unique_ptr<ParsedStatement> Parser::ParsePortDatabase() {
  const bool export_db = AtKeyword("EXPORT");
  Advance();  // EXPORT / IMPORT
  Advance();  // DATABASE
  auto port = std::make_unique<ParsedPortDatabase>(export_db ? StatementKind::kExportDatabase
                                                             : StatementKind::kImportDatabase);
  names_server_files_ = true;
  port->path = Expect(TokenKind::kString, "the folder's path as a string").text;
  if (export_db && At(TokenKind::kLeftParen)) port->options = ParseOptions();
  return port;
}

// COMMENT ON TABLE name IS 'text'
std::unique_ptr<ParsedStatement> Parser::ParseCommentOn() {
  Advance();  // COMMENT
  Advance();  // ON
  ExpectKeyword("TABLE", "TABLE after COMMENT ON");
  auto comment = std::make_unique<ParsedCommentOn>();
  comment->table = ExpectName("a table name");
  ExpectKeyword("IS", "IS after the table name");
  comment->comment = Expect(TokenKind::kString, "the comment as a string").text;
  return comment;
}

// [FORCE] INSTALL name [FROM 'url'], UNINSTALL name, UPDATE name, LOAD [EXTENSION] name or
// 'path' (the extension's name from the file's: ".../libjson.kuzu_extension" is json).
std::unique_ptr<ParsedStatement> Parser::ParseExtension() {
  auto extension = std::make_unique<ParsedExtension>();
  if (AtKeyword("LOAD")) {
    Advance();
    AcceptKeyword("EXTENSION");
    extension->action = "LOAD";
    if (At(TokenKind::kString)) {
      std::string path = Current().text;
      Advance();
      size_t slash = path.find_last_of("/\\");
      std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
      name = name.substr(0, name.find('.'));
      if (name.rfind("lib", 0) == 0) name = name.substr(3);
      extension->name = name;
    } else {
      extension->name = ExpectName("an extension name or path");
    }
    return extension;
  }
  if (AcceptKeyword("FORCE")) {
    Advance();  // INSTALL
    extension->action = "FORCE INSTALL";
  } else {
    extension->action = Current().text;
    for (char& c : extension->action)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    Advance();
  }
  extension->name = ExpectName("an extension name");
  if (extension->action.find("INSTALL") != std::string::npos && AcceptKeyword("FROM")) {
    Expect(TokenKind::kString, "the extension repository as a string");
  }
  return extension;
}

bool Parser::ParseIfNotExists() {
  if (!AtKeyword("IF")) return false;
  Advance();
  ExpectKeyword("NOT", "NOT EXISTS after IF");
  ExpectKeyword("EXISTS", "EXISTS after IF NOT");
  return true;
}

bool Parser::ParseIfExists() {
  if (!AtKeyword("IF")) return false;
  Advance();
  ExpectKeyword("EXISTS", "EXISTS after IF");
  return true;
}

std::string Parser::ParseTypeText() {
  size_t start = pos_;
  if (!AtName()) FailExpected("a type name");
  Advance();
  if (At(TokenKind::kLeftParen)) {
    int depth = 0;
    do {
      if (At(TokenKind::kEnd) || At(TokenKind::kSemicolon)) {
        FailExpected("')' to close the type parameters");
      }
      if (At(TokenKind::kLeftParen)) ++depth;
      if (At(TokenKind::kRightParen)) --depth;
      Advance();
    } while (depth > 0);
  }
  while (Accept(TokenKind::kLeftBracket)) {
    Accept(TokenKind::kInteger);
    Expect(TokenKind::kRightBracket, "']' to close the list type");
  }
  return SourceFrom(start);
}

ParsedColumnDefinition Parser::ParseColumnDefinition(bool allow_default_and_key) {
  ParsedColumnDefinition column;
  SetPosition(column, Current());
  column.name = ExpectName("a column name");
  column.type_text = ParseTypeText();
  if (!allow_default_and_key) return column;
  if (AcceptKeyword("DEFAULT")) {
    if (!CanStartExpression()) FailExpected("an expression after DEFAULT");
    column.default_value = ParseExpression();
  }
  if (AtKeyword("PRIMARY")) {
    Advance();
    ExpectKeyword("KEY", "KEY after PRIMARY");
    column.primary_key = true;
  }
  return column;
}

ParsedFromTo Parser::ParseFromTo() {
  ParsedFromTo connection;
  SetPosition(connection, Current());
  ExpectKeyword("FROM", "FROM <table> TO <table>");
  connection.from = ExpectName("a node table name after FROM");
  ExpectKeyword("TO", "TO after FROM " + connection.from);
  connection.to = ExpectName("a node table name after TO");
  return connection;
}

std::vector<ParsedOption> Parser::ParseOptions() {
  std::vector<ParsedOption> options;
  Expect(TokenKind::kLeftParen, "'(' to start the options");
  do {
    ParsedOption option;
    SetPosition(option, Current());
    option.name = ExpectName("an option name");
    if (Accept(TokenKind::kEqual)) {
      if (!CanStartExpression()) FailExpected("a value after '='");
      option.value = ParseExpression();
    } else if (!At(TokenKind::kComma) && !At(TokenKind::kRightParen)) {
      if (!CanStartExpression()) FailExpected("'=', ',' or ')' after the option name");
      option.value = ParseExpression();
    }
    options.push_back(std::move(option));
  } while (Accept(TokenKind::kComma));
  Expect(TokenKind::kRightParen, "',' or ')' to close the options");
  return options;
}

ParsedScanSource Parser::ParseScanSource() {
  ParsedScanSource source;
  SetPosition(source, Current());
  // Files, or a name that may stand for one: the statement reads the server's files.
  if (!At(TokenKind::kLeftParen)) names_server_files_ = true;
  if (At(TokenKind::kString)) {
    source.kind = ScanSourceKind::kFiles;
    source.file_paths.push_back(Current().text);
    Advance();
  } else if (Accept(TokenKind::kLeftBracket)) {
    source.kind = ScanSourceKind::kFiles;
    source.file_list = true;
    do {
      source.file_paths.push_back(Expect(TokenKind::kString, "a file path string").text);
    } while (Accept(TokenKind::kComma));
    Expect(TokenKind::kRightBracket, "',' or ']' to close the file list");
  } else if (At(TokenKind::kLeftParen) && At(TokenKind::kString, 1)) {
    // ("a.npy", "b.npy"): the files of COPY ... BY COLUMN.
    Advance();
    source.kind = ScanSourceKind::kFiles;
    source.file_list = true;
    names_server_files_ = true;
    do {
      source.file_paths.push_back(Expect(TokenKind::kString, "a file path string").text);
    } while (Accept(TokenKind::kComma));
    Expect(TokenKind::kRightParen, "',' or ')' to close the file list");
  } else if (Accept(TokenKind::kLeftParen)) {
    source.kind = ScanSourceKind::kQuery;
    source.query = ParseRegularQuery();
    Expect(TokenKind::kRightParen, "')' to close the subquery");
  } else if (At(TokenKind::kParameter)) {
    source.kind = ScanSourceKind::kParameter;
    source.name = Current().text;
    Advance();
  } else if (AtName()) {
    source.kind = ScanSourceKind::kVariable;
    source.name = Current().text;
    Advance();
  } else {
    FailExpected("a file path, a list of file paths or a (subquery)");
  }
  return source;
}

std::string Parser::ParseSignedInteger(std::string_view expected) {
  bool negative = Accept(TokenKind::kMinus);
  if (!At(TokenKind::kInteger)) FailExpected(expected);
  std::string value = (negative ? "-" : "") + Current().text;
  Advance();
  return value;
}

std::unique_ptr<ParsedStatement> Parser::ParseCreateNodeTable() {
  auto create = std::make_unique<ParsedCreateNodeTable>();
  ExpectKeyword("CREATE", "CREATE");
  ExpectKeyword("NODE", "NODE");
  ExpectKeyword("TABLE", "TABLE after CREATE NODE");
  create->if_not_exists = ParseIfNotExists();
  create->table_name = ExpectName("a table name");
  if (AcceptKeyword("AS")) {
    create->as_query = ParseRegularQuery();
    return create;
  }
  const Token& open = Current();
  Expect(TokenKind::kLeftParen, "'(' to start the column definitions, or AS <query>");
  // The distinct columns named as the primary key (inline or in PRIMARY KEY(...)): one exactly.
  std::vector<std::string> keys;
  auto note_key = [&keys](const std::string& name) {
    std::string folded = name;
    for (char& c : folded) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (std::find(keys.begin(), keys.end(), folded) == keys.end()) keys.push_back(folded);
  };
  do {
    if (AtKeyword("PRIMARY") && AtKeyword("KEY", 1)) {
      Advance();
      Advance();
      Expect(TokenKind::kLeftParen, "'(' after PRIMARY KEY");
      const Token& key = Current();
      std::string name = ExpectName("the primary key column name");
      note_key(name);
      if (create->primary_key.empty()) {
        create->primary_key = name;
        create->primary_key_line = key.line;
        create->primary_key_column = key.column;
      }
      Expect(TokenKind::kRightParen, "')' after the primary key column name");
      continue;
    }
    const Token& column_token = Current();
    ParsedColumnDefinition column = ParseColumnDefinition(true);
    if (column.primary_key) note_key(column.name);
    if (column.primary_key && create->primary_key.empty()) {
      create->primary_key = column.name;
      create->primary_key_line = column_token.line;
      create->primary_key_column = column_token.column;
    }
    create->columns.push_back(std::move(column));
  } while (Accept(TokenKind::kComma));
  Expect(TokenKind::kRightParen, "',' or ')' after the column definition");
  if (keys.size() != 1) {
    throw GraphDBException(Status(ErrorCode::kQuerySyntax,
                                  keys.empty() ? "Parser exception: Can not find primary key."
                                               : "Parser exception: Found multiple primary keys.",
                                  open.line, open.column));
  }
  return create;
}

std::unique_ptr<ParsedStatement> Parser::ParseCreateRelTable() {
  auto create = std::make_unique<ParsedCreateRelTable>();
  ExpectKeyword("CREATE", "CREATE");
  ExpectKeyword("REL", "REL");
  ExpectKeyword("TABLE", "TABLE after CREATE REL");
  create->group = AcceptKeyword("GROUP");
  create->if_not_exists = ParseIfNotExists();
  create->table_name = ExpectName("a table name");
  Expect(TokenKind::kLeftParen, "'(' to start the relationship table definition");
  create->connections.push_back(ParseFromTo());
  while (Accept(TokenKind::kComma)) {
    if (AtKeyword("FROM") && AtName(1) && AtKeyword("TO", 2)) {
      create->connections.push_back(ParseFromTo());
    } else if (AtName() && (At(TokenKind::kComma, 1) || At(TokenKind::kRightParen, 1))) {
      if (!create->multiplicity.empty()) FailExpected("a column definition");
      create->multiplicity = Current().text;
      Advance();
    } else {
      if (!create->multiplicity.empty()) {
        FailExpected("')' after the relationship multiplicity");
      }
      create->columns.push_back(ParseColumnDefinition(true));
    }
  }
  Expect(TokenKind::kRightParen, "',' or ')' in the relationship table definition");
  if (AcceptKeyword("WITH")) create->options = ParseOptions();
  if (AcceptKeyword("AS")) create->as_query = ParseRegularQuery();
  return create;
}

std::unique_ptr<ParsedStatement> Parser::ParseCreateType() {
  auto create = std::make_unique<ParsedCreateType>();
  ExpectKeyword("CREATE", "CREATE");
  ExpectKeyword("TYPE", "TYPE");
  create->name = ExpectName("a type name");
  ExpectKeyword("AS", "AS before the type");
  create->type_text = ParseTypeText();
  return create;
}

std::unique_ptr<ParsedStatement> Parser::ParseCreateMacro() {
  auto create = std::make_unique<ParsedCreateMacro>();
  ExpectKeyword("CREATE", "CREATE");
  ExpectKeyword("MACRO", "MACRO");
  create->name = ExpectName("a macro name");
  Expect(TokenKind::kLeftParen, "'(' before the macro's parameters");
  if (!At(TokenKind::kRightParen)) {
    do {
      std::string name = ExpectName("a parameter name");
      if (At(TokenKind::kColon) && At(TokenKind::kEqual, 1) && Peek(0).end == Peek(1).begin) {
        Advance();
        Advance();
        if (!CanStartExpression()) FailExpected("an expression after ':='");
        create->defaults.emplace_back(std::move(name), ParseExpression());
      } else {
        if (!create->defaults.empty()) {
          FailAt(Current(), "a parameter without a default cannot follow one with a default");
        }
        create->parameters.push_back(std::move(name));
      }
    } while (Accept(TokenKind::kComma));
  }
  Expect(TokenKind::kRightParen, "',' or ')' to close the macro's parameters");
  ExpectKeyword("AS", "AS before the macro's expression");
  if (!CanStartExpression()) FailExpected("an expression");
  create->body = ParseExpression();
  return create;
}

std::unique_ptr<ParsedStatement> Parser::ParseCreateSequence() {
  auto create = std::make_unique<ParsedCreateSequence>();
  ExpectKeyword("CREATE", "CREATE");
  ExpectKeyword("SEQUENCE", "SEQUENCE");
  create->if_not_exists = ParseIfNotExists();
  create->name = ExpectName("a sequence name");
  bool seen_start = false, seen_increment = false, seen_min = false, seen_max = false,
       seen_cycle = false;
  auto once = [&](bool* seen, const char* option) {
    if (*seen) FailAt(Current(), std::string("duplicate ") + option + " option");
    *seen = true;
  };
  while (!AtEndOfStatement()) {
    if (AtKeyword("START")) {
      once(&seen_start, "START");
      Advance();
      AcceptKeyword("WITH");
      create->start_value = ParseSignedInteger("an integer after START [WITH]");
    } else if (AtKeyword("INCREMENT")) {
      once(&seen_increment, "INCREMENT");
      Advance();
      AcceptKeyword("BY");
      create->increment = ParseSignedInteger("an integer after INCREMENT [BY]");
    } else if (AtKeyword("MINVALUE")) {
      once(&seen_min, "MINVALUE");
      Advance();
      create->min_value = ParseSignedInteger("an integer after MINVALUE");
    } else if (AtKeyword("MAXVALUE")) {
      once(&seen_max, "MAXVALUE");
      Advance();
      create->max_value = ParseSignedInteger("an integer after MAXVALUE");
    } else if (AtKeyword("CYCLE")) {
      once(&seen_cycle, "CYCLE");
      Advance();
      create->cycle = true;
    } else if (AtKeyword("NO")) {
      if (AtKeyword("MINVALUE", 1)) {
        once(&seen_min, "MINVALUE");
        create->no_min_value = true;
      } else if (AtKeyword("MAXVALUE", 1)) {
        once(&seen_max, "MAXVALUE");
        create->no_max_value = true;
      } else if (AtKeyword("CYCLE", 1)) {
        once(&seen_cycle, "CYCLE");
      } else {
        Advance();
        FailExpected("MINVALUE, MAXVALUE or CYCLE after NO");
      }
      Advance();
      Advance();
    } else {
      FailExpected("a sequence option (START, INCREMENT, MINVALUE, MAXVALUE, CYCLE)");
    }
  }
  return create;
}

std::unique_ptr<ParsedStatement> Parser::ParseDrop() {
  ExpectKeyword("DROP", "DROP");
  StatementKind kind = StatementKind::kDropTable;
  if (AcceptKeyword("TABLE")) {
    kind = StatementKind::kDropTable;
  } else if (AcceptKeyword("SEQUENCE")) {
    kind = StatementKind::kDropSequence;
  } else if (AcceptKeyword("MACRO")) {
    kind = StatementKind::kDropMacro;
  } else {
    FailExpected("TABLE, SEQUENCE or MACRO after DROP");
  }
  auto drop = std::make_unique<ParsedDrop>(kind);
  drop->if_exists = ParseIfExists();
  drop->name = ExpectName(kind == StatementKind::kDropTable      ? "a table name"
                          : kind == StatementKind::kDropSequence ? "a sequence name"
                                                                 : "a macro name");
  return drop;
}

std::unique_ptr<ParsedStatement> Parser::ParseAlterTable() {
  auto alter = std::make_unique<ParsedAlterTable>();
  ExpectKeyword("ALTER", "ALTER");
  ExpectKeyword("TABLE", "TABLE after ALTER");
  alter->table_name = ExpectName("a table name");
  auto at_from_to = [this]() { return AtKeyword("FROM") && AtName(1) && AtKeyword("TO", 2); };
  if (AcceptKeyword("ADD")) {
    alter->if_not_exists = ParseIfNotExists();
    if (at_from_to()) {
      alter->alter_kind = AlterKind::kAddFromTo;
      alter->connection = ParseFromTo();
    } else {
      alter->alter_kind = AlterKind::kAddProperty;
      alter->column = ParseColumnDefinition(true);
      if (alter->column.primary_key) {
        FailAt(Previous(), "a primary key cannot be added with ALTER TABLE");
      }
    }
  } else if (AcceptKeyword("DROP")) {
    alter->if_exists = ParseIfExists();
    if (at_from_to()) {
      alter->alter_kind = AlterKind::kDropFromTo;
      alter->connection = ParseFromTo();
    } else {
      alter->alter_kind = AlterKind::kDropProperty;
      alter->property_name = ExpectName("a property name after DROP");
    }
  } else if (AcceptKeyword("RENAME")) {
    if (AtKeyword("TO") && !(AtKeyword("TO", 1) && AtName(2))) {
      Advance();
      alter->alter_kind = AlterKind::kRenameTable;
      alter->new_name = ExpectName("the new table name after RENAME TO");
    } else {
      alter->alter_kind = AlterKind::kRenameProperty;
      alter->property_name = ExpectName("a property name or TO after RENAME");
      ExpectKeyword("TO", "TO after RENAME " + alter->property_name);
      alter->new_name = ExpectName("the new property name after TO");
    }
  } else {
    FailExpected("ADD, DROP or RENAME after ALTER TABLE " + alter->table_name);
  }
  return alter;
}

std::unique_ptr<ParsedStatement> Parser::ParseCopy() {
  ExpectKeyword("COPY", "COPY");
  if (Accept(TokenKind::kLeftParen)) {
    auto copy = std::make_unique<ParsedCopyTo>();
    copy->query = std::move(*ParseRegularQuery());
    Expect(TokenKind::kRightParen, "')' to close the query of COPY ... TO");
    ExpectKeyword("TO", "TO after COPY (<query>)");
    names_server_files_ = true;
    copy->file_path = Expect(TokenKind::kString, "a file path string after TO").text;
    if (At(TokenKind::kLeftParen)) copy->options = ParseOptions();
    return copy;
  }
  std::string table = ExpectName("a table name or '(' after COPY");
  if (AcceptKeyword("TO")) {
    auto copy = std::make_unique<ParsedCopyTo>();
    copy->table_name = std::move(table);
    names_server_files_ = true;
    copy->file_path = Expect(TokenKind::kString, "a file path string after TO").text;
    if (At(TokenKind::kLeftParen)) copy->options = ParseOptions();
    return copy;
  }
  auto copy = std::make_unique<ParsedCopyFrom>();
  copy->table_name = std::move(table);
  if (Accept(TokenKind::kLeftParen)) {
    copy->has_column_list = true;
    if (!At(TokenKind::kRightParen)) {
      do {
        copy->column_names.push_back(ExpectName("a column name"));
      } while (Accept(TokenKind::kComma));
    }
    Expect(TokenKind::kRightParen, "',' or ')' after the column name");
  }
  ExpectKeyword("FROM", "FROM after COPY " + copy->table_name);
  if (AtName() && At(TokenKind::kLeftParen, 1)) {
    // `COPY t FROM table_info('person')`: the rows of a table function, read as the query
    // `CALL table_info('person') RETURN *`.
    copy->source.kind = ScanSourceKind::kQuery;
    copy->source.table_function = true;
    SetPosition(copy->source, Current());
    auto query = std::make_unique<ParsedRegularQuery>();
    SetPosition(*query, Current());
    ParsedSingleQuery single;
    SetPosition(single, Current());
    auto call = std::make_unique<ParsedCallClause>();
    SetPosition(*call, Current());
    call->function = ParseFunctionCall();
    auto ret = std::make_unique<ParsedReturnClause>();
    SetPosition(*ret, Current());
    ret->projection.star = true;
    single.clauses.push_back(std::move(call));
    single.clauses.push_back(std::move(ret));
    query->queries.push_back(std::move(single));
    copy->source.query = std::move(query);
  } else {
    copy->source = ParseScanSource();
  }
  if (AtKeyword("BY") && AtKeyword("COLUMN", 1)) {
    Advance();
    Advance();
    copy->by_column = true;
  }
  if (At(TokenKind::kLeftParen)) copy->options = ParseOptions();
  return copy;
}

std::unique_ptr<ParsedStatement> Parser::ParseTransaction() {
  if (AcceptKeyword("COMMIT")) {
    return std::make_unique<ParsedTransaction>(TransactionAction::kCommit);
  }
  if (AcceptKeyword("ROLLBACK")) {
    return std::make_unique<ParsedTransaction>(TransactionAction::kRollback);
  }
  ExpectKeyword("BEGIN", "BEGIN");
  ExpectKeyword("TRANSACTION", "TRANSACTION after BEGIN");
  if (AcceptKeyword("READ")) {
    if (AcceptKeyword("ONLY")) {
      return std::make_unique<ParsedTransaction>(TransactionAction::kBeginReadOnly);
    }
    ExpectKeyword("WRITE", "ONLY or WRITE after READ");
  }
  return std::make_unique<ParsedTransaction>(TransactionAction::kBeginReadWrite);
}

// CALL name = value, or CALL fn(...) alone. Returns null (consuming nothing) when the CALL
// starts a query instead.
std::unique_ptr<ParsedStatement> Parser::ParseCall() {
  if (AtName(1) && At(TokenKind::kEqual, 2)) {
    Advance();
    auto call = std::make_unique<ParsedStandaloneCall>();
    call->option_name = Current().text;
    Advance();
    Advance();
    if (!CanStartExpression()) FailExpected("a value after '='");
    call->value = ParseExpression();
    return call;
  }
  size_t start = pos_;
  auto clause = ParseCallClause();
  if (AtEndOfStatement() && clause->yield_items.empty() && !clause->where) {
    auto call = std::make_unique<ParsedCallFunction>();
    call->function = std::move(clause->function);
    return call;
  }
  pos_ = start;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Queries and clauses
// ---------------------------------------------------------------------------------------------

std::unique_ptr<ParsedRegularQuery> Parser::ParseRegularQuery() {
  DepthGuard depth(this);
  auto query = std::make_unique<ParsedRegularQuery>();
  SetPosition(*query, Current());
  query->queries.push_back(ParseSingleQuery());
  while (AcceptKeyword("UNION")) {
    query->union_all.push_back(AcceptKeyword("ALL"));
    query->queries.push_back(ParseSingleQuery());
  }
  return query;
}

bool Parser::AtReadingClause() const {
  return AtKeyword("MATCH") || (AtKeyword("OPTIONAL") && AtKeyword("MATCH", 1)) ||
         AtKeyword("UNWIND") || AtKeyword("CALL") || AtKeyword("LOAD");
}

bool Parser::AtUpdatingClause() const {
  return AtKeyword("CREATE") || AtKeyword("MERGE") || AtKeyword("SET") || AtKeyword("DELETE") ||
         (AtKeyword("DETACH") && AtKeyword("DELETE", 1)) || AtKeyword("REMOVE");
}

void Parser::CountQuerySteps(size_t steps, const Token& at) {
  query_steps_ += steps;
  if (query_steps_ > kMaxQuerySteps) {
    FailAt(at, "the query is too long (more than " + std::to_string(kMaxQuerySteps) +
                   " clauses and pattern relationships in one part of a UNION, counting its "
                   "subqueries)");
  }
}

size_t Parser::PatternSteps(const std::vector<ParsedPatternElement>& patterns) {
  size_t steps = 0;
  for (const auto& pattern : patterns) steps += pattern.rels.size();
  return steps;
}

ParsedSingleQuery Parser::ParseSingleQuery() {
  ParsedSingleQuery query;
  SetPosition(query, Current());
  // Each part of a UNION counts on its own; a query nested in this one counts on top of it.
  const size_t steps_before = query_steps_;
  bool part_has_updates = false;
  bool ended_with_return = false;
  while (true) {
    if (AtReadingClause() || AtUpdatingClause() || AtKeyword("WITH") || AtKeyword("RETURN")) {
      CountQuerySteps(1, Current());
    }
    if (AtReadingClause()) {
      if (part_has_updates) {
        FailExpected(
            "RETURN, WITH or an updating clause; a reading clause cannot follow an "
            "updating clause without WITH in between");
      }
      query.clauses.push_back(ParseReadingClause());
    } else if (AtUpdatingClause()) {
      query.clauses.push_back(ParseUpdatingClause());
      part_has_updates = true;
    } else if (AtKeyword("WITH")) {
      query.clauses.push_back(ParseWith());
      part_has_updates = false;
    } else if (AtKeyword("RETURN")) {
      query.clauses.push_back(ParseReturn());
      ended_with_return = true;
      break;
    } else {
      break;
    }
  }
  if (query.clauses.empty()) {
    FailExpected("a statement such as MATCH, RETURN, CREATE, COPY or ALTER");
  }
  if (!ended_with_return && !part_has_updates) {
    if (query.clauses.back()->kind == ClauseKind::kWith) {
      FailExpected("a clause after WITH; a query must end with RETURN or an updating clause");
    }
    FailExpected(
        "RETURN, WITH or another clause; a query must end with RETURN or an updating "
        "clause");
  }
  query_steps_ = steps_before;
  return query;
}

std::unique_ptr<ParsedClause> Parser::ParseReadingClause() {
  if (AtKeyword("UNWIND")) return ParseUnwind();
  if (AtKeyword("CALL")) return ParseCallClause();
  if (AtKeyword("LOAD")) return ParseLoadFrom();
  return ParseMatch();
}

std::unique_ptr<ParsedClause> Parser::ParseUpdatingClause() {
  if (AtKeyword("CREATE")) return ParseCreate();
  if (AtKeyword("MERGE")) return ParseMerge();
  if (AtKeyword("SET")) return ParseSet();
  if (AtKeyword("REMOVE")) return ParseRemove();
  return ParseDelete();
}

std::unique_ptr<ParsedClause> Parser::ParseMatch() {
  auto match = std::make_unique<ParsedMatchClause>();
  SetPosition(*match, Current());
  match->optional = AcceptKeyword("OPTIONAL");
  ExpectKeyword("MATCH", "MATCH");
  const Token& first = Current();
  match->patterns = ParsePattern();
  CountQuerySteps(PatternSteps(match->patterns), first);
  if (AcceptKeyword("WHERE")) {
    if (!CanStartExpression()) FailExpected("an expression after WHERE");
    match->where = ParseExpression();
  }
  if (AcceptKeyword("HINT")) match->hint = ParseJoinHint();
  return match;
}

std::unique_ptr<ParsedClause> Parser::ParseUnwind() {
  auto unwind = std::make_unique<ParsedUnwindClause>();
  SetPosition(*unwind, Current());
  ExpectKeyword("UNWIND", "UNWIND");
  if (!CanStartExpression()) FailExpected("an expression after UNWIND");
  unwind->expression = ParseExpression();
  ExpectKeyword("AS", "AS after the UNWIND expression");
  unwind->alias = ExpectName("a variable name after AS");
  return unwind;
}

std::unique_ptr<ParsedCallClause> Parser::ParseCallClause() {
  auto call = std::make_unique<ParsedCallClause>();
  SetPosition(*call, Current());
  ExpectKeyword("CALL", "CALL");
  if (!AtName() || !At(TokenKind::kLeftParen, 1)) {
    FailExpected("a function call such as table_info('t'), or option = value, after CALL");
  }
  call->function = ParseFunctionCall();
  if (AcceptKeyword("YIELD")) {
    do {
      ParsedYieldItem item;
      SetPosition(item, Current());
      item.name = ExpectName("a column name after YIELD");
      if (AcceptKeyword("AS")) item.alias = ExpectName("a variable name after AS");
      call->yield_items.push_back(std::move(item));
    } while (Accept(TokenKind::kComma));
  }
  if (AcceptKeyword("WHERE")) {
    if (!CanStartExpression()) FailExpected("an expression after WHERE");
    call->where = ParseExpression();
  }
  return call;
}

std::unique_ptr<ParsedClause> Parser::ParseLoadFrom() {
  auto load = std::make_unique<ParsedLoadFromClause>();
  SetPosition(*load, Current());
  ExpectKeyword("LOAD", "LOAD");
  if (AcceptKeyword("WITH")) {
    ExpectKeyword("HEADERS", "HEADERS after LOAD WITH");
    Expect(TokenKind::kLeftParen, "'(' to start the header definitions");
    load->has_headers = true;
    do {
      load->headers.push_back(ParseColumnDefinition(false));
    } while (Accept(TokenKind::kComma));
    Expect(TokenKind::kRightParen, "',' or ')' after the header definition");
  }
  ExpectKeyword("FROM", "FROM after LOAD");
  load->source = ParseScanSource();
  if (At(TokenKind::kLeftParen)) load->options = ParseOptions();
  if (AcceptKeyword("WHERE")) {
    if (!CanStartExpression()) FailExpected("an expression after WHERE");
    load->where = ParseExpression();
  }
  return load;
}

std::unique_ptr<ParsedClause> Parser::ParseCreate() {
  auto create = std::make_unique<ParsedCreateClause>();
  SetPosition(*create, Current());
  ExpectKeyword("CREATE", "CREATE");
  if (!At(TokenKind::kLeftParen) && !(AtName() && At(TokenKind::kEqual, 1))) {
    FailExpected("a pattern, or NODE TABLE, REL TABLE or SEQUENCE, after CREATE");
  }
  create->patterns = ParsePattern();
  return create;
}

std::unique_ptr<ParsedClause> Parser::ParseMerge() {
  auto merge = std::make_unique<ParsedMergeClause>();
  SetPosition(*merge, Current());
  ExpectKeyword("MERGE", "MERGE");
  const Token& first = Current();
  merge->patterns = ParsePattern();
  CountQuerySteps(PatternSteps(merge->patterns), first);
  while (AtKeyword("ON")) {
    Advance();
    std::vector<ParsedSetItem>* items = nullptr;
    if (AcceptKeyword("MATCH")) {
      items = &merge->on_match;
    } else if (AcceptKeyword("CREATE")) {
      items = &merge->on_create;
    } else {
      FailExpected("MATCH or CREATE after ON");
    }
    ExpectKeyword("SET", "SET after ON MATCH / ON CREATE");
    ParseSetItems(items);
  }
  return merge;
}

std::unique_ptr<ParsedClause> Parser::ParseSet() {
  auto set = std::make_unique<ParsedSetClause>();
  SetPosition(*set, Current());
  ExpectKeyword("SET", "SET");
  ParseSetItems(&set->items);
  return set;
}

void Parser::ParseSetItems(std::vector<ParsedSetItem>* items) {
  do {
    const Token& first = Current();
    if (!CanStartExpression()) FailExpected("a property such as n.name to set");
    auto target = ParsePropertyOrLabels();
    if (target->kind == ExpressionKind::kLabelTest && !At(TokenKind::kEqual)) {
      ParsedSetItem item;
      SetPosition(item, first);
      item.target = std::move(target);
      items->push_back(std::move(item));
      continue;
    }
    if (target->kind == ExpressionKind::kVariable && At(TokenKind::kEqual) &&
        At(TokenKind::kLeftBrace, 1)) {
      // Kùzu: SET n = {a: 1, b: 2} sets each listed property.
      Advance();
      std::vector<ParsedPropertyEntry> entries = ParseProperties();
      for (auto& entry : entries) {
        auto variable = std::make_unique<ParsedExpression>();
        variable->kind = ExpressionKind::kVariable;
        variable->name = target->name;
        variable->text = target->text;
        variable->line = target->line;
        variable->column = target->column;
        auto property = std::make_unique<ParsedExpression>();
        property->kind = ExpressionKind::kProperty;
        property->name = entry.key;
        property->text = target->text + "." + entry.key;
        property->line = target->line;
        property->column = target->column;
        property->children.push_back(std::move(variable));
        property->depth = 2;
        ParsedSetItem item;
        item.line = entry.line;
        item.column = entry.column;
        item.target = std::move(property);
        item.value = std::move(entry.value);
        items->push_back(std::move(item));
      }
      continue;
    }
    if (target->kind != ExpressionKind::kProperty) {
      FailAt(first, "expected a property such as n.name on the left of '=' in SET");
    }
    Expect(TokenKind::kEqual, "'=' after the property to set");
    if (!CanStartExpression()) FailExpected("an expression after '='");
    ParsedSetItem item;
    SetPosition(item, first);
    item.target = std::move(target);
    item.value = ParseExpression();
    items->push_back(std::move(item));
  } while (Accept(TokenKind::kComma));
}

std::unique_ptr<ParsedClause> Parser::ParseDelete() {
  auto del = std::make_unique<ParsedDeleteClause>();
  SetPosition(*del, Current());
  del->detach = AcceptKeyword("DETACH");
  ExpectKeyword("DELETE", "DELETE");
  do {
    if (!CanStartExpression()) FailExpected("an expression to delete");
    del->expressions.push_back(ParseExpression());
  } while (Accept(TokenKind::kComma));
  return del;
}

std::unique_ptr<ParsedClause> Parser::ParseRemove() {
  auto remove = std::make_unique<ParsedRemoveClause>();
  SetPosition(*remove, Current());
  ExpectKeyword("REMOVE", "REMOVE");
  do {
    const Token& first = Current();
    if (!CanStartExpression()) FailExpected("a property or label to remove");
    auto item = ParsePropertyOrLabels();
    if (item->kind != ExpressionKind::kProperty && item->kind != ExpressionKind::kLabelTest) {
      FailAt(first, "expected a property such as n.name or a label such as n:Label to remove");
    }
    remove->items.push_back(std::move(item));
  } while (Accept(TokenKind::kComma));
  return remove;
}

std::unique_ptr<ParsedClause> Parser::ParseWith() {
  auto with = std::make_unique<ParsedWithClause>();
  SetPosition(*with, Current());
  ExpectKeyword("WITH", "WITH");
  ParseProjectionBody(&with->projection, "WITH");
  if (AcceptKeyword("WHERE")) {
    if (!CanStartExpression()) FailExpected("an expression after WHERE");
    with->where = ParseExpression();
  }
  return with;
}

std::unique_ptr<ParsedClause> Parser::ParseReturn() {
  auto ret = std::make_unique<ParsedReturnClause>();
  SetPosition(*ret, Current());
  ExpectKeyword("RETURN", "RETURN");
  ParseProjectionBody(&ret->projection, "RETURN");
  return ret;
}

void Parser::ParseProjectionBody(ParsedProjection* projection, std::string_view clause) {
  SetPosition(*projection, Current());
  projection->distinct = AcceptKeyword("DISTINCT");
  if (Accept(TokenKind::kStar)) {
    projection->star = true;
    while (Accept(TokenKind::kComma)) projection->items.push_back(ParseProjectionItem());
  } else {
    if (!CanStartExpression()) {
      FailExpected("an expression or '*' after " + std::string(clause) +
                   (projection->distinct ? " DISTINCT" : ""));
    }
    do {
      projection->items.push_back(ParseProjectionItem());
    } while (Accept(TokenKind::kComma));
  }
  if (AtKeyword("ORDER")) {
    Advance();
    ExpectKeyword("BY", "BY after ORDER");
    do {
      ParsedSortItem item;
      SetPosition(item, Current());
      if (!CanStartExpression()) FailExpected("an expression to order by");
      item.expression = ParseExpression();
      if (AcceptKeyword("DESC") || AcceptKeyword("DESCENDING")) {
        item.descending = true;
      } else if (!AcceptKeyword("ASC")) {
        AcceptKeyword("ASCENDING");
      }
      projection->order_by.push_back(std::move(item));
    } while (Accept(TokenKind::kComma));
  }
  if (AcceptKeyword("SKIP")) {
    if (!CanStartExpression()) FailExpected("an expression after SKIP");
    projection->skip = ParseExpression();
  }
  if (AcceptKeyword("LIMIT")) {
    if (!CanStartExpression()) FailExpected("an expression after LIMIT");
    projection->limit = ParseExpression();
  }
}

ParsedProjectionItem Parser::ParseProjectionItem() {
  ParsedProjectionItem item;
  SetPosition(item, Current());
  if (!CanStartExpression()) FailExpected("an expression");
  item.expression = ParseExpression();
  if (AcceptKeyword("AS")) {
    item.alias = ExpectName("an alias name after AS");
    item.has_alias = true;
  }
  return item;
}

std::unique_ptr<ParsedJoinHint> Parser::ParseJoinHint() {
  DepthGuard depth(this);
  auto left = ParseJoinHintTerm();
  while (true) {
    if (AtKeyword("JOIN")) {
      auto join = std::make_unique<ParsedJoinHint>();
      join->line = left->line;
      join->column = left->column;
      Advance();
      join->children.push_back(std::move(left));
      join->children.push_back(ParseJoinHintTerm());
      left = std::move(join);
    } else if (AtKeyword("MULTI_JOIN")) {
      auto join = std::make_unique<ParsedJoinHint>();
      join->line = left->line;
      join->column = left->column;
      join->multi_join = true;
      join->children.push_back(std::move(left));
      while (AcceptKeyword("MULTI_JOIN")) join->children.push_back(ParseJoinHintTerm());
      left = std::move(join);
    } else {
      return left;
    }
  }
}

std::unique_ptr<ParsedJoinHint> Parser::ParseJoinHintTerm() {
  if (Accept(TokenKind::kLeftParen)) {
    auto inner = ParseJoinHint();
    Expect(TokenKind::kRightParen, "')' to close the join hint group");
    return inner;
  }
  auto leaf = std::make_unique<ParsedJoinHint>();
  SetPosition(*leaf, Current());
  leaf->variable = ExpectName("a variable name in the join hint");
  return leaf;
}

// ---------------------------------------------------------------------------------------------
// Patterns
// ---------------------------------------------------------------------------------------------

std::vector<ParsedPatternElement> Parser::ParsePattern() {
  std::vector<ParsedPatternElement> patterns;
  do {
    patterns.push_back(ParsePatternPart());
  } while (Accept(TokenKind::kComma));
  return patterns;
}

ParsedPatternElement Parser::ParsePatternPart() {
  if (AtName() && At(TokenKind::kEqual, 1)) {
    const Token& first = Current();
    std::string path_variable = Current().text;
    Advance();
    Advance();
    ParsedPatternElement element = ParsePatternElement();
    element.path_variable = std::move(path_variable);
    SetPosition(element, first);
    return element;
  }
  return ParsePatternElement();
}

ParsedPatternElement Parser::ParsePatternElement() {
  DepthGuard depth(this);
  ParsedPatternElement element;
  SetPosition(element, Current());
  if (!At(TokenKind::kLeftParen)) FailExpected("'(' to start a node pattern");
  element.nodes.push_back(ParseNodePattern());
  while (AtRelationshipStart()) {
    element.rels.push_back(ParseRelPattern());
    if (!At(TokenKind::kLeftParen)) FailExpected("'(' to start a node pattern");
    element.nodes.push_back(ParseNodePattern());
  }
  return element;
}

bool Parser::AtRelationshipStart() const {
  return At(TokenKind::kMinus) || (At(TokenKind::kLess) && At(TokenKind::kMinus, 1));
}

ParsedNodePattern Parser::ParseNodePattern() {
  ParsedNodePattern node;
  SetPosition(node, Current());
  Expect(TokenKind::kLeftParen, "'(' to start a node pattern");
  if (AtName()) {
    node.variable = Current().text;
    Advance();
  }
  if (Accept(TokenKind::kColon)) {
    node.labels.push_back(ExpectName("a label name after ':'"));
    while (At(TokenKind::kColon) || At(TokenKind::kPipe)) {
      if (Accept(TokenKind::kPipe)) {
        Accept(TokenKind::kColon);
      } else {
        Advance();
      }
      node.labels.push_back(ExpectName("a label name"));
    }
  }
  if (At(TokenKind::kLeftBrace)) node.properties = ParseProperties();
  if (!At(TokenKind::kRightParen)) {
    if (node.labels.empty() && node.properties.empty()) {
      FailExpected(node.variable.empty() ? "a variable, ':' label, '{' properties or ')'"
                                         : "':' label, '{' properties or ')'");
    }
    FailExpected(node.properties.empty() ? "'{' properties or ')' to close the node pattern"
                                         : "')' to close the node pattern");
  }
  Advance();
  return node;
}

ParsedRelPattern Parser::ParseRelPattern() {
  ParsedRelPattern rel;
  SetPosition(rel, Current());
  bool left_arrow = Accept(TokenKind::kLess);
  Expect(TokenKind::kMinus, "'-' in the relationship pattern");
  if (Accept(TokenKind::kLeftBracket)) {
    if (AtName()) {
      rel.variable = Current().text;
      Advance();
    }
    if (Accept(TokenKind::kColon)) {
      rel.types.push_back(ExpectName("a relationship type name after ':'"));
      while (Accept(TokenKind::kPipe)) {
        Accept(TokenKind::kColon);
        rel.types.push_back(ExpectName("a relationship type name after '|'"));
      }
    }
    if (Accept(TokenKind::kStar)) ParseRecursiveDetail(&rel);
    if (At(TokenKind::kLeftBrace)) rel.properties = ParseProperties();
    if (!At(TokenKind::kRightBracket)) {
      FailExpected(rel.recursive_kind == RecursiveKind::kNone && rel.properties.empty()
                       ? "':' type, '*', '{' properties or ']' in the relationship pattern"
                       : "']' to close the relationship pattern");
    }
    Advance();
  }
  Expect(TokenKind::kMinus, "'-' to complete the relationship pattern");
  bool right_arrow = Accept(TokenKind::kGreater);
  if (left_arrow && right_arrow) {
    FailAt(Previous(), "a relationship pattern cannot point in both directions");
  }
  rel.direction = left_arrow    ? RelDirection::kLeft
                  : right_arrow ? RelDirection::kRight
                                : RelDirection::kBoth;
  return rel;
}

void Parser::ParseRecursiveDetail(ParsedRelPattern* rel) {
  rel->recursive_kind = RecursiveKind::kVariableLength;
  auto weighted = [&](RecursiveKind kind) {
    rel->recursive_kind = kind;
    Expect(TokenKind::kLeftParen, "'(' after WSHORTEST");
    rel->weight_property = ExpectName("a weight property name");
    Expect(TokenKind::kRightParen, "')' after the weight property");
  };
  if (AtKeyword("ALL") && AtKeyword("SHORTEST", 1)) {
    Advance();
    Advance();
    rel->recursive_kind = RecursiveKind::kAllShortest;
  } else if (AtKeyword("ALL") && AtKeyword("WSHORTEST", 1)) {
    Advance();
    Advance();
    weighted(RecursiveKind::kAllWeightedShortest);
  } else if (AcceptKeyword("SHORTEST")) {
    rel->recursive_kind = RecursiveKind::kShortest;
  } else if (AcceptKeyword("WSHORTEST")) {
    weighted(RecursiveKind::kWeightedShortest);
  } else if (AcceptKeyword("TRAIL")) {
    rel->recursive_kind = RecursiveKind::kTrail;
  } else if (AcceptKeyword("ACYCLIC")) {
    rel->recursive_kind = RecursiveKind::kAcyclic;
  }
  if (At(TokenKind::kInteger)) {
    rel->lower_bound = Current().text;
    Advance();
    if (Accept(TokenKind::kDotDot)) {
      if (At(TokenKind::kInteger)) {
        rel->upper_bound = Current().text;
        Advance();
      }
    } else {
      rel->upper_bound = rel->lower_bound;
    }
  } else if (Accept(TokenKind::kDotDot)) {
    if (At(TokenKind::kInteger)) {
      rel->upper_bound = Current().text;
      Advance();
    }
  }
  if (At(TokenKind::kLeftParen) && AtName(1) && At(TokenKind::kComma, 2)) {
    ParseRecursiveComprehension(rel);
  }
}

void Parser::ParseRecursiveComprehension(ParsedRelPattern* rel) {
  Expect(TokenKind::kLeftParen, "'('");
  rel->has_comprehension = true;
  rel->comprehension_rel_variable = ExpectName("a relationship variable");
  Expect(TokenKind::kComma, "','");
  rel->comprehension_node_variable = ExpectName("a node variable");
  auto parse_items = [this](std::vector<ParsedProjectionItem>* items) {
    Expect(TokenKind::kLeftBrace, "'{' to start the projection");
    if (!At(TokenKind::kRightBrace)) {
      ScopedContext context(this, false, true);
      do {
        items->push_back(ParseProjectionItem());
      } while (Accept(TokenKind::kComma));
    }
    Expect(TokenKind::kRightBrace, "',' or '}' to close the projection");
  };
  if (Accept(TokenKind::kPipe)) {
    if (AcceptKeyword("WHERE")) {
      {
        ScopedContext context(this, true, true);
        if (!CanStartExpression()) FailExpected("an expression after WHERE");
        rel->comprehension_where = ParseExpression();
      }
      if (Accept(TokenKind::kPipe)) {
        rel->has_comprehension_projection = true;
      }
    } else {
      rel->has_comprehension_projection = true;
    }
    if (rel->has_comprehension_projection) {
      parse_items(&rel->rel_projection);
      Expect(TokenKind::kComma, "',' between the relationship and node projections");
      parse_items(&rel->node_projection);
    }
  }
  Expect(TokenKind::kRightParen, "')' to close the recursive relationship comprehension");
}

std::vector<ParsedPropertyEntry> Parser::ParseProperties() {
  ScopedContext context(this, false, true);
  std::vector<ParsedPropertyEntry> properties;
  Expect(TokenKind::kLeftBrace, "'{'");
  if (!At(TokenKind::kRightBrace)) {
    do {
      ParsedPropertyEntry entry;
      SetPosition(entry, Current());
      entry.key = ExpectName("a property name");
      Expect(TokenKind::kColon, "':' after the property name");
      if (!CanStartExpression()) FailExpected("an expression after ':'");
      entry.value = ParseExpression();
      properties.push_back(std::move(entry));
    } while (Accept(TokenKind::kComma));
  }
  Expect(TokenKind::kRightBrace, "',' or '}' to close the properties");
  return properties;
}

std::unique_ptr<ParsedSubquery> Parser::ParseSubqueryBody() {
  ScopedContext context(this, false, true);
  auto subquery = std::make_unique<ParsedSubquery>();
  SetPosition(*subquery, Current());
  Expect(TokenKind::kLeftBrace, "'{'");
  ExpectKeyword("MATCH", "MATCH after '{'");
  const Token& first = Current();
  subquery->patterns = ParsePattern();
  CountQuerySteps(1 + PatternSteps(subquery->patterns), first);
  if (AcceptKeyword("WHERE")) {
    if (!CanStartExpression()) FailExpected("an expression after WHERE");
    subquery->where = ParseExpression();
  }
  if (AcceptKeyword("HINT")) subquery->hint = ParseJoinHint();
  Expect(TokenKind::kRightBrace, "'}' to close the subquery");
  return subquery;
}

}  // namespace internal
}  // namespace graphdb::parser
