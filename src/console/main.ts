// The web console (docs/console.md): builds the page, runs queries through POST /cypher and
// shows their results. Served by src/http/console.ts from the bundle that
// scripts/build-console.mjs makes of this folder.

import './styles.css';
import { Api, type CypherRequest } from './api.js';
import type { Schema } from './completion.js';
import { byTestId, formatCount, formatMs, h, setChildren } from './dom.js';
import { createEditor, type QueryEditor } from './editor.js';
import { extractGraph, type GraphNode, hasGraphValues } from './graph-model.js';
import { GraphView } from './graph-view.js';
import { Inspector, JsonView, PlanView, StatusBar, tokenPrompt } from './panels.js';
import { isExplainAnswer } from './plan.js';
import { quoteName, SchemaPanel } from './schema-panel.js';
import {
  addHistory,
  clearHistory,
  deleteSaved,
  type HistoryEntry,
  loadHistory,
  loadSaved,
  loadSetting,
  type SavedQuery,
  saveQuery,
  saveSetting,
} from './storage.js';
import { TableView } from './table-view.js';
import { parseJson, type QueryAnswer, type Value } from './values.js';

/** Most nodes the graph view draws of one result. */
const GRAPH_NODE_LIMIT = 5000;
/** Most neighbours one expansion fetches. */
const EXPAND_LIMIT = 100;
const DEFAULT_ROW_LIMIT = 10_000;

type Tab = 'table' | 'graph' | 'json' | 'plan';
type Mode = '' | 'read' | 'insert' | 'update' | 'schema';

const MODES: [Mode, string][] = [
  ['', 'auto'],
  ['read', 'read'],
  ['insert', 'insert'],
  ['update', 'update'],
  ['schema', 'schema'],
];

/** Statements after which the schema (or its row counts) may have changed. */
const CHANGES_SCHEMA = /^\s*(create\s+(node|rel)|drop|alter|copy|import|load\s+extension)/i;

function relativeTime(at: number): string {
  const s = Math.round((Date.now() - at) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(at).toLocaleDateString();
}

class ConsoleApp {
  readonly api = new Api(new URL('.', window.location.href), tokenPrompt());
  readonly editor: QueryEditor;
  readonly schemaPanel: SchemaPanel;
  readonly graph: GraphView;
  readonly inspector = new Inspector();
  readonly table = new TableView();
  readonly json = new JsonView();
  readonly plan = new PlanView();
  readonly status: StatusBar;

  readonly #runButton: HTMLButtonElement;
  readonly #modeSelect: HTMLSelectElement;
  readonly #rowLimit: HTMLInputElement;
  readonly #params: HTMLTextAreaElement;
  readonly #paramsPanel: HTMLElement;
  readonly #error: HTMLElement;
  readonly #summary: HTMLElement;
  readonly #tabs = new Map<Tab, HTMLButtonElement>();
  readonly #views = new Map<Tab, HTMLElement>();
  readonly #historyList: HTMLElement;
  readonly #savedList: HTMLElement;
  readonly #saveName: HTMLInputElement;
  #schema: Schema | undefined;
  #running: AbortController | undefined;
  #tab: Tab = 'table';

  constructor(root: HTMLElement) {
    this.status = new StatusBar(this.api);
    this.graph = new GraphView({
      onSelect: (item) => this.inspector.show(item),
      onExpand: (node) => this.#expand(node),
      primaryKey: (label) => this.#schema?.nodeTables.find((t) => t.name === label)?.primaryKey,
    });

    this.#modeSelect = h(
      'select',
      {
        testid: 'access-mode',
        title: 'Access mode: what the statement may do (auto: inferred from the query)',
        on: { change: () => saveSetting('mode', this.#modeSelect.value) },
      },
      MODES.map(([value, text]) => h('option', { attrs: { value } }, text)),
    );
    this.#modeSelect.value = loadSetting('mode', '');
    this.#rowLimit = h('input', {
      type: 'number',
      testid: 'row-limit',
      title: 'Most rows the table shows',
      attrs: { min: '1', step: '1000', 'aria-label': 'Row limit' },
      on: { change: () => saveSetting('rowLimit', this.#rowLimit.value) },
    });
    this.#rowLimit.value = loadSetting('rowLimit', String(DEFAULT_ROW_LIMIT));
    this.#runButton = h(
      'button',
      {
        type: 'button',
        class: 'primary run',
        testid: 'run-query',
        title: 'Run (Ctrl+Enter / ⌘+Enter)',
        on: { click: () => (this.#running ? this.#running.abort() : void this.run()) },
      },
      'Run',
    );
    this.#params = h('textarea', {
      testid: 'params-editor',
      attrs: { spellcheck: 'false', 'aria-label': 'Parameters (JSON object)', placeholder: '{"id": 1}' },
      on: {
        input: () => saveSetting('params', this.#params.value),
        keydown: (event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            void this.run();
          }
        },
      },
    });
    this.#params.value = loadSetting('params', '');
    this.#paramsPanel = h(
      'div',
      { class: 'params-panel', testid: 'params-panel' },
      h('div', { class: 'panel-title' }, 'Parameters', h('span', { class: 'hint' }, 'JSON · $name')),
      this.#params,
    );
    this.#paramsPanel.hidden = loadSetting('paramsOpen', '') !== 'yes';
    const paramsToggle = h(
      'button',
      {
        type: 'button',
        testid: 'params-toggle',
        title: 'Show or hide the parameters',
        on: {
          click: () => {
            this.#paramsPanel.hidden = !this.#paramsPanel.hidden;
            saveSetting('paramsOpen', this.#paramsPanel.hidden ? '' : 'yes');
          },
        },
      },
      'Parameters',
    );

    const editorHost = h('div', { class: 'editor', testid: 'query-editor' });
    this.#error = h('div', { class: 'error-message', testid: 'error-message', role: 'alert' });
    this.#error.hidden = true;
    this.#summary = h('div', { class: 'result-summary', testid: 'result-summary', 'aria-live': 'polite' });

    const tab = (id: Tab, text: string) => {
      const b = h(
        'button',
        { type: 'button', role: 'tab', testid: `tab-${id}`, on: { click: () => this.showTab(id) } },
        text,
      );
      this.#tabs.set(id, b);
      return b;
    };
    const graphPane = h('div', { class: 'graph-pane' }, this.graph.element, this.inspector.element);
    this.#views.set('table', this.table.element);
    this.#views.set('graph', graphPane);
    this.#views.set('json', this.json.element);
    this.#views.set('plan', this.plan.element);

    this.schemaPanel = new SchemaPanel({
      api: this.api,
      insert: (text) => this.editor.insert(text),
      run: (query) => {
        this.editor.setText(query);
        void this.run();
      },
      loaded: (schema) => {
        this.#schema = schema;
      },
    });
    this.#historyList = h('ul', { class: 'query-list', testid: 'history-list' });
    this.#savedList = h('ul', { class: 'query-list', testid: 'saved-list' });
    this.#saveName = h('input', {
      type: 'text',
      testid: 'save-name',
      attrs: { placeholder: 'name', 'aria-label': 'Name of the saved query' },
      on: {
        keydown: (event) => {
          if (event.key === 'Enter') this.#saveCurrent();
        },
      },
    });
    const sideTabs = new Map<string, [HTMLButtonElement, HTMLElement]>();
    const sideTab = (id: string, text: string, panel: HTMLElement) => {
      const b = h(
        'button',
        {
          type: 'button',
          role: 'tab',
          testid: `side-${id}`,
          on: {
            click: () => {
              for (const [key, [button, el]] of sideTabs) {
                button.setAttribute('aria-selected', String(key === id));
                el.hidden = key !== id;
              }
              if (id === 'history') this.#renderHistory();
            },
          },
        },
        text,
      );
      sideTabs.set(id, [b, panel]);
      return b;
    };
    const historyPanel = h(
      'section',
      { class: 'side-panel' },
      h(
        'div',
        { class: 'panel-title' },
        'History',
        h(
          'button',
          {
            type: 'button',
            class: 'link',
            on: {
              click: () => {
                clearHistory();
                this.#renderHistory();
              },
            },
          },
          'Clear',
        ),
      ),
      this.#historyList,
    );
    const savedPanel = h(
      'section',
      { class: 'side-panel' },
      h('div', { class: 'panel-title' }, 'Saved queries'),
      h(
        'div',
        { class: 'save-form' },
        this.#saveName,
        h(
          'button',
          { type: 'button', testid: 'save-query', on: { click: () => this.#saveCurrent() } },
          'Save current',
        ),
      ),
      this.#savedList,
    );
    historyPanel.hidden = true;
    savedPanel.hidden = true;

    setChildren(
      root,
      h(
        'header',
        { class: 'topbar' },
        h('div', { class: 'brand' }, h('span', { class: 'logo', 'aria-hidden': 'true' }), 'QuiverDB console'),
        h('div', { class: 'spacer' }),
        h('label', { class: 'field' }, 'Access mode ', this.#modeSelect),
        h('label', { class: 'field' }, 'Row limit ', this.#rowLimit),
        paramsToggle,
        this.#runButton,
      ),
      h(
        'div',
        { class: 'layout' },
        h(
          'aside',
          { class: 'sidebar' },
          h(
            'div',
            { class: 'side-tabs', role: 'tablist' },
            sideTab('schema', 'Schema', this.schemaPanel.element),
            sideTab('history', 'History', historyPanel),
            sideTab('saved', 'Saved', savedPanel),
          ),
          this.schemaPanel.element,
          historyPanel,
          savedPanel,
        ),
        h(
          'main',
          { class: 'work' },
          h('div', { class: 'editor-row' }, editorHost, this.#paramsPanel),
          this.#error,
          h(
            'section',
            { class: 'results', 'aria-label': 'Result' },
            h(
              'div',
              { class: 'result-bar' },
              h(
                'div',
                { class: 'result-tabs', role: 'tablist' },
                tab('table', 'Table'),
                tab('graph', 'Graph'),
                tab('json', 'JSON'),
                tab('plan', 'Plan'),
              ),
              this.#summary,
            ),
            h('div', { class: 'result-views' }, [...this.#views.values()]),
          ),
        ),
      ),
      this.status.element,
    );
    sideTabs.get('schema')![0].setAttribute('aria-selected', 'true');
    for (const [key, [button]] of sideTabs)
      if (key !== 'schema') button.setAttribute('aria-selected', 'false');

    this.editor = createEditor({
      parent: editorHost,
      initialText: loadSetting('draft', 'MATCH (n) RETURN n LIMIT 25'),
      onRun: () => void this.run(),
      onChange: (text) => saveSetting('draft', text),
      schema: () => this.#schema,
      parameterNames: () => this.#parameterNames(),
    });
    this.#tabs.get('plan')!.hidden = true;
    this.#tabs.get('graph')!.disabled = true;
    this.showTab('table');
    this.table.clear();
    this.#renderSaved();
    new ResizeObserver(() => {
      if (this.#tab === 'graph') this.graph.visible();
    }).observe(graphPane);
  }

  start(): void {
    this.status.start();
    void this.schemaPanel.refresh();
    this.editor.focus();
  }

  showTab(id: Tab): void {
    this.#tab = id;
    for (const [key, button] of this.#tabs) button.setAttribute('aria-selected', String(key === id));
    for (const [key, view] of this.#views) view.hidden = key !== id;
    if (id === 'graph') this.graph.visible();
    if (id === 'json') this.json.visible();
  }

  #parameterNames(): string[] {
    try {
      const value = parseJson(this.#params.value || '{}');
      return value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
    } catch {
      return [];
    }
  }

  #rowLimitValue(): number {
    const n = Number(this.#rowLimit.value);
    return Number.isInteger(n) && n > 0 ? n : DEFAULT_ROW_LIMIT;
  }

  #showError(text: string, position?: { line: number; column: number; message: string }): void {
    setChildren(this.#error, text);
    this.#error.hidden = false;
    if (position) this.editor.markError(position.line, position.column, position.message);
  }

  #clearError(): void {
    this.#error.hidden = true;
    setChildren(this.#error);
    this.editor.clearErrors();
  }

  async run(): Promise<void> {
    if (this.#running) return;
    const query = this.editor.text();
    const paramsText = this.#params.value.trim();
    const mode = this.#modeSelect.value as Mode;
    this.#clearError();
    if (query.trim() === '') {
      this.#showError('Write a Cypher statement first.');
      return;
    }
    let parameters: Record<string, Value> | undefined;
    if (paramsText !== '') {
      let value: unknown;
      try {
        value = parseJson(paramsText);
      } catch (error) {
        this.#showError(
          `The parameters are not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
        );
        return;
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        this.#showError('The parameters must be a JSON object, like {"id": 1}.');
        return;
      }
      parameters = value as Record<string, Value>;
    }
    const request: CypherRequest = { query };
    if (mode) request.access_mode = mode;
    if (parameters) request.parameters = parameters;

    const controller = new AbortController();
    this.#running = controller;
    this.#runButton.textContent = 'Stop';
    this.#runButton.classList.add('running');
    setChildren(this.#summary, 'Running…');
    const outcome = await this.api.cypher(request, controller.signal);
    this.#running = undefined;
    this.#runButton.textContent = 'Run';
    this.#runButton.classList.remove('running');
    // For automation: counts the finished runs, so that a script can wait for the next one.
    this.#summary.dataset.runs = String(Number(this.#summary.dataset.runs ?? '0') + 1);

    void this.status.refresh();
    addHistory({ query, params: paramsText, mode, at: Date.now(), ok: outcome.ok } satisfies HistoryEntry);
    this.#renderHistory();
    if (!outcome.ok) {
      const e = outcome.error;
      const where = e.line !== undefined ? ` (line ${e.line}, column ${e.column ?? 1})` : '';
      this.#showError(
        `${e.code}${where}: ${e.message}`,
        e.line !== undefined ? { line: e.line, column: e.column ?? 1, message: e.message } : undefined,
      );
      setChildren(this.#summary, `Failed after ${formatMs(outcome.roundTripMs)}`);
      // The plan of an earlier query would read as this one's.
      this.plan.clear();
      this.#tabs.get('plan')!.hidden = true;
      if (this.#tab === 'plan') this.showTab('table');
      return;
    }
    this.#showAnswer(outcome.value, outcome.roundTripMs);
    const c = outcome.value.summary.counters;
    const changed = Object.values(c).some((n) => typeof n === 'number' && n > 0);
    if (CHANGES_SCHEMA.test(query) || changed) void this.schemaPanel.refresh();
  }

  #showAnswer(answer: QueryAnswer, roundTripMs: number): void {
    const { columns, rows, summary } = answer;
    const limit = this.#rowLimitValue();
    this.table.show(columns, rows, limit);
    this.json.show(columns, rows);
    const explain = isExplainAnswer(columns, rows);
    this.#tabs.get('plan')!.hidden = !explain;
    if (explain) this.plan.show(String(rows[0]?.[0] ?? ''));
    const graphRows = rows.length > limit ? rows.slice(0, limit) : rows;
    const drawable = hasGraphValues(graphRows);
    this.#tabs.get('graph')!.disabled = !drawable;
    if (drawable) this.graph.show(extractGraph(graphRows, GRAPH_NODE_LIMIT));
    else this.graph.clear();
    this.inspector.show(null);

    const parts = [
      `${formatCount(summary.rowCount ?? rows.length)} ${rows.length === 1 ? 'row' : 'rows'}`,
      `${formatMs(summary.elapsedMs ?? 0)} in the engine`,
      `${formatMs(roundTripMs)} round trip`,
    ];
    const names: [keyof typeof summary.counters, string][] = [
      ['nodesCreated', 'nodes created'],
      ['nodesDeleted', 'nodes deleted'],
      ['relationshipsCreated', 'relationships created'],
      ['relationshipsDeleted', 'relationships deleted'],
      ['propertiesSet', 'properties set'],
    ];
    for (const [key, text] of names) {
      const n = summary.counters?.[key];
      if (typeof n === 'number' && n > 0) parts.push(`${formatCount(n)} ${text}`);
    }
    setChildren(this.#summary, parts.join(' · '));
    this.showTab(explain ? 'plan' : drawable ? 'graph' : 'table');
  }

  /** Double-click in the graph: the node's neighbours, by primary key where the schema has one. */
  async #expand(node: GraphNode): Promise<string> {
    const table = this.#schema?.nodeTables.find((t) => t.name === node.label);
    const key = table?.primaryKey;
    const keyValue = key === undefined ? undefined : node.properties[key];
    let request: CypherRequest;
    if (key !== undefined && keyValue !== undefined && keyValue !== null) {
      request = {
        query: `MATCH (a:${quoteName(node.label)})-[r]-(b) WHERE a.${quoteName(key)} = $key RETURN a, r, b LIMIT ${EXPAND_LIMIT}`,
        access_mode: 'read',
        parameters: { key: keyValue },
      };
    } else {
      const match = /^(\d+):(\d+)$/.exec(node.id);
      if (!match) throw new Error(`cannot tell the table of node ${node.id}`);
      request = {
        query: `MATCH (a)-[r]-(b) WHERE id(a) = internal_id($table, $offset) RETURN a, r, b LIMIT ${EXPAND_LIMIT}`,
        access_mode: 'read',
        parameters: { table: Number(match[1]), offset: Number(match[2]) },
      };
    }
    const outcome = await this.api.cypher(request);
    if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
    const added = this.graph.merge(extractGraph(outcome.value.rows, GRAPH_NODE_LIMIT), node.id);
    if (added.nodes === 0 && added.rels === 0) return `No more neighbours of this ${node.label}`;
    const more = outcome.value.rows.length >= EXPAND_LIMIT ? ` (the first ${EXPAND_LIMIT})` : '';
    return `Expanded a ${node.label}: +${formatCount(added.nodes)} nodes, +${formatCount(added.rels)} relationships${more}`;
  }

  #renderHistory(): void {
    const list = loadHistory();
    setChildren(
      this.#historyList,
      list.length === 0 ? h('li', { class: 'empty' }, 'Queries you run appear here.') : null,
      list.map((entry) =>
        h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              class: `query-item ${entry.ok ? '' : 'failed'}`,
              title: entry.query,
              on: { click: () => this.#load(entry.query, entry.params) },
            },
            h('code', {}, entry.query),
            h('span', { class: 'when' }, `${relativeTime(entry.at)}${entry.mode ? ` · ${entry.mode}` : ''}`),
          ),
        ),
      ),
    );
  }

  #renderSaved(list: SavedQuery[] = loadSaved()): void {
    setChildren(
      this.#savedList,
      list.length === 0
        ? h('li', { class: 'empty' }, 'Give the current query a name to keep it here.')
        : null,
      list.map((saved) =>
        h(
          'li',
          { class: 'saved-row' },
          h(
            'button',
            {
              type: 'button',
              class: 'query-item',
              title: saved.query,
              on: { click: () => this.#load(saved.query, saved.params) },
            },
            h('span', { class: 'saved-name' }, saved.name),
            h('code', {}, saved.query),
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'link delete',
              'aria-label': `Delete ${saved.name}`,
              on: { click: () => this.#renderSaved(deleteSaved(saved.name)) },
            },
            '×',
          ),
        ),
      ),
    );
  }

  #saveCurrent(): void {
    const name = this.#saveName.value.trim();
    if (name === '') {
      this.#saveName.focus();
      this.#saveName.classList.add('invalid');
      return;
    }
    this.#saveName.classList.remove('invalid');
    this.#renderSaved(saveQuery({ name, query: this.editor.text(), params: this.#params.value }));
    this.#saveName.value = '';
  }

  #load(query: string, params: string): void {
    this.editor.setText(query);
    this.#params.value = params;
    saveSetting('params', params);
    if (params.trim() !== '') {
      this.#paramsPanel.hidden = false;
      saveSetting('paramsOpen', 'yes');
    }
    this.editor.focus();
  }
}

new ConsoleApp(byTestId('console-root')).start();
