import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRomanianLexicon, type RomanianLexicon } from '../../../layers/sources/index.ts';

let lexicon: RomanianLexicon;
let cacheDir: string;

beforeAll(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'polyeval-lexicon-'));
  lexicon = await loadRomanianLexicon({ cacheDir });
});
afterAll(async () => {
  await rm(cacheDir, { recursive: true, force: true });
});

describe('Romanian lexicon', () => {
  it.each(['suma', 'numar', 'rezultat', 'citire', 'lungime', 'afisare'])('counts "%s" as Romanian', (word) => {
    expect(lexicon.isRomanian(word)).toBe(true);
  });

  it.each(['result', 'sum', 'main', 'print', 'test', 'count'])('does not count "%s", an English word', (word) => {
    expect(lexicon.isRomanian(word)).toBe(false);
  });

  it('matches without case and with or without diacritics (comma or cedilla)', () => {
    expect(lexicon.isRomanian('Număr')).toBe(true);
    expect(lexicon.isRomanian('NUMAR')).toBe(true);
    expect(lexicon.isRomanian('afișare')).toBe(true);
    expect(lexicon.isRomanian('afişare')).toBe(true);
  });

  it('does not count made-up words or the empty string', () => {
    expect(lexicon.isRomanian('qzxv')).toBe(false);
    expect(lexicon.isRomanian('')).toBe(false);
  });

  it('shares one load between callers', async () => {
    expect(await loadRomanianLexicon({ cacheDir })).toBe(lexicon);
  });

  it('keeps the word list in the cache and answers the same from it', async () => {
    expect(await readdir(join(cacheDir, 'lexicon'))).toHaveLength(1);
    const copy = join(cacheDir, 'copy');
    await rm(copy, { recursive: true, force: true });
    const { cp } = await import('node:fs/promises');
    await cp(join(cacheDir, 'lexicon'), join(copy, 'lexicon'), { recursive: true });
    const fromCache = await loadRomanianLexicon({ cacheDir: copy });
    expect(fromCache).not.toBe(lexicon);
    for (const word of ['suma', 'numar', 'citire', 'result', 'sum', 'main']) {
      expect(fromCache.isRomanian(word)).toBe(lexicon.isRomanian(word));
    }
  });
});
