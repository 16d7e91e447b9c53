// The smaller parts of the console: the JSON and plan views, the properties inspector, the
// status bar and the token prompt.

import type { Api, ServiceStatusAnswer, TokenPrompt } from './api.js';
import { formatCount, h, setChildren } from './dom.js';
import type { SelectedItem } from './graph-view.js';
import { type PlanNode, parsePlan } from './plan.js';
import { toJson, type Value } from './values.js';

const JSON_ROW_LIMIT = 1000;
const JSON_CHAR_LIMIT = 2_000_000;

/** The result as JSON objects, one per row, the first rows only for big results. */
export class JsonView {
  readonly element: HTMLElement;
  readonly #note: HTMLElement;
  readonly #pre: HTMLElement;
  #pending: (() => string) | undefined;

  constructor() {
    this.#note = h('div', { class: 'table-note' });
    this.#pre = h('pre', { class: 'json-text' });
    this.element = h('div', { class: 'json-view', testid: 'json-view' }, this.#note, this.#pre);
  }

  /** Keeps the result; the text is made when the view is first shown. */
  show(columns: string[], rows: Value[][]): void {
    this.#pending = () => {
      const shown = rows.slice(0, JSON_ROW_LIMIT);
      const objects = shown.map((row) => Object.fromEntries(columns.map((c, i) => [c, row[i] ?? null])));
      let text = toJson(objects, 2);
      let note =
        rows.length > shown.length
          ? `The first ${formatCount(shown.length)} of ${formatCount(rows.length)} rows.`
          : '';
      if (text.length > JSON_CHAR_LIMIT) {
        text = `${text.slice(0, JSON_CHAR_LIMIT)}\n…`;
        note = `The first ${formatCount(JSON_CHAR_LIMIT)} characters of the first ${formatCount(shown.length)} rows.`;
      }
      setChildren(this.#note, note);
      this.#note.hidden = note === '';
      return text;
    };
    setChildren(this.#pre);
  }

  visible(): void {
    if (!this.#pending) return;
    const text = this.#pending();
    this.#pending = undefined;
    setChildren(this.#pre, text);
  }
}

/** EXPLAIN's plan as a tree of operators. */
export class PlanView {
  readonly element = h('div', { class: 'plan-view', testid: 'plan-view' });

  show(text: string): void {
    const render = (node: PlanNode): HTMLElement =>
      h(
        'li',
        {},
        h(
          'div',
          { class: 'plan-op' },
          h('span', { class: 'plan-name' }, node.operator),
          node.details ? h('span', { class: 'plan-details' }, node.details) : null,
        ),
        node.children.length > 0 ? h('ul', {}, node.children.map(render)) : null,
      );
    const roots = parsePlan(text);
    setChildren(
      this.element,
      h(
        'p',
        { class: 'plan-hint' },
        'Rows flow upwards: each operator reads the rows of the operators under it.',
      ),
      h('ul', { class: 'plan-tree' }, roots.map(render)),
    );
  }

  clear(): void {
    setChildren(this.element);
  }
}

/** The properties of the node or relationship clicked in the graph. */
export class Inspector {
  readonly element = h('aside', { class: 'inspector', testid: 'inspector', 'aria-label': 'Properties' });

  constructor() {
    this.element.hidden = true;
  }

  show(item: SelectedItem | null): void {
    this.element.hidden = item === null;
    if (!item) return;
    const rows = Object.entries(item.properties).map(([key, value]) =>
      h('tr', {}, h('th', {}, key), h('td', {}, typeof value === 'string' ? value : toJson(value))),
    );
    setChildren(
      this.element,
      h(
        'div',
        { class: 'inspector-head' },
        h(
          'span',
          { class: `inspector-kind ${item.kind}` },
          item.kind === 'node' ? `:${item.label}` : `[:${item.label}]`,
        ),
        h(
          'button',
          { type: 'button', class: 'link', 'aria-label': 'Close', on: { click: () => this.show(null) } },
          '×',
        ),
      ),
      h(
        'table',
        {},
        h('tr', {}, h('th', {}, '_id'), h('td', {}, item.id)),
        item.kind === 'rel'
          ? [
              h('tr', {}, h('th', {}, '_src'), h('td', {}, item.source)),
              h('tr', {}, h('th', {}, '_dst'), h('td', {}, item.target)),
            ]
          : null,
        rows,
      ),
      rows.length === 0 ? h('p', { class: 'props empty' }, 'no properties') : null,
    );
  }
}

function formatUptime(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const hours = Math.floor(m / 60);
  return hours < 48 ? `${hours} h ${m % 60} min` : `${Math.floor(hours / 24)} days`;
}

/** GET /status every few seconds while the page is visible. */
export class StatusBar {
  readonly element: HTMLElement;
  readonly #text: HTMLElement;
  readonly #token: HTMLElement;
  readonly #api: Api;
  #timer = 0;

  constructor(api: Api) {
    this.#api = api;
    this.#text = h('span', { class: 'status-text' }, 'Connecting…');
    this.#token = h(
      'button',
      {
        type: 'button',
        class: 'link',
        testid: 'forget-token',
        title: 'Forget the access token of this tab',
        on: { click: () => api.forgetToken() },
      },
      'Forget token',
    );
    this.#token.hidden = !api.hasToken;
    api.onTokenChange = (has) => {
      this.#token.hidden = !has;
    };
    this.element = h('footer', { class: 'status-bar', testid: 'status-bar' }, this.#text, this.#token);
  }

  start(intervalMs = 5000): void {
    void this.refresh();
    this.#timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') void this.refresh();
    }, intervalMs);
  }

  stop(): void {
    window.clearInterval(this.#timer);
  }

  async refresh(): Promise<void> {
    const outcome = await this.#api.status();
    this.element.classList.toggle('down', !outcome.ok || outcome.value.status !== 'running');
    if (!outcome.ok) {
      setChildren(this.#text, `● ${outcome.error.message}`);
      return;
    }
    const s: ServiceStatusAnswer = outcome.value;
    setChildren(
      this.#text,
      [
        `● ${s.status}`,
        `QuiverDB ${s.version}`,
        `up ${formatUptime(s.uptimeMs)}`,
        `slots ${s.slots.inUse}/${s.slots.total} in use`,
        `${s.slots.waiting} waiting`,
        `${formatCount(s.executedQueries)} queries`,
      ].join('  ·  '),
    );
  }
}

/** A modal that asks for the service's access token (after a 401). */
export function tokenPrompt(): TokenPrompt {
  return (reason) =>
    new Promise((resolve) => {
      const input = h('input', {
        type: 'password',
        testid: 'token-input',
        attrs: { autocomplete: 'off', 'aria-label': 'Access token', placeholder: 'token' },
      });
      const finish = (value: string | null) => {
        dialog.close();
        dialog.remove();
        resolve(value);
      };
      input.addEventListener('keydown', (event) => {
        if (event.key === 'Enter') finish(input.value);
      });
      const dialog = h(
        'dialog',
        { class: 'token-dialog', testid: 'token-dialog', 'aria-label': 'Access token' },
        h('h2', {}, 'This service needs an access token'),
        h('p', { class: 'token-reason' }, reason),
        h('p', {}, 'The token is kept for this tab only (session storage) and sent as a Bearer token.'),
        input,
        h(
          'div',
          { class: 'dialog-buttons' },
          h('button', { type: 'button', on: { click: () => finish(null) } }, 'Cancel'),
          h(
            'button',
            {
              type: 'button',
              class: 'primary',
              testid: 'token-submit',
              on: { click: () => finish(input.value) },
            },
            'Use token',
          ),
        ),
      );
      dialog.addEventListener('cancel', (event) => {
        event.preventDefault();
        finish(null);
      });
      document.body.appendChild(dialog);
      dialog.showModal();
      input.focus();
    });
}
