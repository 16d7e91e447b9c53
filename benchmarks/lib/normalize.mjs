// Brings both systems' values to one form before results are compared: GraphDB returns DATE as
// 'YYYY-MM-DD' and TIMESTAMP as ISO text, Kùzu returns JS Date objects for both; integers may
// arrive as bigint; doubles are compared to 12 significant digits.

function normalizeValue(value, type) {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) {
    const elementType = type?.endsWith('[]') ? type.slice(0, -2) : undefined;
    return value.map((v) => normalizeValue(v, elementType));
  }
  if (value instanceof Date) {
    const iso = value.toISOString();
    return type === 'DATE' ? iso.slice(0, 10) : iso;
  }
  if (typeof value === 'string') {
    if (type === 'DATE') return value.slice(0, 10);
    if (type?.startsWith('TIMESTAMP')) {
      const parsed = new Date(
        value.includes('T') || value.endsWith('Z') ? value : `${value.replace(' ', 'T')}Z`,
      );
      return Number.isNaN(parsed.getTime()) ? value : parsed.toISOString();
    }
    return value;
  }
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (typeof value === 'number') {
    return Number.isInteger(value) ? value : Number(value.toPrecision(12));
  }
  if (value instanceof Map) {
    return [...value.entries()].map(([k, v]) => [normalizeValue(k), normalizeValue(v)]);
  }
  if (typeof value === 'object') {
    const out = {};
    for (const key of Object.keys(value).sort()) {
      if (key === '_id' || key === '_src' || key === '_dst') continue;
      out[key] = normalizeValue(value[key]);
    }
    return out;
  }
  return value;
}

/** { columns, rows } with every value normalised and the rows sorted (order is not compared). */
export function normalizeResult({ columns, types, rows }) {
  const normalized = rows.map((row) => JSON.stringify(row.map((v, i) => normalizeValue(v, types?.[i]))));
  normalized.sort();
  return { columns, rows: normalized.map((r) => JSON.parse(r)) };
}

export function sameResult(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}
