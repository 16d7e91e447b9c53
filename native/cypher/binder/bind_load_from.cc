// LOAD FROM files: the scan's options (constants), its columns (given by WITH HEADERS or learnt
// from the files by the FileScanResolver) as new variables, and its WHERE.
#include "cypher/binder/binder_internal.h"

namespace graphdb::binder {

void Binder::BindLoadFrom(const parser::ParsedLoadFromClause& load, BoundClause* out) {
  if (load.source.kind != parser::ScanSourceKind::kFiles) {
    ThrowNotSupported("LOAD FROM a query or a variable is not supported yet");
  }
  if (!file_scan_resolver_) ThrowNotSupported("LOAD FROM is not available here");
  reads_files_ = true;
  auto scan = std::make_unique<BoundFileScan>();
  scan->paths = load.source.file_paths;
  for (const auto& option : load.options) {
    Value value = Value::Boolean(true);  // a bare option name is a flag
    if (option.value) {
      auto bound = Bind(*option.value);
      if (bound->kind != ExprKind::kLiteral)
        BindError("LOAD FROM option " + option.name + " must be a constant.");
      value = bound->literal;
    }
    scan->options.emplace_back(option.name, std::move(value));
  }
  std::vector<std::pair<std::string, LogicalType>> given;
  for (const auto& column : load.headers) {
    std::string error;
    auto type = catalog_.ParseType(column.type_text, &error);
    if (!type) TypeError(error);
    given.emplace_back(column.name, *type);
  }
  file_scan_resolver_(scan.get(), given);
  for (size_t i = 0; i < scan->column_names.size(); ++i) {
    SlotId slot = NewSlot();
    scan->slots.push_back(slot);
    scope_->Add({scan->column_names[i], slot, scan->column_types[i]});
  }
  out->file_scan = std::move(scan);
  if (load.where) out->where = BindPredicate(*load.where);
}

}  // namespace graphdb::binder
