// The Snowball stemmers through CREATE_FTS_INDEX (docs/fts.md): a language's inflected forms
// meet in one index term, the name is case-insensitive, and an unknown name lists the supported
// ones. The word-by-word comparison with Kùzu is FtsStemmer.SnowballLanguagesMatchKuzu.
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

async function indexed(stemmer: string, bodies: string[]) {
  const conn = new Database(':memory:').connect();
  await conn.query('CREATE NODE TABLE Doc(id INT64 PRIMARY KEY, body STRING)');
  for (const [i, body] of bodies.entries()) {
    await conn.query(`CREATE (:Doc {id: ${i + 1}, body: '${body}'})`);
  }
  await conn.query(`CALL CREATE_FTS_INDEX('Doc', 'idx', ['body'], stemmer := '${stemmer}')`);
  return async (q: string) =>
    (await conn.query(`CALL QUERY_FTS_INDEX('Doc', 'idx', '${q}') RETURN node.id ORDER BY node.id`)).rows.map(
      (r) => (r as unknown[])[0],
    );
}

describe('Snowball stemmers in full-text indexes', () => {
  it('conflates inflected forms per language', async () => {
    const german = await indexed('German', ['die häuser am see', 'ein haus', 'kinder']);
    expect(await german('hauses')).toEqual([1, 2]);
    const spanish = await indexed('spanish', ['las canciones', 'una canción', 'el perro']);
    expect(await spanish('canción')).toEqual([1, 2]);
    const turkish = await indexed('turkish', ['evlerimizde', 'ev', 'kitap']);
    expect(await turkish('evler')).toEqual([1, 2]);
    // Without stemming the forms stay apart.
    const none = await indexed('none', ['die häuser am see', 'ein haus']);
    expect(await none('hauses')).toEqual([]);
  });

  it('names the supported stemmers for an unknown one', async () => {
    const conn = new Database(':memory:').connect();
    await conn.query('CREATE NODE TABLE Doc(id INT64 PRIMARY KEY, body STRING)');
    await expect(
      conn.query("CALL CREATE_FTS_INDEX('Doc', 'idx', ['body'], stemmer := 'greek')"),
    ).rejects.toThrow(
      "Binder exception: Unrecognized stemmer 'greek'. Supported stemmers are: ['arabic, basque, catalan, danish, dutch, english, finnish, french, german, hindi, hungarian, indonesian, irish, italian, lithuanian, nepali, norwegian, porter, portuguese, romanian, russian, spanish, swedish, tamil, turkish'], or use 'none' for no stemming.",
    );
  });
});
