/**
 * The Romanian word list of RoCode's code-switching metric: every word form of the hunspell
 * Romanian dictionary (`dictionary-ro`, affixes expanded by `nspell`), matched without case
 * and without diacritics (identifiers write `numar` for `număr`, `sir` for `șir`), minus every
 * word that is also English (`dictionary-en`), since `sum`, `max` or `test` say nothing about
 * the programmer's language.
 *
 * Expanding the affixes takes a few seconds (more on a loaded machine); with a `cacheDir` the
 * resulting word list is kept there (keyed by the dictionaries' content hash), so later
 * processes load it in well under a second. Within a process the load is done once.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

type Dictionary = { aff: Uint8Array; dic: Uint8Array };

/**
 * The dictionary packages read their files when imported, so they are imported only when the
 * lexicon is built: importing this module (through layers/sources) costs nothing, and a
 * bundled Lambda that never computes code-switching never needs the files.
 */
async function dictionaries(): Promise<{ ro: Dictionary; en: Dictionary }> {
  const [ro, en] = await Promise.all([import('dictionary-ro'), import('dictionary-en')]);
  return { ro: ro.default, en: en.default };
}

/** Answers whether a word (an identifier part) is Romanian and not also English. */
export interface RomanianLexicon {
  isRomanian(word: string): boolean;
}

const loads = new Map<string, Promise<RomanianLexicon>>();

/** Loads the lexicon (memoised per `cacheDir`: later calls share the first load). */
export function loadRomanianLexicon(opts: { cacheDir?: string } = {}): Promise<RomanianLexicon> {
  const key = opts.cacheDir ?? '';
  let load = loads.get(key);
  if (!load) {
    load = build(opts.cacheDir);
    loads.set(key, load);
  }
  return load;
}

/** Lower case without diacritics; ş/ţ (cedilla) and ș/ț (comma below) fold alike. */
export function foldWord(word: string): string {
  const lower = word.toLowerCase();
  // eslint-disable-next-line no-control-regex -- ASCII words (most of them) need no folding
  return /^[\x00-\x7f]*$/.test(lower) ? lower : lower.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

async function build(cacheDir: string | undefined): Promise<RomanianLexicon> {
  const words = await cachedWords(cacheDir);
  return {
    isRomanian: (word: string): boolean => words.has(foldWord(word)),
  };
}

type Nspell = typeof import('nspell').default;

/** nspell, loaded only to expand a dictionary: a command that never builds the word list (nor one read from its cache) never pays its start-up. */
async function loadNspell(): Promise<Nspell> {
  return (await import('nspell')).default;
}

async function cachedWords(cacheDir: string | undefined): Promise<Set<string>> {
  const { ro, en } = await dictionaries();
  if (!cacheDir) return romanianOnly(await loadNspell(), ro, en);
  const hash = createHash('sha256');
  for (const part of [ro.aff, ro.dic, en.aff, en.dic]) hash.update(part);
  const file = join(cacheDir, 'lexicon', `ro-minus-en-${hash.digest('hex').slice(0, 16)}.txt`);
  try {
    return new Set((await readFile(file, 'utf8')).split('\n'));
  } catch {
    const words = romanianOnly(await loadNspell(), ro, en);
    await mkdir(join(cacheDir, 'lexicon'), { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    await writeFile(partial, [...words].join('\n'));
    await rename(partial, file);
    return words;
  }
}

function romanianOnly(nspell: Nspell, ro: Dictionary, en: Dictionary): Set<string> {
  const english = wordForms(nspell, en);
  const romanian = wordForms(nspell, ro);
  for (const word of english) romanian.delete(word);
  romanian.delete('');
  return romanian;
}

function wordForms(nspell: Nspell, dictionary: Dictionary): Set<string> {
  const forms = new Set<string>();
  for (const form in nspell(dictionary).data) forms.add(foldWord(form));
  return forms;
}
