// A small helper to build DOM elements. Text always goes in as text nodes (never as HTML), so
// values from the database cannot inject markup; styles only through CSS classes and the
// CSSOM, so the page works under a strict Content-Security-Policy (no inline styles).

type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  testid?: string;
  title?: string;
  type?: string;
  role?: string;
  [attribute: `aria-${string}`]: string;
  [attribute: `data-${string}`]: string;
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (event: HTMLElementEventMap[K]) => void }>;
  attrs?: Record<string, string>;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined) continue;
    if (key === 'class') el.className = value as string;
    else if (key === 'testid') el.dataset.testid = value as string;
    else if (key === 'on') {
      for (const [name, handler] of Object.entries(value as Record<string, EventListener>)) {
        el.addEventListener(name, handler);
      }
    } else if (key === 'attrs') {
      for (const [name, v] of Object.entries(value as Record<string, string>)) el.setAttribute(name, v);
    } else el.setAttribute(key, value as string);
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `parent`. */
export function setChildren(parent: Node, ...children: (Child | Child[])[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, children);
}

export function byTestId<T extends HTMLElement = HTMLElement>(
  testid: string,
  root: ParentNode = document,
): T {
  const el = root.querySelector<T>(`[data-testid="${testid}"]`);
  if (!el) throw new Error(`no element with data-testid=${testid}`);
  return el;
}

/** 1234567 -> "1,234,567". */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** Milliseconds as "0.12 ms", "35 ms", "1.20 s". */
export function formatMs(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}
