/**
 * Splits a Cypher script into statements at top-level semicolons, ignoring semicolons inside
 * quotes, backticks and comments. Empty statements are dropped.
 */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (let i = 0; i < script.length; i++) {
    const c = script[i] as string;
    const next = script[i + 1];
    if (quote) {
      current += c;
      if (c === '\\' && quote !== '`' && next !== undefined) {
        current += next;
        i++;
      } else if (c === quote) {
        quote = null;
      }
      continue;
    }
    if (c === '/' && next === '/') {
      const end = script.indexOf('\n', i);
      i = end === -1 ? script.length : end - 1;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = script.indexOf('*/', i + 2);
      i = end === -1 ? script.length : end + 1;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    if (c === ';') {
      if (current.trim()) statements.push(current.trim());
      current = '';
      continue;
    }
    current += c;
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}
