#!/usr/bin/env node
// Prints the sections of a database folder's data files (format version 3 and later; layout in
// docs/storage-format.md): per file its size, descriptor size and each section's offset and
// length, so the cost of each encoding can be measured on a real database.
//
//   node scripts/section-sizes.mjs <db folder> [--json]
//
// The descriptor names sections by index; which array a section holds follows from the
// descriptor (columns in catalog order, then stamps, index, adjacency), which this script does
// not decode: it lists the sections in file order with their lengths.
import fs from 'node:fs';
import path from 'node:path';

const [dir, flag] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('usage: node scripts/section-sizes.mjs <db folder> [--json]\n');
  process.exit(2);
}
const HEADER = 16;
const FOOTER = 20;
const TRAILER = 20;
const ENTRY = 20;
const mib = (n) => Math.round((n / 2 ** 20) * 100) / 100;
const report = [];
let total = 0;
for (const name of fs.readdirSync(dir).sort()) {
  const file = path.join(dir, name);
  const size = fs.statSync(file).size;
  total += size;
  const entry = { name, bytes: size, mib: mib(size) };
  report.push(entry);
  if (!name.endsWith('.gdb') || size < HEADER + FOOTER + TRAILER) continue;
  const fd = fs.openSync(file, 'r');
  const head = Buffer.alloc(HEADER);
  fs.readSync(fd, head, 0, HEADER, 0);
  entry.version = head.readUInt32LE(8);
  entry.kind = ['', 'catalog', 'node', 'rel'][head[12]] ?? head[12];
  if (entry.version < 3) {
    fs.closeSync(fd);
    continue;
  }
  const trailer = Buffer.alloc(TRAILER);
  const end = size - FOOTER;
  fs.readSync(fd, trailer, 0, TRAILER, end - TRAILER);
  const count = trailer.readUInt32LE(16);
  entry.descriptor = Number(trailer.readBigUInt64LE(8));
  const table = Buffer.alloc(count * ENTRY);
  fs.readSync(fd, table, 0, table.length, end - TRAILER - table.length);
  fs.closeSync(fd);
  entry.sections = [];
  for (let i = 0; i < count; i++) {
    const offset = Number(table.readBigUInt64LE(i * ENTRY));
    const length = Number(table.readBigUInt64LE(i * ENTRY + 8));
    entry.sections.push({ index: i, offset, length, mib: mib(length) });
  }
}
if (flag === '--json') {
  process.stdout.write(`${JSON.stringify({ total, files: report }, null, 2)}\n`);
} else {
  for (const f of report) {
    process.stdout.write(
      `${f.name}  ${f.mib} MiB${f.version ? `  v${f.version} ${f.kind}` : ''}` +
        `${f.descriptor !== undefined ? `  descriptor ${f.descriptor} B` : ''}\n`,
    );
    for (const s of f.sections ?? []) {
      process.stdout.write(`  section ${s.index}: ${s.length} B (${s.mib} MiB) at ${s.offset}\n`);
    }
  }
  process.stdout.write(`total ${mib(total)} MiB\n`);
}
