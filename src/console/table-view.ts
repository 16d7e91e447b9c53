// The table view: only the rows in sight (plus a margin) are in the DOM, so a result of
// hundreds of thousands of rows scrolls as smoothly as one of ten.

import { h, setChildren } from './dom.js';
import { shortText, type Value } from './values.js';

const ROW_HEIGHT = 28;
const OVERSCAN = 12;
const SAMPLE_ROWS = 200;

export class TableView {
  readonly element: HTMLElement;
  readonly #note: HTMLElement;
  readonly #scroll: HTMLElement;
  readonly #header: HTMLElement;
  readonly #body: HTMLElement;
  #columns: string[] = [];
  #rows: Value[][] = [];
  #frame = 0;
  #rendered = '';

  constructor() {
    this.#note = h('div', { class: 'table-note', testid: 'table-note' });
    this.#header = h('div', { class: 'table-row table-header', role: 'row' });
    this.#body = h('div', { class: 'table-body', role: 'rowgroup' });
    this.#scroll = h(
      'div',
      { class: 'table-scroll', on: { scroll: () => this.#schedule() } },
      this.#header,
      this.#body,
    );
    this.element = h(
      'div',
      { class: 'table-view', testid: 'result-table', role: 'table' },
      this.#note,
      this.#scroll,
    );
    new ResizeObserver(() => this.#schedule()).observe(this.#scroll);
  }

  /** Shows the first `limit` of `rows`, saying so when there were more. */
  show(columns: string[], rows: Value[][], limit: number): void {
    this.#columns = columns;
    this.#rows = rows.length > limit ? rows.slice(0, limit) : rows;
    this.element.setAttribute('aria-rowcount', String(this.#rows.length + 1));
    const note =
      rows.length > limit
        ? `Showing the first ${limit.toLocaleString('en-US')} of ${rows.length.toLocaleString('en-US')} rows (the row limit).`
        : rows.length === 0
          ? 'No rows.'
          : '';
    setChildren(this.#note, note);
    this.#note.hidden = note === '';
    this.element.classList.toggle('cut', rows.length > limit);
    const widths = this.#columnWidths();
    const template = `56px ${widths.map((w) => `${w}px`).join(' ')}`;
    this.#scroll.style.setProperty('--columns', template);
    this.#scroll.style.setProperty('--table-width', `${56 + widths.reduce((a, b) => a + b, 0)}px`);
    setChildren(
      this.#header,
      h('div', { class: 'cell index', role: 'columnheader' }, '#'),
      columns.map((c) => h('div', { class: 'cell', role: 'columnheader', title: c }, c)),
    );
    this.#body.style.height = `${this.#rows.length * ROW_HEIGHT}px`;
    this.#scroll.scrollTop = 0;
    this.#rendered = '';
    this.#render();
  }

  clear(): void {
    this.show([], [], 0);
    this.#note.hidden = true;
  }

  #columnWidths(): number[] {
    const sample = this.#rows.slice(0, SAMPLE_ROWS);
    return this.#columns.map((name, i) => {
      let chars = name.length;
      for (const row of sample) chars = Math.max(chars, Math.min(60, shortText(row[i] ?? null, 60).length));
      return Math.max(64, Math.min(480, Math.round(chars * 7.6 + 24)));
    });
  }

  #schedule(): void {
    if (this.#frame) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.#render();
    });
  }

  #render(): void {
    const top = this.#scroll.scrollTop;
    const height = this.#scroll.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.#rows.length, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    const key = `${first}:${last}:${this.#rows.length}`;
    if (key === this.#rendered) return;
    this.#rendered = key;
    const rows: HTMLElement[] = [];
    for (let r = first; r < last; r++) {
      const row = this.#rows[r]!;
      const el = h(
        'div',
        { class: 'table-row', role: 'row', 'aria-rowindex': String(r + 2) },
        h('div', { class: 'cell index', role: 'cell' }, String(r + 1)),
        this.#columns.map((_c, i) => {
          const value = row[i] ?? null;
          const text = shortText(value, 300);
          const kind =
            value === null
              ? 'null'
              : typeof value === 'number' || typeof value === 'bigint'
                ? 'num'
                : typeof value === 'object'
                  ? 'structured'
                  : '';
          return h('div', { class: `cell ${kind}`, role: 'cell', title: shortText(value, 4000) }, text);
        }),
      );
      el.style.transform = `translateY(${r * ROW_HEIGHT}px)`;
      rows.push(el);
    }
    setChildren(this.#body, rows);
  }
}
