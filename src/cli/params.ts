/**
 * Parses `--param name=value` options. The value is read as JSON when it is valid JSON
 * (numbers, booleans, null, lists, objects, "quoted strings"), otherwise as a plain string.
 */
export function parseParam(text: string, previous: Record<string, unknown>): Record<string, unknown> {
  const eq = text.indexOf('=');
  if (eq <= 0) {
    throw new Error(`--param expects name=value, got '${text}'`);
  }
  const name = text.slice(0, eq);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new Error(`--param name '${name}' is not a valid parameter name`);
  }
  const raw = text.slice(eq + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    value = raw;
  }
  return { ...previous, [name]: value };
}
