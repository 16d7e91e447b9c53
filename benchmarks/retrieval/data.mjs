// Generated, seeded data for the retrieval benchmark: clustered vectors with their exact
// nearest neighbours (brute force), and a text corpus with a Zipf-distributed vocabulary.

import fs from 'node:fs';
import path from 'node:path';
import { createRng } from '../lib/prng.mjs';

/** A standard normal draw from `rng` (Box-Muller). */
function gaussian(rng) {
  const u = Math.max(rng.next(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/**
 * `count` vectors of `dim` floats around `clusters` centres (unit Gaussian centres, spread
 * `spread` around each), and `queries` query vectors drawn the same way but not in the set.
 * Returns Float32Arrays laid out row after row.
 */
export function clusteredVectors({ count, dim, queries, clusters = 100, spread = 0.45, seed = 42 }) {
  const rng = createRng(seed);
  const centres = new Float32Array(clusters * dim);
  for (let i = 0; i < centres.length; i++) centres[i] = gaussian(rng);
  const draw = (n) => {
    const out = new Float32Array(n * dim);
    for (let r = 0; r < n; r++) {
      const c = rng.int(clusters) * dim;
      for (let j = 0; j < dim; j++) out[r * dim + j] = centres[c + j] + spread * gaussian(rng);
    }
    return out;
  };
  return { dim, count, data: draw(count), queries: draw(queries) };
}

/** Row `i` of a row-major Float32Array as a plain array (what the drivers take). */
export function row(data, dim, i) {
  return Array.from(data.subarray(i * dim, (i + 1) * dim));
}

/** Rows scaled to unit length (cosine similarity becomes a dot product). */
function normalized(data, dim) {
  const out = new Float32Array(data.length);
  for (let r = 0; r < data.length / dim; r++) {
    let norm = 0;
    for (let j = 0; j < dim; j++) norm += data[r * dim + j] ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let j = 0; j < dim; j++) out[r * dim + j] = data[r * dim + j] * scale;
  }
  return out;
}

/** The exact `k` nearest rows of each query by cosine distance, by brute force. */
export function exactNeighbours({ data, queries, dim }, k) {
  const base = normalized(data, dim);
  const q = normalized(queries, dim);
  const rows = base.length / dim;
  const truth = [];
  for (let qi = 0; qi < q.length / dim; qi++) {
    const ids = new Int32Array(k).fill(-1);
    const sims = new Float64Array(k).fill(Number.NEGATIVE_INFINITY);
    const off = qi * dim;
    for (let r = 0; r < rows; r++) {
      let s = 0;
      const b = r * dim;
      for (let j = 0; j < dim; j++) s += base[b + j] * q[off + j];
      if (s <= sims[k - 1]) continue;
      let p = k - 1;
      while (p > 0 && sims[p - 1] < s) {
        sims[p] = sims[p - 1];
        ids[p] = ids[p - 1];
        p--;
      }
      sims[p] = s;
      ids[p] = r;
    }
    truth.push(Array.from(ids));
  }
  return truth;
}

/** Mean recall of `found` (one id list per query) against `truth`. */
export function recall(found, truth) {
  let hits = 0;
  let total = 0;
  for (let i = 0; i < truth.length; i++) {
    const want = new Set(truth[i]);
    for (const id of found[i]) if (want.has(Number(id))) hits++;
    total += truth[i].length;
  }
  return total === 0 ? 0 : hits / total;
}

/** Writes a typed array as a NumPy .npy file (version 1.0, C order). */
function writeNpy(file, typed, shape, descr) {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  // Magic, version and length take 10 bytes; the header ends in a newline at a 64-byte boundary.
  header += `${' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64)}\n`;
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1;
  prefix.writeUInt16LE(header.length, 8);
  const body = Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength);
  fs.writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, 'latin1'), body]));
}

/**
 * Writes the ids (0..count-1, INT64) and the vectors (FLOAT[dim]) as two .npy files, for
 * `COPY T FROM ('ids.npy', 'vectors.npy') BY COLUMN` (exact floats, and far faster to read
 * than lists in CSV text).
 */
export function writeVectorNpy(dir, { data, dim, count }) {
  const ids = path.join(dir, 'ids.npy');
  const vectors = path.join(dir, 'vectors.npy');
  writeNpy(
    ids,
    BigInt64Array.from({ length: count }, (_, i) => BigInt(i)),
    [count],
    '<i8',
  );
  writeNpy(vectors, data, [count, dim], '<f4');
  return { ids, vectors };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'ta',
  'vi',
  'so',
  'pe',
  'di',
  'gu',
  'ba',
  'zo',
  'fi',
  'ho',
  'je',
];

/** The `i`-th word of the generated vocabulary: distinct syllable strings, no stemmer folds them. */
function word(i) {
  let text = '';
  let n = i + SYLLABLES.length; // at least two syllables
  while (n > 0) {
    text += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return `${text}x`;
}

/**
 * `docs` documents of 20-60 words from a `vocabulary`-word Zipf distribution, and `queries`
 * queries of 1-3 words taken from the frequent-to-middling part of the vocabulary.
 */
export function generatedCorpus({ docs, queries, vocabulary = 20000, seed = 7 }) {
  const rng = createRng(seed);
  // Zipf(1) by inverse transform over the cumulative weights.
  const cumulative = new Float64Array(vocabulary);
  let sum = 0;
  for (let i = 0; i < vocabulary; i++) {
    sum += 1 / (i + 1);
    cumulative[i] = sum;
  }
  const zipf = () => {
    const x = rng.next() * sum;
    let lo = 0;
    let hi = vocabulary - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const texts = [];
  for (let d = 0; d < docs; d++) {
    const length = 20 + rng.int(41);
    const words = new Array(length);
    for (let w = 0; w < length; w++) words[w] = word(zipf());
    texts.push(words.join(' '));
  }
  const qs = [];
  for (let q = 0; q < queries; q++) {
    const n = 1 + rng.int(3);
    qs.push(Array.from({ length: n }, () => word(20 + rng.int(2000))).join(' '));
  }
  return { texts, queries: qs };
}

/** Query texts for a real corpus: 1-3 of its words of 5+ letters, seeded. */
export function queriesFromTexts(texts, count, seed = 11) {
  const rng = createRng(seed);
  const words = [
    ...new Set(
      texts
        .join(' ')
        .toLowerCase()
        .match(/[a-z]{5,}/g) ?? [],
    ),
  ].sort();
  if (words.length === 0) return [];
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + rng.int(3) }, () => rng.pick(words)).join(' '),
  );
}
