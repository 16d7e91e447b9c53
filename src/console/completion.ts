// What to offer at the cursor of the Cypher editor: labels after `(x:`, relationship types
// after `[r:` (and `|`), the properties of a variable's table after `x.`, parameters after
// `$`, keywords and functions elsewhere. Works on plain text and the schema from GET /schema;
// no DOM here (test/console/model.test.ts), src/console/editor.ts adapts it to CodeMirror.

export interface SchemaProperty {
  name: string;
  type: string;
}

export interface NodeTableSchema {
  name: string;
  primaryKey?: string;
  properties: SchemaProperty[];
}

export interface RelTableSchema {
  name: string;
  from?: string;
  to?: string;
  pairs?: { from: string; to: string }[];
  multiplicity?: string;
  properties: SchemaProperty[];
}

export interface Schema {
  nodeTables: NodeTableSchema[];
  relTables: RelTableSchema[];
}

export interface CompletionItem {
  label: string;
  /** CodeMirror's completion kinds: keyword, class (labels), type (rel types), property, variable, function. */
  type: string;
  detail?: string;
  /** Text inserted instead of `label` (names that need backticks). */
  apply?: string;
}

export interface CompletionAnswer {
  /** Where the replaced word starts. */
  from: number;
  options: CompletionItem[];
}

// biome-ignore format: a word list
export const CYPHER_KEYWORDS = [
  'MATCH', 'OPTIONAL MATCH', 'WHERE', 'RETURN', 'WITH', 'UNWIND', 'ORDER BY', 'ASC', 'DESC',
  'SKIP', 'LIMIT', 'DISTINCT', 'AS', 'AND', 'OR', 'XOR', 'NOT', 'IN', 'IS NULL', 'IS NOT NULL',
  'STARTS WITH', 'ENDS WITH', 'CONTAINS', 'CASE', 'WHEN', 'THEN', 'ELSE', 'END', 'CREATE',
  'MERGE', 'ON CREATE SET', 'ON MATCH SET', 'SET', 'DELETE', 'DETACH DELETE', 'REMOVE', 'UNION',
  'UNION ALL', 'CALL', 'YIELD', 'EXISTS', 'COPY', 'FROM', 'TO', 'LOAD FROM', 'CREATE NODE TABLE',
  'CREATE REL TABLE', 'PRIMARY KEY', 'DROP TABLE', 'ALTER TABLE', 'EXPLAIN', 'TRUE', 'FALSE',
  'NULL',
];

// biome-ignore format: a word list
export const CYPHER_FUNCTIONS = [
  'count', 'sum', 'avg', 'min', 'max', 'collect', 'size', 'length', 'coalesce', 'abs', 'ceil',
  'floor', 'round', 'sqrt', 'lower', 'upper', 'trim', 'substring', 'starts_with', 'ends_with',
  'contains', 'concat', 'string', 'to_int64', 'to_double', 'date', 'timestamp', 'range', 'nodes',
  'rels', 'label', 'id', 'list_contains', 'list_extract',
];

const KEYWORD_WORDS = new Set(CYPHER_KEYWORDS.flatMap((k) => k.split(' ')));

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function quoted(name: string): string | undefined {
  return IDENTIFIER.test(name) ? undefined : `\`${name.replace(/`/g, '``')}\``;
}

function item(label: string, type: string, detail?: string): CompletionItem {
  const apply = quoted(label);
  const out: CompletionItem = { label, type };
  if (detail !== undefined) out.detail = detail;
  if (apply !== undefined) out.apply = apply;
  return out;
}

/**
 * The innermost bracket (`(`, `[` or `{`) still open at `end`, skipping quoted strings,
 * backticked names and comments; undefined at the top level.
 */
export function openBracket(text: string, end: number): string | undefined {
  const stack: string[] = [];
  let i = 0;
  while (i < end) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') {
      i++;
      while (i < end && text[i] !== c) i += text[i] === '\\' && c !== '`' ? 2 : 1;
      i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      while (i < end && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      i = close < 0 ? end : close + 2;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') stack.push(c);
    else if ((c === ')' || c === ']' || c === '}') && stack.length > 0) stack.pop();
    i++;
  }
  return stack[stack.length - 1];
}

/** The label or relationship type that `variable` is bound to in `text`, when written there. */
export function tableOfVariable(text: string, variable: string): string | undefined {
  const escaped = variable.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`[([]\\s*${escaped}\\s*:\\s*(\`(?:[^\`]|\`\`)+\`|[A-Za-z_][A-Za-z0-9_]*)`);
  const match = pattern.exec(text);
  if (!match) return undefined;
  const name = match[1]!;
  return name.startsWith('`') ? name.slice(1, -1).replace(/``/g, '`') : name;
}

function propertyItems(schema: Schema, table: string | undefined): CompletionItem[] {
  const tables = [...schema.nodeTables, ...schema.relTables];
  const owner = table === undefined ? undefined : tables.find((t) => t.name === table);
  if (owner) return owner.properties.map((p) => item(p.name, 'property', p.type));
  // Unknown variable: every property of every table, once, with the tables that have it.
  const where = new Map<string, string[]>();
  for (const t of tables) {
    for (const p of t.properties) {
      const list = where.get(p.name) ?? [];
      list.push(t.name);
      where.set(p.name, list);
    }
  }
  return [...where].map(([name, owners]) => item(name, 'property', owners.join(', ')));
}

/** Names the query binds: `(x`, `[x`, `x =` (paths), `AS x`; not the word being typed at `at`. */
export function variablesOf(text: string, at = -1): string[] {
  const found = new Set<string>();
  const pattern = /(?:[([]\s*|\bAS\s+)([A-Za-z_][A-Za-z0-9_]*)|\b([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?=\()/gi;
  for (const match of text.matchAll(pattern)) {
    const name = match[1] ?? match[2]!;
    const start = match[1] !== undefined ? match.index + match[0].length - name.length : match.index;
    if (start !== at && !KEYWORD_WORDS.has(name.toUpperCase())) found.add(name);
  }
  return [...found];
}

/**
 * The completions at `pos` of `text`, or null when there is nothing to offer there.
 * `explicit` (Ctrl-Space) offers keywords even before a word is started.
 */
export function completeCypher(
  text: string,
  pos: number,
  schema: Schema | undefined,
  parameterNames: readonly string[] = [],
  explicit = false,
): CompletionAnswer | null {
  const before = text.slice(0, pos);
  const word = /[A-Za-z_][A-Za-z0-9_]*$/.exec(before)?.[0] ?? '';
  const from = pos - word.length;
  // The character that introduces the word, spaces after `:` allowed.
  const lead = /(\S)\s*$/.exec(text.slice(0, from))?.[1];
  const leadTight = text[from - 1];
  const bracket = openBracket(text, from);
  if (leadTight === '$') {
    return { from, options: parameterNames.map((name) => item(name, 'variable', 'parameter')) };
  }
  if (leadTight === '.') {
    const variable = /([A-Za-z_][A-Za-z0-9_]*)\.$/.exec(text.slice(0, from))?.[1];
    if (!variable || !schema) return null;
    return { from, options: propertyItems(schema, tableOfVariable(text, variable)) };
  }
  if ((lead === ':' || lead === '|') && (bracket === '(' || bracket === '[')) {
    if (!schema) return null;
    if (bracket === '(') {
      return {
        from,
        options: schema.nodeTables.map((t) =>
          item(t.name, 'class', `node table · ${t.properties.length} properties`),
        ),
      };
    }
    return {
      from,
      options: schema.relTables.map((t) =>
        item(t.name, 'type', t.from && t.to ? `${t.from} → ${t.to}` : 'relationship table'),
      ),
    };
  }
  // Keywords and functions once a word has two letters (one letter is mostly a variable).
  if (word.length < 2 && !explicit) return null;
  const options: CompletionItem[] = [
    ...variablesOf(text, from).map((v) => item(v, 'variable')),
    ...CYPHER_KEYWORDS.map((k) => ({ label: k, type: 'keyword' })),
    ...CYPHER_FUNCTIONS.map((f) => ({ label: f, type: 'function', apply: `${f}(` })),
  ];
  return { from, options };
}
