// The generated social graph: persons (id, name, age, city) and directed knows edges with a
// `since` DATE. Written once per scale to '|'-separated CSV files in the cache folder.

import fs from 'node:fs';
import path from 'node:path';
import { createRng } from './prng.mjs';

const FIRST_NAMES = (
  'Ada Alan Barbara Claude Donald Edsger Frances Grace Hedy Ivan John Katherine Leslie ' +
  'Margaret Niklaus Ole Peter Radia Shafi Tim'
).split(' ');
const LAST_NAMES = (
  'Allen Backus Cerf Dijkstra Engelbart Floyd Gray Hopper Iverson Knuth Lamport Liskov ' +
  'McCarthy Naur Perlman Ritchie Stonebraker Wirth'
).split(' ');
const CITIES = (
  'Amsterdam Berlin Cairo Delhi Edinburgh Florence Geneva Havana Istanbul Jakarta Kyoto ' +
  'Lagos Madrid Nairobi Oslo Paris Quito Rome Seoul Tokyo Utrecht Vienna Warsaw Xiamen York ' +
  'Zurich'
).split(' ');
const SEED = 20261121;
const DAY_MS = 86_400_000;
const SINCE_START = Date.UTC(2000, 0, 1);

export const EDGES_PER_PERSON = 10;

export function socialSize(scale) {
  const persons = Math.max(100, Math.round(100_000 * scale));
  return { persons, knows: persons * EDGES_PER_PERSON };
}

export function personName(rng) {
  return `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
}

export function randomCity(rng) {
  return rng.pick(CITIES);
}

export function isoDate(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

export function randomSince(rng) {
  return isoDate(SINCE_START + rng.int(9000) * DAY_MS);
}

/** Persons have ids 0..persons-1; new ids (inserts) start at `persons`. */
export function ensureSocialCsv(cacheDir, scale) {
  const { persons, knows } = socialSize(scale);
  const dir = path.join(cacheDir, `social-${persons}`);
  const personFile = path.join(dir, 'person.csv');
  const knowsFile = path.join(dir, 'knows.csv');
  const done = path.join(dir, 'DONE');
  if (fs.existsSync(done)) return { dir, personFile, knowsFile, persons, knows };
  fs.mkdirSync(dir, { recursive: true });
  const rng = createRng(SEED);
  writeLines(personFile, 'id|name|age|city', persons, (i) => {
    return `${i}|${personName(rng)}|${18 + rng.int(63)}|${randomCity(rng)}`;
  });
  // Skewed endpoints: half of the edges pick a target among the first 10% of persons, so some
  // persons have many followers, as in a real social graph.
  const hot = Math.max(1, Math.floor(persons / 10));
  writeLines(knowsFile, 'from|to|since', knows, (i) => {
    const from = Math.floor(i / EDGES_PER_PERSON);
    let to = rng.next() < 0.5 ? rng.int(hot) : rng.int(persons);
    if (to === from) to = (to + 1) % persons;
    return `${from}|${to}|${randomSince(rng)}`;
  });
  fs.writeFileSync(done, `${new Date().toISOString()}\n`);
  return { dir, personFile, knowsFile, persons, knows };
}

function writeLines(file, header, count, line) {
  const fd = fs.openSync(file, 'w');
  const chunk = [header];
  for (let i = 0; i < count; i++) {
    chunk.push(line(i));
    if (chunk.length >= 10_000) {
      fs.writeSync(fd, `${chunk.join('\n')}\n`);
      chunk.length = 0;
    }
  }
  if (chunk.length > 0) fs.writeSync(fd, `${chunk.join('\n')}\n`);
  fs.closeSync(fd);
}
