#include "vector/vector_index.h"

#include <cstdio>

#include "common/status.h"
#include "exec/exec_context.h"

namespace graphdb::vector {

namespace {

std::string FixedText(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%f", v);
  return buf;
}

// The elements of an ARRAY / LIST value as T (null elements as 0); false when the value has
// not `dim` of them.
template <typename T>
bool Elements(const Value& value, uint32_t dim, T* out) {
  const auto& children = value.children();
  if (children.size() != dim) return false;
  for (uint32_t i = 0; i < dim; ++i) {
    const Value& c = children[i];
    if (c.is_null()) {
      out[i] = 0;
    } else if (c.type_id() == LogicalTypeId::kFloat || c.type_id() == LogicalTypeId::kDouble) {
      out[i] = static_cast<T>(c.GetDouble());
    } else {
      out[i] = static_cast<T>(c.GetInt());
    }
  }
  return true;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> OptionsText(const HnswParams& params) {
  return {{"mu", std::to_string(params.mu)},  {"ml", std::to_string(params.ml)},
          {"pu", FixedText(params.pu)},       {"metric", std::string(MetricName(params.metric))},
          {"alpha", FixedText(params.alpha)}, {"efc", std::to_string(params.efc)}};
}

HnswParams ParamsFromOptions(const catalog::IndexDefinition& def) {
  HnswParams params;
  for (const auto& [name, text] : def.options) {
    if (name == "mu") params.mu = static_cast<uint32_t>(std::stoul(text));
    if (name == "ml") params.ml = static_cast<uint32_t>(std::stoul(text));
    if (name == "pu") params.pu = std::stod(text);
    if (name == "metric") ParseMetric(text, &params.metric);
    if (name == "alpha") params.alpha = std::stod(text);
    if (name == "efc") params.efc = static_cast<uint32_t>(std::stoul(text));
  }
  return params;
}

const catalog::PropertyDefinition* IndexedProperty(const catalog::IndexDefinition& def,
                                                   const catalog::Catalog& catalog) {
  const catalog::NodeTableSchema* schema = catalog.GetNodeTable(def.table);
  if (schema == nullptr || def.properties.empty()) return nullptr;
  for (const auto& p : schema->properties) {
    if (p.id == def.properties[0]) return &p;
  }
  return nullptr;
}

VectorContents::VectorContents(uint32_t dim, bool is_double, HnswParams params)
    : dim_(dim), params_(params) {
  if (is_double) {
    index_ = std::make_unique<Hnsw<double>>(dim, params);
  } else {
    index_ = std::make_unique<Hnsw<float>>(dim, params);
  }
}

void VectorContents::Put(uint64_t offset, const std::vector<Value>& values, uint64_t ts) {
  if (values.empty() || values[0].is_null()) {
    Remove(offset, ts);
    return;
  }
  std::visit(
      [&](auto& index) {
        std::vector<typename std::remove_cvref_t<decltype(*index)>::Element> v(dim_);
        if (Elements(values[0], dim_, v.data())) {
          index->Put(offset, v.data(), ts);
        } else {
          index->Remove(offset, ts);
        }
      },
      index_);
}

void VectorContents::Remove(uint64_t offset, uint64_t ts) {
  std::visit([&](auto& index) { index->Remove(offset, ts); }, index_);
}

void VectorContents::Build(const std::vector<uint64_t>& rows,
                           std::vector<std::vector<Value>> values,
                           const std::vector<uint64_t>& begin_ts, exec::ExecContext& ctx) {
  std::visit(
      [&](auto& index) {
        using E = typename std::remove_cvref_t<decltype(*index)>::Element;
        std::vector<uint64_t> kept_rows, kept_ts;
        std::vector<E> flat;
        kept_rows.reserve(rows.size());
        flat.reserve(rows.size() * dim_);
        std::vector<E> v(dim_);
        for (size_t i = 0; i < rows.size(); ++i) {
          if ((i & 4095) == 0) ctx.CheckInterrupt();
          if (values[i].empty() || values[i][0].is_null()) continue;
          if (!Elements(values[i][0], dim_, v.data())) continue;
          kept_rows.push_back(rows[i]);
          kept_ts.push_back(begin_ts[i]);
          flat.insert(flat.end(), v.begin(), v.end());
          std::vector<Value>().swap(values[i]);  // let go of the row's values as we go
        }
        index->Build(kept_rows, flat, kept_ts, ctx.tasks, ctx.parallelism);
      },
      index_);
}

void VectorContents::Prune(uint64_t oldest) {
  std::visit([&](auto& index) { index->Prune(oldest); }, index_);
}

uint64_t VectorContents::MemoryBytes() const {
  return std::visit([](const auto& index) { return index->MemoryBytes(); }, index_);
}

bool VectorContents::Save(uint64_t snapshot, std::string* out) const {
  std::visit([&](const auto& index) { index->Save(snapshot, out); }, index_);
  return true;
}

bool VectorContents::Load(std::string_view in) {
  return std::visit([&](auto& index) { return index->Load(in); }, index_);
}

std::vector<Hit> VectorContents::Search(const std::vector<double>& query,
                                        const SearchOptions& options) const {
  return std::visit(
      [&](const auto& index) {
        using E = typename std::remove_cvref_t<decltype(*index)>::Element;
        std::vector<E> q(query.begin(), query.end());
        return index->Search(q.data(), options);
      },
      index_);
}

double VectorContents::DistanceTo(const std::vector<double>& query, const Value& value) const {
  std::vector<double> v(dim_);
  if (!Elements(value, dim_, v.data())) return 0;
  return ExactDistance(params_.metric, query.data(), v.data(), dim_);
}

std::unique_ptr<exec::IndexContents> HnswKind::NewContents(const catalog::IndexDefinition& def,
                                                           const catalog::Catalog& catalog) const {
  const catalog::PropertyDefinition* property = IndexedProperty(def, catalog);
  if (property == nullptr || property->type.id() != LogicalTypeId::kArray) {
    ThrowRuntime("Runtime exception: the vector index " + def.name +
                 " has no FLOAT/DOUBLE ARRAY property to index");
  }
  return std::make_unique<VectorContents>(property->type.array_size(),
                                          property->type.child().id() == LogicalTypeId::kDouble,
                                          ParamsFromOptions(def));
}

std::string HnswKind::DefinitionText(const catalog::IndexDefinition& def,
                                     const catalog::Catalog& catalog) const {
  const catalog::NodeTableSchema* schema = catalog.GetNodeTable(def.table);
  const catalog::PropertyDefinition* property = IndexedProperty(def, catalog);
  std::string text = "CALL CREATE_VECTOR_INDEX('" + (schema ? schema->name : std::string()) +
                     "', '" + def.name + "', '" + (property ? property->name : std::string()) + "'";
  for (const auto& [name, value] : OptionsText(ParamsFromOptions(def))) {
    text += ", " + name + " := " + (name == "metric" ? "'" + value + "'" : value);
  }
  return text + ");";
}

}  // namespace graphdb::vector
