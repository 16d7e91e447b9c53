import Table from 'cli-table3';
import type { QueryResult } from '../core/query-result.js';

export type OutputFormat = 'table' | 'json' | 'csv';

/** Text of one cell as the table and CSV formats print it. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  return JSON.stringify(value, jsonReplacer);
}

/** JSON.stringify replacer that keeps bigints exact and shows Maps and Buffers. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Map) return Object.fromEntries(value);
  if (value && typeof value === 'object' && (value as { type?: string }).type === 'Buffer') {
    return Buffer.from((value as { data: number[] }).data).toString('hex');
  }
  return value;
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function formatResult(result: QueryResult, format: OutputFormat): string {
  switch (format) {
    case 'json':
      return JSON.stringify(result.toObjects(), jsonReplacer, 2);
    case 'csv': {
      const lines = [result.columns.map(csvField).join(',')];
      for (const row of result.rows) lines.push(row.map((v) => csvField(cellText(v))).join(','));
      return lines.join('\n');
    }
    case 'table': {
      const table = new Table({ head: [...result.columns], style: { head: [], border: [] } });
      for (const row of result.rows) table.push(row.map(cellText));
      const rows = result.rowCount === 1 ? '1 row' : `${result.rowCount} rows`;
      return `${table.toString()}\n(${rows})`;
    }
  }
}
