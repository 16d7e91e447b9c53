// What the console remembers in the browser's localStorage: the query history, saved queries,
// the access mode, the parameters and the graph styles. Nothing of it leaves the browser.

const PREFIX = 'graphdb.console.';
const HISTORY_LIMIT = 100;

export interface HistoryEntry {
  query: string;
  params: string;
  mode: string;
  /** ms since the epoch */
  at: number;
  ok: boolean;
}

export interface SavedQuery {
  name: string;
  query: string;
  params: string;
}

export interface LabelStyle {
  color?: string;
  caption?: string;
}

function read<T>(key: string, fallback: T, valid: (value: unknown) => value is T): T {
  try {
    const text = localStorage.getItem(PREFIX + key);
    if (text === null) return fallback;
    const value: unknown = JSON.parse(text);
    return valid(value) ? value : fallback;
  } catch {
    return fallback;
  }
}

function write(key: string, value: unknown): void {
  try {
    localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // storage full or disabled: the console still works, it just forgets
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isHistory = (v: unknown): v is HistoryEntry[] =>
  Array.isArray(v) && v.every((e) => isObject(e) && typeof e.query === 'string' && typeof e.at === 'number');

const isSaved = (v: unknown): v is SavedQuery[] =>
  Array.isArray(v) &&
  v.every((e) => isObject(e) && typeof e.name === 'string' && typeof e.query === 'string');

const isStyles = (v: unknown): v is Record<string, LabelStyle> =>
  isObject(v) && Object.values(v).every(isObject);

const isString = (v: unknown): v is string => typeof v === 'string';

export function loadHistory(): HistoryEntry[] {
  return read('history', [], isHistory);
}

/** Adds `entry` first; the same query run again moves up instead of appearing twice. */
export function addHistory(entry: HistoryEntry): HistoryEntry[] {
  const list = loadHistory().filter((e) => !(e.query === entry.query && e.params === entry.params));
  list.unshift(entry);
  list.length = Math.min(list.length, HISTORY_LIMIT);
  write('history', list);
  return list;
}

export function clearHistory(): void {
  write('history', []);
}

export function loadSaved(): SavedQuery[] {
  return read('saved', [], isSaved);
}

/** Saves under `name`, replacing a saved query of that name. */
export function saveQuery(query: SavedQuery): SavedQuery[] {
  const list = loadSaved().filter((q) => q.name !== query.name);
  list.push(query);
  list.sort((a, b) => a.name.localeCompare(b.name));
  write('saved', list);
  return list;
}

export function deleteSaved(name: string): SavedQuery[] {
  const list = loadSaved().filter((q) => q.name !== name);
  write('saved', list);
  return list;
}

export function loadLabelStyles(): Record<string, LabelStyle> {
  return read('styles', {}, isStyles);
}

export function saveLabelStyles(styles: Record<string, LabelStyle>): void {
  write('styles', styles);
}

export function loadSetting(key: string, fallback: string): string {
  return read(`setting.${key}`, fallback, isString);
}

export function saveSetting(key: string, value: string): void {
  write(`setting.${key}`, value);
}
