// `graphdb serve --demo`: a small, deterministic social network (people, the cities they live
// in, who knows whom since when), generated here and loaded through Cypher with parameters.

import type { Connection } from '../core/connection.js';
import { GraphDBError } from '../core/errors.js';

export interface DemoPerson {
  id: number;
  name: string;
  age: number;
}

export interface DemoCity {
  id: number;
  name: string;
  country: string;
}

export interface DemoGraph {
  persons: DemoPerson[];
  cities: DemoCity[];
  /** Person -> Person, with the year they met. */
  knows: { from: number; to: number; since: number }[];
  /** Person -> City (each person lives in one city). */
  livesIn: { person: number; city: number }[];
}

export const DEMO_SCHEMA = [
  'CREATE NODE TABLE Person(id INT64, name STRING, age INT64, PRIMARY KEY(id))',
  'CREATE NODE TABLE City(id INT64, name STRING, country STRING, PRIMARY KEY(id))',
  'CREATE REL TABLE Knows(FROM Person TO Person, since INT64)',
  'CREATE REL TABLE LivesIn(FROM Person TO City, MANY_ONE)',
];

/** Each fails to bind unless its table exists. */
const DEMO_TABLE_PROBES = [
  'MATCH (n:Person) RETURN count(n)',
  'MATCH (n:City) RETURN count(n)',
  'MATCH ()-[r:Knows]->() RETURN count(r)',
  'MATCH ()-[r:LivesIn]->() RETURN count(r)',
];

// biome-ignore format: a word list
const FIRST_NAMES = [
  'Alice', 'Bob', 'Carol', 'Dan', 'Eve', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy', 'Karl', 'Lena',
  'Mallory', 'Nina', 'Oscar', 'Peggy', 'Quinn', 'Rupert', 'Sybil', 'Trent', 'Uma', 'Victor',
  'Wendy', 'Xavier', 'Yara', 'Zoe',
];

// biome-ignore format: a word list
const LAST_NAMES = [
  'Anders', 'Baker', 'Chen', 'Dubois', 'Evans', 'Fischer', 'Garcia', 'Haas', 'Ito', 'Jensen',
  'Kowalski', 'Lopez', 'Müller', 'Novak', 'Okafor', 'Petrov', 'Rossi', 'Silva', 'Tanaka', 'Weber',
];

const CITIES: [string, string][] = [
  ['Amsterdam', 'Netherlands'],
  ['Berlin', 'Germany'],
  ['Lisbon', 'Portugal'],
  ['Madrid', 'Spain'],
  ['Montreal', 'Canada'],
  ['Nairobi', 'Kenya'],
  ['Osaka', 'Japan'],
  ['Paris', 'France'],
  ['São Paulo', 'Brazil'],
  ['Seoul', 'South Korea'],
  ['Warsaw', 'Poland'],
  ['Zurich', 'Switzerland'],
];

/** mulberry32: a tiny seeded PRNG, so every run generates the same graph (tests use it too). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The demo graph: `personCount` people (ids 1..n), 12 cities, about 3 Knows per person. */
export function generateDemoGraph(personCount = 300, seed = 20240501): DemoGraph {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const persons: DemoPerson[] = [];
  for (let id = 1; id <= personCount; id++) {
    persons.push({ id, name: `${pick(FIRST_NAMES)} ${pick(LAST_NAMES)}`, age: 18 + Math.floor(next() * 63) });
  }
  const cities = CITIES.map(([name, country], i) => ({ id: i + 1, name, country }));
  const livesIn = persons.map((p) => ({ person: p.id, city: 1 + Math.floor(next() * cities.length) }));
  const knows: DemoGraph['knows'] = [];
  const seen = new Set<string>();
  if (personCount > 1) {
    for (const p of persons) {
      const friends = 1 + Math.floor(next() * 5); // 1..5, about 3 on average
      for (let k = 0; k < friends; k++) {
        const to = 1 + Math.floor(next() * personCount);
        const key = `${p.id}>${to}`;
        if (to === p.id || seen.has(key)) continue;
        seen.add(key);
        knows.push({ from: p.id, to, since: 1995 + Math.floor(next() * 30) });
      }
    }
  }
  return { persons, cities, knows, livesIn };
}

export interface DemoSummary {
  persons: number;
  cities: number;
  knows: number;
  livesIn: number;
}

const BATCH = 500;

async function inBatches<T>(conn: Connection, query: string, rows: T[]): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) {
    await conn.query(query, { rows: rows.slice(i, i + BATCH) });
  }
}

/**
 * Loads the demo graph through `conn` when the database is empty. Returns what it loaded, or
 * null (and loads nothing) when the database already holds nodes or any of the demo tables.
 */
export async function loadDemo(
  conn: Connection,
  graph: DemoGraph = generateDemoGraph(),
): Promise<DemoSummary | null> {
  const existing = await conn.query('MATCH (n) RETURN count(n) AS n');
  if (Number(existing.rows[0]?.[0] ?? 0) > 0) return null;
  for (const probe of DEMO_TABLE_PROBES) {
    try {
      await conn.query(probe);
      return null; // the table exists already: not an empty database
    } catch (error) {
      if (!(error instanceof GraphDBError && error.code === 'QUERY_BINDING')) throw error;
    }
  }
  for (const ddl of DEMO_SCHEMA) await conn.query(ddl);
  await inBatches(
    conn,
    'UNWIND $rows AS r CREATE (:Person {id: r.id, name: r.name, age: r.age})',
    graph.persons,
  );
  await inBatches(
    conn,
    'UNWIND $rows AS r CREATE (:City {id: r.id, name: r.name, country: r.country})',
    graph.cities,
  );
  await inBatches(
    conn,
    'UNWIND $rows AS r MATCH (p:Person {id: r.person}), (c:City {id: r.city}) CREATE (p)-[:LivesIn]->(c)',
    graph.livesIn,
  );
  await inBatches(
    conn,
    'UNWIND $rows AS r MATCH (a:Person {id: r.from}), (b:Person {id: r.to}) CREATE (a)-[:Knows {since: r.since}]->(b)',
    graph.knows,
  );
  return {
    persons: graph.persons.length,
    cities: graph.cities.length,
    knows: graph.knows.length,
    livesIn: graph.livesIn.length,
  };
}
