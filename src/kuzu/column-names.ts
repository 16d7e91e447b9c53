// Column names as Kùzu gives them. GraphDB names a column without an alias by the text of its
// expression, as written (`count(*)`, `1+1`, openCypher's rule); Kùzu by the expression's
// canonical form: functions in capitals with their arguments (`COUNT_STAR()`, `LOWER(a.name)`),
// operators as functions (`+(1,1)`, `EQUALS(a.ID,1)`, `AND(...)`), literals as their values
// (`True`, `1.500000`, strings unquoted). This module rewrites a column's text into that form
// for the expressions it knows (literals, variables, properties, parameters, function calls,
// arithmetic, comparison, boolean and string operators, lists, indexing, CAST); a text it does
// not know (CASE, pattern expressions, list comprehensions...) keeps GraphDB's name, as does
// an alias. Kùzu also names the implicit casts its binder inserts (`*(CAST(a.ID, DOUBLE),1.5)`),
// which the text does not show: those names differ (docs/migrating-from-kuzu.md).

type Token =
  | { kind: 'number'; text: string }
  | { kind: 'string'; text: string }
  | { kind: 'name'; text: string }
  | { kind: 'param'; text: string }
  | { kind: 'op'; text: string };

class Unsupported extends Error {}

const OPERATORS = [
  '<>',
  '<=',
  '>=',
  '!=',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  '.',
  ':',
  '+',
  '-',
  '*',
  '/',
  '%',
  '^',
  '=',
  '<',
  '>',
];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const rest = text.slice(i);
    const number = /^(\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+)/.exec(rest);
    if (number) {
      // `1..2` is a range, not a number followed by a dot.
      tokens.push({ kind: 'number', text: number[1] as string });
      i += (number[1] as string).length;
      continue;
    }
    const name = /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*/.exec(rest);
    if (name) {
      tokens.push({ kind: 'name', text: name[0] });
      i += name[0].length;
      continue;
    }
    if (c === '`') {
      const end = text.indexOf('`', i + 1);
      if (end < 0) throw new Unsupported();
      tokens.push({ kind: 'name', text: text.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    if (c === '$') {
      const param = /^\$([A-Za-z0-9_]+)/.exec(rest);
      if (!param) throw new Unsupported();
      tokens.push({ kind: 'param', text: param[0] });
      i += param[0].length;
      continue;
    }
    if (c === "'" || c === '"') {
      let value = '';
      let j = i + 1;
      for (; j < text.length && text[j] !== c; j++) {
        if (text[j] === '\\') {
          j++;
          const escaped = text[j];
          value += escaped === 'n' ? '\n' : escaped === 't' ? '\t' : (escaped ?? '');
        } else {
          value += text[j];
        }
      }
      if (j >= text.length) throw new Unsupported();
      tokens.push({ kind: 'string', text: value });
      i = j + 1;
      continue;
    }
    const op = OPERATORS.find((o) => rest.startsWith(o));
    if (op === undefined) throw new Unsupported();
    tokens.push({ kind: 'op', text: op });
    i += op.length;
  }
  return tokens;
}

const COMPARISONS: Record<string, string> = {
  '=': 'EQUALS',
  '<>': 'NOT_EQUALS',
  '!=': 'NOT_EQUALS',
  '<': 'LESS_THAN',
  '<=': 'LESS_THAN_EQUALS',
  '>': 'GREATER_THAN',
  '>=': 'GREATER_THAN_EQUALS',
};

/** Functions Kùzu names by another of their names. */
const FUNCTION_NAMES: Record<string, string> = { DATE: 'TO_DATE', BLOB: 'TO_BLOB' };

/** A literal's canonical form, marked so that unary minus can fold it. */
interface Printed {
  text: string;
  numeric?: boolean;
}

class Parser {
  #at = 0;
  constructor(readonly tokens: Token[]) {}

  parse(): string {
    const out = this.#or().text;
    if (this.#at !== this.tokens.length) throw new Unsupported();
    return out;
  }

  #peek(offset = 0): Token | undefined {
    return this.tokens[this.#at + offset];
  }

  #isKeyword(word: string, offset = 0): boolean {
    const t = this.#peek(offset);
    return t?.kind === 'name' && t.text.toUpperCase() === word;
  }

  #isOp(op: string): boolean {
    const t = this.#peek();
    return t?.kind === 'op' && t.text === op;
  }

  #expectOp(op: string): void {
    if (!this.#isOp(op)) throw new Unsupported();
    this.#at++;
  }

  #binary(next: () => Printed, words: string[]): Printed {
    let left = next();
    for (;;) {
      const word = words.find((w) => this.#isKeyword(w));
      if (word === undefined) return left;
      this.#at++;
      left = { text: `${word}(${left.text},${next().text})` };
    }
  }

  #or = (): Printed => this.#binary(this.#xor, ['OR']);
  #xor = (): Printed => this.#binary(this.#and, ['XOR']);
  #and = (): Printed => this.#binary(this.#not, ['AND']);

  #not = (): Printed => {
    if (this.#isKeyword('NOT')) {
      this.#at++;
      return { text: `NOT(${this.#not().text})` };
    }
    return this.#comparison();
  };

  #comparison(): Printed {
    let left = this.#predicate();
    for (;;) {
      const t = this.#peek();
      const name = t?.kind === 'op' ? COMPARISONS[t.text] : undefined;
      if (name === undefined) return left;
      this.#at++;
      left = { text: `${name}(${left.text},${this.#predicate().text})` };
    }
  }

  #predicate(): Printed {
    let left = this.#additive();
    for (;;) {
      if (this.#isKeyword('IS')) {
        const negated = this.#isKeyword('NOT', 1);
        if (!this.#isKeyword('NULL', negated ? 2 : 1)) throw new Unsupported();
        this.#at += negated ? 3 : 2;
        left = { text: `${negated ? 'IS_NOT_NULL' : 'IS_NULL'}(${left.text})` };
      } else if ((this.#isKeyword('STARTS') || this.#isKeyword('ENDS')) && this.#isKeyword('WITH', 1)) {
        const name = this.#isKeyword('STARTS') ? 'STARTS_WITH' : 'ENDS_WITH';
        this.#at += 2;
        left = { text: `${name}(${left.text},${this.#additive().text})` };
      } else if (this.#isKeyword('CONTAINS')) {
        this.#at++;
        left = { text: `CONTAINS(${left.text},${this.#additive().text})` };
      } else if (this.#isKeyword('IN')) {
        this.#at++;
        left = { text: `LIST_CONTAINS(${this.#additive().text},${left.text})` };
      } else {
        return left;
      }
    }
  }

  #arithmetic(next: () => Printed, ops: string[]): Printed {
    let left = next();
    for (;;) {
      const t = this.#peek();
      if (t?.kind !== 'op' || !ops.includes(t.text)) return left;
      this.#at++;
      left = { text: `${t.text}(${left.text},${next().text})` };
    }
  }

  #additive = (): Printed => this.#arithmetic(this.#multiplicative, ['+', '-']);
  #multiplicative = (): Printed => this.#arithmetic(this.#unary, ['*', '/', '%']);

  #unary = (): Printed => {
    if (this.#isOp('-')) {
      this.#at++;
      const operand = this.#unary();
      return operand.numeric
        ? { text: `-${operand.text}`, numeric: true }
        : { text: `NEGATE(${operand.text})` };
    }
    if (this.#isOp('+')) {
      this.#at++;
      return this.#unary();
    }
    return this.#postfix();
  };

  #postfix(): Printed {
    let value = this.#atom();
    for (;;) {
      if (this.#isOp('.')) {
        this.#at++;
        const property = this.#peek();
        if (property?.kind !== 'name') throw new Unsupported();
        this.#at++;
        value = { text: `${value.text}.${property.text}` };
      } else if (this.#isOp('[')) {
        this.#at++;
        const from = this.#isOp(':') ? undefined : this.#or().text;
        if (this.#isOp(':')) {
          this.#at++;
          const to = this.#isOp(']') ? undefined : this.#or().text;
          if (from === undefined || to === undefined) throw new Unsupported();
          value = { text: `LIST_SLICE(${value.text},${from},${to})` };
        } else {
          value = { text: `LIST_EXTRACT(${value.text},${from})` };
        }
        this.#expectOp(']');
      } else {
        return value;
      }
    }
  }

  #list(close: string): string[] {
    const items: string[] = [];
    if (this.#isOp(close)) {
      this.#at++;
      return items;
    }
    for (;;) {
      items.push(this.#or().text);
      if (this.#isOp(close)) {
        this.#at++;
        return items;
      }
      this.#expectOp(',');
    }
  }

  #atom(): Printed {
    const t = this.#peek();
    if (t === undefined) throw new Unsupported();
    this.#at++;
    switch (t.kind) {
      case 'number':
        return {
          text: /^\d+$/.test(t.text) ? t.text.replace(/^0+(?=\d)/, '') : Number(t.text).toFixed(6),
          numeric: true,
        };
      case 'string':
        return { text: t.text };
      case 'param':
        return { text: t.text };
      case 'op':
        if (t.text === '(') {
          const inner = this.#or();
          this.#expectOp(')');
          return inner;
        }
        if (t.text === '[') return { text: `LIST_CREATION(${this.#list(']').join(',')})` };
        if (t.text === '{') return { text: `STRUCT_PACK(${this.#structValues().join(',')})` };
        throw new Unsupported();
      case 'name':
        return this.#named(t.text);
    }
  }

  #structValues(): string[] {
    const values: string[] = [];
    if (this.#isOp('}')) {
      this.#at++;
      return values;
    }
    for (;;) {
      if (this.#peek()?.kind !== 'name') throw new Unsupported();
      this.#at++;
      this.#expectOp(':');
      values.push(this.#or().text);
      if (this.#isOp('}')) {
        this.#at++;
        return values;
      }
      this.#expectOp(',');
    }
  }

  #named(name: string): Printed {
    const upper = name.toUpperCase();
    if (!this.#isOp('(')) {
      if (upper === 'TRUE') return { text: 'True' };
      if (upper === 'FALSE') return { text: 'False' };
      if (upper === 'NULL') return { text: '' };
      if (['CASE', 'EXISTS', 'COUNT', 'NOT', 'AND', 'OR', 'XOR', 'IS', 'IN'].includes(upper)) {
        throw new Unsupported();
      }
      return { text: name };
    }
    this.#at++;
    if (upper === 'COUNT' && this.#isOp('*')) {
      this.#at++;
      this.#expectOp(')');
      return { text: 'COUNT_STAR()' };
    }
    if (upper === 'CAST') {
      const value = this.#or().text;
      if (!this.#isKeyword('AS')) throw new Unsupported();
      this.#at++;
      const type: string[] = [];
      while (!this.#isOp(')')) {
        const t = this.#peek();
        if (t === undefined) throw new Unsupported();
        type.push(t.text);
        this.#at++;
      }
      this.#at++;
      return { text: `CAST(${value}, ${type.join('').toUpperCase()})` };
    }
    let distinct = '';
    if (this.#isKeyword('DISTINCT')) {
      this.#at++;
      distinct = 'DISTINCT ';
    }
    const args = this.#list(')');
    if (upper === 'ID' && args.length === 1 && !distinct) return { text: `${args[0]}._ID` };
    return { text: `${FUNCTION_NAMES[upper] ?? upper}(${distinct}${args.join(',')})` };
  }
}

/** Kùzu's name of a column GraphDB names `text` (the text itself when not rewritable). */
export function kuzuColumnName(text: string): string {
  // A name alone (an alias or a variable) is the same in both.
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(text) && !/^(true|false|null)$/i.test(text)) return text;
  try {
    return new Parser(tokenize(text)).parse();
  } catch (error) {
    if (error instanceof Unsupported) return text;
    throw error;
  }
}

const named = new WeakMap<readonly string[], readonly string[]>();

/**
 * Kùzu's names of the columns `columns` (GraphDB's frozen array, which the native side hands
 * out again for later results with the same columns: the names are worked out once).
 */
export function kuzuColumnNames(columns: readonly string[]): readonly string[] {
  let names = named.get(columns);
  if (names === undefined) {
    names = Object.freeze(columns.map(kuzuColumnName));
    named.set(columns, names);
  }
  return names;
}
