/**
 * The Romanian word list of RoCode's code-switching metric: every word form of the hunspell
 * Romanian dictionary (`dictionary-ro`, affixes expanded by `nspell`), matched without case
 * and without diacritics (identifiers write `numar` for `număr`, `sir` for `șir`), minus every
 * word that is also English (`dictionary-en`), since `sum`, `max` or `test` say nothing about
 * the programmer's language. Loading takes a few seconds and is done once per process.
 */
import nspell from 'nspell';
import roDictionary from 'dictionary-ro';
import enDictionary from 'dictionary-en';

/** Answers whether a word (an identifier part) is Romanian and not also English. */
export interface RomanianLexicon {
  isRomanian(word: string): boolean;
}

let loading: Promise<RomanianLexicon> | undefined;

/** Loads the lexicon (memoised: later calls share the first load). */
export function loadRomanianLexicon(): Promise<RomanianLexicon> {
  loading ??= Promise.resolve().then(build);
  return loading;
}

/** Lower case without diacritics; ş/ţ (cedilla) and ș/ț (comma) fold alike. */
export function foldWord(word: string): string {
  return word.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

function build(): RomanianLexicon {
  const romanian = wordForms(roDictionary);
  const english = wordForms(enDictionary);
  return {
    isRomanian(word: string): boolean {
      const folded = foldWord(word);
      return folded !== '' && romanian.has(folded) && !english.has(folded);
    },
  };
}

function wordForms(dictionary: { aff: Uint8Array; dic: Uint8Array }): Set<string> {
  const forms = new Set<string>();
  for (const form in nspell(dictionary).data) forms.add(foldWord(form));
  return forms;
}
