// The vector index as a secondary index of the database (exec/secondary_index.h): the HNSW
// kind ("HNSW", as SHOW_INDEXES lists it) and its contents, an Hnsw graph over FLOAT or DOUBLE
// values of one ARRAY property.
//
// Thread-safety: as IndexContents requires; Hnsw synchronises inside.
#pragma once

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "catalog/catalog.h"
#include "exec/secondary_index.h"
#include "vector/hnsw.h"

namespace graphdb::vector {

// The index's parameters, as CREATE_VECTOR_INDEX resolves them (defaults filled in), into the
// definition's options and back.
std::vector<std::pair<std::string, std::string>> OptionsText(const HnswParams& params);
HnswParams ParamsFromOptions(const catalog::IndexDefinition& def);

class VectorContents final : public exec::IndexContents {
 public:
  // `is_double`: the property is DOUBLE[dim] (else FLOAT[dim]).
  VectorContents(uint32_t dim, bool is_double, HnswParams params);

  void Put(uint64_t offset, const std::vector<Value>& values, uint64_t ts) override;
  void Remove(uint64_t offset, uint64_t ts) override;
  void Build(const std::vector<uint64_t>& rows, std::vector<std::vector<Value>> values,
             const std::vector<uint64_t>& begin_ts, exec::ExecContext& ctx) override;
  void Prune(uint64_t oldest) override;
  uint64_t MemoryBytes() const override;
  bool Save(uint64_t snapshot, std::string* out) const override;
  bool Load(std::string_view in) override;

  uint32_t dim() const { return dim_; }
  const HnswParams& params() const { return params_; }
  // The nearest rows to `query` (dim values) by the index's search.
  std::vector<Hit> Search(const std::vector<double>& query, const SearchOptions& options) const;
  // The distance from `query` to an array value (null elements count as 0).
  double DistanceTo(const std::vector<double>& query, const Value& value) const;

 private:
  const uint32_t dim_;
  const HnswParams params_;
  std::variant<std::unique_ptr<Hnsw<float>>, std::unique_ptr<Hnsw<double>>> index_;
};

class HnswKind final : public exec::IndexKind {
 public:
  std::unique_ptr<exec::IndexContents> NewContents(const catalog::IndexDefinition& def,
                                                   const catalog::Catalog& catalog) const override;
  std::string DefinitionText(const catalog::IndexDefinition& def,
                             const catalog::Catalog& catalog) const override;
};

// The indexed property of `def` (null when the table no longer has it).
const catalog::PropertyDefinition* IndexedProperty(const catalog::IndexDefinition& def,
                                                   const catalog::Catalog& catalog);

}  // namespace graphdb::vector
