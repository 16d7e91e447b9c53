// The schema panel: node and relationship tables from GET /schema with their properties and
// row counts (counted with one read query per table). Clicking a table's name inserts its
// pattern into the editor; its ▶ button runs a query that shows some of its rows.

import type { Api } from './api.js';
import type { NodeTableSchema, RelTableSchema, Schema } from './completion.js';
import { formatCount, h, setChildren } from './dom.js';

export interface SchemaPanelOptions {
  api: Api;
  insert: (text: string) => void;
  run: (query: string) => void;
  /** Called with each schema loaded (for completion and the graph's captions). */
  loaded: (schema: Schema) => void;
}

export function quoteName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name.replace(/`/g, '``')}\``;
}

export function nodePattern(table: NodeTableSchema): string {
  return `(n:${quoteName(table.name)})`;
}

export function relPattern(table: RelTableSchema): string {
  const from = table.from ? `:${quoteName(table.from)}` : '';
  const to = table.to ? `:${quoteName(table.to)}` : '';
  return `(a${from})-[r:${quoteName(table.name)}]->(b${to})`;
}

export class SchemaPanel {
  readonly element: HTMLElement;
  readonly #body: HTMLElement;
  readonly #options: SchemaPanelOptions;
  #schema: Schema | undefined;
  #generation = 0;

  constructor(options: SchemaPanelOptions) {
    this.#options = options;
    this.#body = h('div', { class: 'schema-body' }, 'Loading the schema…');
    this.element = h(
      'section',
      { class: 'schema-panel', testid: 'schema-panel', 'aria-label': 'Schema' },
      h(
        'div',
        { class: 'panel-title' },
        'Schema',
        h(
          'button',
          {
            type: 'button',
            class: 'link',
            testid: 'schema-refresh',
            title: 'Read the schema and the row counts again',
            on: { click: () => void this.refresh() },
          },
          'Refresh',
        ),
      ),
      this.#body,
    );
  }

  get schema(): Schema | undefined {
    return this.#schema;
  }

  async refresh(): Promise<void> {
    const generation = ++this.#generation;
    const outcome = await this.#options.api.schema();
    if (generation !== this.#generation) return;
    if (!outcome.ok) {
      setChildren(
        this.#body,
        h(
          'div',
          { class: 'panel-error' },
          `Could not read the schema: ${outcome.error.code}: ${outcome.error.message}`,
        ),
      );
      return;
    }
    const schema = outcome.value;
    this.#schema = schema;
    this.#options.loaded(schema);
    const counts = new Map<string, HTMLElement>();
    const countEl = (key: string) => {
      const el = h('span', { class: 'count', title: 'rows' }, '…');
      counts.set(key, el);
      return el;
    };
    const props = (list: { name: string; type: string }[], primaryKey?: string) =>
      list.length === 0
        ? h('div', { class: 'props empty' }, 'no properties')
        : h(
            'ul',
            { class: 'props' },
            list.map((p) =>
              h(
                'li',
                {},
                h('span', { class: 'prop-name' }, p.name),
                h('span', { class: 'prop-type' }, p.type),
                p.name === primaryKey ? h('span', { class: 'badge', title: 'primary key' }, 'PK') : null,
              ),
            ),
          );
    const entry = (
      kind: 'node' | 'rel',
      name: string,
      detail: string | null,
      pattern: string,
      browse: string,
      body: HTMLElement,
    ) =>
      h(
        'li',
        { class: `schema-table ${kind}`, 'data-table': name },
        h(
          'div',
          { class: 'schema-table-head' },
          h(
            'button',
            {
              type: 'button',
              class: 'table-name',
              title: `Insert ${pattern} into the editor`,
              on: { click: () => this.#options.insert(pattern) },
            },
            kind === 'node' ? `:${name}` : `[:${name}]`,
          ),
          countEl(`${kind}:${name}`),
          h(
            'button',
            {
              type: 'button',
              class: 'run-table',
              title: `Run: ${browse}`,
              'aria-label': `Show ${name}`,
              on: { click: () => this.#options.run(browse) },
            },
            '▶',
          ),
        ),
        detail ? h('div', { class: 'schema-detail' }, detail) : null,
        body,
      );
    setChildren(
      this.#body,
      h('div', { class: 'schema-group' }, `Node tables (${schema.nodeTables.length})`),
      schema.nodeTables.length === 0 ? h('div', { class: 'props empty' }, 'none yet') : null,
      h(
        'ul',
        { class: 'schema-list' },
        schema.nodeTables.map((t) =>
          entry(
            'node',
            t.name,
            null,
            nodePattern(t),
            `MATCH ${nodePattern(t)} RETURN n LIMIT 25`,
            props(t.properties, t.primaryKey),
          ),
        ),
      ),
      h('div', { class: 'schema-group' }, `Relationship tables (${schema.relTables.length})`),
      schema.relTables.length === 0 ? h('div', { class: 'props empty' }, 'none yet') : null,
      h(
        'ul',
        { class: 'schema-list' },
        schema.relTables.map((t) => {
          const pairs =
            t.pairs && t.pairs.length > 0 ? t.pairs : t.from && t.to ? [{ from: t.from, to: t.to }] : [];
          const detail = [pairs.map((p) => `${p.from} → ${p.to}`).join(', '), t.multiplicity]
            .filter(Boolean)
            .join(' · ');
          return entry(
            'rel',
            t.name,
            detail,
            relPattern(t),
            `MATCH ${relPattern(t)} RETURN a, r, b LIMIT 25`,
            props(t.properties),
          );
        }),
      ),
    );
    await this.#count(schema, counts, generation);
  }

  /** Row counts, one table after the other so that the console never takes every slot. */
  async #count(schema: Schema, counts: Map<string, HTMLElement>, generation: number): Promise<void> {
    const jobs: [string, string][] = [
      ...schema.nodeTables.map((t): [string, string] => [
        `node:${t.name}`,
        `MATCH (n:${quoteName(t.name)}) RETURN count(n)`,
      ]),
      ...schema.relTables.map((t): [string, string] => [
        `rel:${t.name}`,
        `MATCH ()-[r:${quoteName(t.name)}]->() RETURN count(r)`,
      ]),
    ];
    for (const [key, query] of jobs) {
      if (generation !== this.#generation) return;
      const outcome = await this.#options.api.cypher({ query, access_mode: 'read' });
      const el = counts.get(key);
      if (!el) continue;
      if (outcome.ok) {
        const value = outcome.value.rows[0]?.[0];
        const n = typeof value === 'bigint' ? Number(value) : typeof value === 'number' ? value : Number.NaN;
        setChildren(el, Number.isFinite(n) ? formatCount(n) : '?');
        el.title = `${Number.isFinite(n) ? formatCount(n) : '?'} rows`;
      } else {
        setChildren(el, '?');
        el.title = outcome.error.message;
      }
    }
  }
}
