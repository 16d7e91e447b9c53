// The scalar function registry and overload resolution (scalar_function.h).
#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "common/assert.h"
#include "function/cast.h"
#include "function/function_internal.h"
#include "function/scalar_function.h"

namespace graphdb::function {

using internal::Id;
using internal::ScalarFunctionSet;
using internal::ScalarOverload;

namespace internal {

ScalarFunctionSet& RegistryBuilder::Set(const std::string& name) {
  for (auto& [n, set] : entries) {
    if (n == name) return *set;
  }
  auto set = std::make_shared<ScalarFunctionSet>();
  set->name = name;
  entries.emplace_back(name, set);
  return *set;
}

ScalarOverload& RegistryBuilder::Add(const std::string& name, std::vector<Id> params, Id result,
                                     ScalarExec exec) {
  ScalarFunctionSet& set = Set(name);
  ScalarOverload o;
  o.params = std::move(params);
  o.result = result;
  o.exec = exec;
  set.overloads.push_back(std::move(o));
  return set.overloads.back();
}

void RegistryBuilder::Alias(const std::string& alias, const std::string& target) {
  for (auto& [n, set] : entries) {
    if (n == target) {
      entries.emplace_back(alias, set);
      return;
    }
  }
  GRAPHDB_ASSERT(false && "alias of an unknown function");
}

}  // namespace internal

namespace {

class Registry {
 public:
  Registry() {
    internal::RegistryBuilder b;
    internal::RegisterArithmeticFunctions(b);
    internal::RegisterComparisonFunctions(b);
    internal::RegisterStringFunctions(b);
    internal::RegisterListFunctions(b);
    internal::RegisterNestedFunctions(b);
    internal::RegisterTemporalFunctions(b);
    internal::RegisterMiscFunctions(b);
    internal::RegisterDecimalFunctions(b);
    internal::RegisterJsonFunctions(b);
    for (auto& [name, set] : b.entries) {
      bool named = std::isalpha(static_cast<unsigned char>(set->name[0])) != 0;
      bool takes_lists = false;
      for (const auto& o : set->overloads) {
        for (Id p : o.params) takes_lists = takes_lists || p == Id::kList || p == Id::kArray;
      }
      set->any_to_string = named && !takes_lists;
      map_.emplace(name, set);
    }
  }

  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& [name, set] : map_) names.push_back(name);
    return names;
  }

  const ScalarFunctionSet* Find(std::string_view name) const {
    auto it = map_.find(internal::ToLower(name));
    return it == map_.end() ? nullptr : it->second.get();
  }

 private:
  std::unordered_map<std::string, std::shared_ptr<const ScalarFunctionSet>> map_;
};

const Registry& GetRegistry() {
  static const Registry registry;
  return registry;
}

bool IsNestedId(Id id) {
  return id == Id::kList || id == Id::kArray || id == Id::kStruct || id == Id::kMap ||
         id == Id::kUnion || id == Id::kNode || id == Id::kRel || id == Id::kRecursiveRel;
}

std::string SignatureText(const ScalarOverload& o) {
  std::string out = "(";
  for (size_t i = 0; i < o.params.size(); ++i) {
    if (i) out += ",";
    out += LogicalTypeIdName(o.params[i]);
    if (o.variadic && i + 1 == o.params.size()) out += "...";
  }
  out += ") -> ";
  out += LogicalTypeIdName(o.result);
  return out;
}

std::string NoMatchText(std::string_view called, const ScalarFunctionSet& set,
                        const std::vector<LogicalType>& types) {
  std::string out = "Binder exception: Function " + internal::ToUpper(called) +
                    " did not receive correct arguments:\nActual:   " + internal::TypesText(types) +
                    "\nExpected: ";
  for (size_t i = 0; i < set.overloads.size(); ++i) {
    if (i) out += "\n          ";
    out += SignatureText(set.overloads[i]);
  }
  return out;
}

Id ParamAt(const ScalarOverload& o, size_t i) {
  if (i < o.params.size()) return o.params[i];
  return o.params.back();  // variadic
}

}  // namespace

namespace internal {

std::vector<std::string> RegisteredScalarFunctionNames() { return GetRegistry().Names(); }

const ScalarFunctionSet* FindScalarFunctionSet(std::string_view name) {
  return GetRegistry().Find(name);
}

}  // namespace internal

std::optional<BoundScalarFunction> BindScalarFunction(std::string_view name,
                                                      const std::vector<LogicalType>& arg_types,
                                                      std::string* error) {
  ScalarBindInput input;
  input.arg_types = arg_types;
  return BindScalarFunctionWithInput(name, input, error);
}

std::optional<BoundScalarFunction> BindScalarFunctionWithInput(std::string_view name,
                                                               const ScalarBindInput& input,
                                                               std::string* error) {
  const ScalarFunctionSet* set = GetRegistry().Find(name);
  if (!set) {
    *error = "Catalog exception: function " + internal::ToUpper(name) + " does not exist.";
    return std::nullopt;
  }
  const auto& actual = input.arg_types;
  const bool any_to_string = set->any_to_string;
  const ScalarOverload* best = nullptr;
  uint32_t best_cost = 0;
  for (const auto& o : set->overloads) {
    if (o.variadic) {
      if (actual.size() + 1 < o.params.size()) continue;
    } else if (actual.size() != o.params.size()) {
      continue;
    }
    uint32_t cost = 0;
    bool ok = true;
    for (size_t i = 0; i < actual.size() && ok; ++i) {
      auto c = internal::CostToParam(actual[i], ParamAt(o, i), any_to_string);
      if (!c)
        ok = false;
      else
        cost += *c;
    }
    if (!ok) continue;
    if (!best || cost < best_cost) {
      best = &o;
      best_cost = cost;
    }
  }
  if (!best) {
    *error = set->no_match ? set->no_match(name, actual) : NoMatchText(name, *set, actual);
    return std::nullopt;
  }
  BoundScalarFunction fn;
  fn.name = set->name;
  fn.exec = best->exec;
  fn.propagates_nulls = best->propagates_nulls;
  fn.deterministic = best->deterministic;
  fn.returns_argument_part = best->returns_argument_part;
  fn.result_type = IsNestedId(best->result) ? LogicalType::Any() : LogicalType(best->result);
  fn.arg_types.reserve(actual.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    Id p = ParamAt(*best, i);
    if (p == Id::kAny || IsNestedId(p)) {
      fn.arg_types.push_back(actual[i]);
    } else {
      fn.arg_types.push_back(LogicalType(p));
    }
  }
  if (best->bind && !best->bind(input, &fn, error)) return std::nullopt;
  auto same_result = [best](const ScalarOverload& o) { return o.result == best->result; };
  fn.result_type_fixed = best->result != Id::kAny && !IsNestedId(best->result) &&
                         fn.result_type == LogicalType(best->result) &&
                         std::all_of(set->overloads.begin(), set->overloads.end(), same_result);
  return fn;
}

bool IsScalarFunction(std::string_view name) { return GetRegistry().Find(name) != nullptr; }

bool ScalarFunctionChangesDatabase(std::string_view name) {
  const ScalarFunctionSet* set = GetRegistry().Find(name);
  return set != nullptr && set->changes_database;
}

bool IsGraphFunction(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "id",     "label",         "labels",     "properties", "nodes",
      "rels",   "relationships", "start_node", "end_node",   "offset",
      "length", "cost",          "is_trail",   "is_acyclic", "keys"};
  std::string lower = internal::ToLower(name);
  for (auto n : kNames) {
    if (lower == n) return true;
  }
  return false;
}

bool IsLambdaFunction(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "list_transform", "list_apply", "list_filter", "list_reduce", "all", "any", "none", "single"};
  std::string lower = internal::ToLower(name);
  for (auto n : kNames) {
    if (lower == n) return true;
  }
  return false;
}

}  // namespace graphdb::function
