// EXPORT DATABASE 'dir' [(options)] and the files IMPORT DATABASE 'dir' runs (docs/cypher.md,
// "Export and import").
//
// EXPORT writes into a new folder, as Kùzu does:
//   - schema.cypher: the schema as DDL, one statement a line: CREATE TYPE, CREATE SEQUENCE (a
//     used sequence starts at its current value and is advanced once by `RETURN nextval(..)`,
//     so currval() and the next nextval() continue where they were), CREATE NODE TABLE,
//     CREATE REL TABLE (every FROM/TO pair, multiplicity, storage direction), CREATE MACRO and
//     COMMENT ON TABLE;
//   - copy.cypher: a COPY FROM a data file for every node table and every FROM/TO pair of a
//     rel table, with the CSV options the files were written with (paths relative to the
//     folder);
//   - index.cypher: the secondary indexes (GraphDB has none beyond the primary keys, so it is
//     empty; Kùzu's importer reads it);
//   - the data: one file per node table (`T.csv`) and per pair (`R_A_B.csv`), written by the
//     COPY TO path (RunCopyTo: the same options, the same value texts), so FORMAT='parquet'
//     writes `.parquet` files exactly when COPY TO can.
// SCHEMA_ONLY=true writes schema.cypher alone.
//
// REQUIRES: the statement lock (shared) and the writer lock held exclusively, so that no write
// commits between the tables' files (the export is one consistent state).
#pragma once

#include <string>
#include <unordered_map>

#include "catalog/catalog.h"
#include "cypher/parser/ast.h"
#include "exec/query_result.h"
#include "main/database.h"
#include "main/plan_cache.h"

namespace graphdb {

exec::QueryResult RunExportDatabase(Database& db, const parser::ParsedPortDatabase& statement,
                                    const std::unordered_map<std::string, Value>& params);

// The schema of `catalog` as the statements schema.cypher holds (one a line).
std::string SchemaCypher(const catalog::Catalog& catalog);

// The statements IMPORT DATABASE runs, in order: schema.cypher (required), macro.cypher (older
// Kùzu exports), copy.cypher and index.cypher (optional), parsed and checked before anything
// runs. The files of copy.cypher's COPY statements are made relative to the folder. Throws
// Kùzu's "Binder exception: Directory X does not exist." / "File X does not exist.", and
// "Import database failed: ..." for a script that does not parse or holds a statement an
// import may not run (transaction control, CHECKPOINT, EXPORT/IMPORT, a COPY that is not from
// files).
ParsedStatements ReadImportScripts(const parser::ParsedPortDatabase& statement);

// What the database holds that an import would clash with ("" when it is empty): IMPORT
// DATABASE runs only on an empty database (no table, sequence, type or macro).
std::string DatabaseContents(const catalog::Catalog& catalog);

}  // namespace graphdb
