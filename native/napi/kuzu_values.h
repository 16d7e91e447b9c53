// Result values in the form Kùzu's Node.js package gives them (run's output 'kuzu', used by
// the `quiverdb/kuzu` API of src/kuzu): integers of up to 64 bits as Numbers, INT128 as a
// BigInt, DATE and TIMESTAMP* as Date objects, INTERVAL as milliseconds, DECIMAL as a Number,
// internal ids as {offset, table}, MAP as an object keyed by each key's text, nodes and
// relationships with their properties first, then _src/_dst, _label and _id.
#pragma once

#include <napi.h>

#include "types/value.h"

namespace graphdb::napi {

Napi::Value FromValueKuzu(Napi::Env env, const Value& value);

}  // namespace graphdb::napi
