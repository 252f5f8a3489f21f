/**
 * Code-switching (RoCode paper §3.2): the share of declared identifiers (function and
 * variable names) that contain a Romanian word. Lexical, not a parser: comments and string
 * literals are blanked, then declaration patterns of each language are matched, so library
 * names that are only used (`heapq.heappush`, `printf`) never count. The dictionary is a
 * parameter: `isRomanian` is supplied by the caller (a hunspell dictionary in the CLI, a stub in tests).
 *
 * The declaration scanners are each language's (layers/core/languages/identifiers.ts).
 */
import { cDeclarations, C_KEYWORDS, type Declared } from '../languages/index.ts';
import { languageSpec } from '../languages/index.ts';

export type { Declared } from '../languages/index.ts';

/** Names every program must use; they say nothing about the author's language. */
const MANDATED = new Set(['main', 'self', 'this', 'args', 'argv', 'argc']);

/** Declared names of `code` with their kind, keywords and mandated names (`main`) left out; first declaration wins. */
export function declarationsOf(code: string, language: string): Declared[] {
  const spec = languageSpec(language);
  const found = spec ? spec.declarations(code) : cDeclarations(code);
  const keywords = spec?.keywords ?? C_KEYWORDS;
  const seen = new Set<string>();
  const out: Declared[] = [];
  for (const d of found) {
    if (d.name === '' || d.name === '_' || MANDATED.has(d.name) || keywords.has(d.name) || seen.has(d.name)) continue;
    seen.add(d.name);
    out.push(d);
  }
  return out;
}

/**
 * Distinct function and variable names declared in `code` (python, c, cpp, kotlin), in order
 * of first declaration. Keywords, library names, names only used, and names every program
 * must declare (`main`) are left out.
 */
export function identifiersOf(code: string, language: string): string[] {
  return declarationsOf(code, language).map((d) => d.name);
}

/**
 * Lower-case parts of an identifier: camelCase, PascalCase (acronyms kept whole), snake_case,
 * and runs of digits as parts of their own. `descompunereNumar2` → `descompunere`, `numar`, `2`.
 */
export function splitIdentifier(id: string): string[] {
  return (id.match(/\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+/gu) ?? []).map((p) => p.toLowerCase());
}

/** A name is Romanian when one of its parts of 3 or more letters is a Romanian word. */
function isRomanianName(id: string, isRomanian: (word: string) => boolean): boolean {
  return splitIdentifier(id).some((part) => /^\p{L}{3,}$/u.test(part) && isRomanian(part));
}

/** Result of `codeSwitchingShare`; `share` is null when no identifier was found. */
export interface CodeSwitching {
  share: number | null;
  identifiers: number;
  romanian: number;
}

/**
 * Share of identifiers containing at least one Romanian word: every program's distinct
 * declared names are counted (a name reused in two programs counts twice), and a name is
 * Romanian when one of its parts of 3 or more letters is accepted by `isRomanian` (called
 * with the lower-case part). The caller's predicate decides about words that are also English.
 */
export function codeSwitchingShare(codes: readonly string[], language: string, isRomanian: (word: string) => boolean): CodeSwitching {
  let identifiers = 0;
  let romanian = 0;
  for (const code of codes) {
    for (const id of identifiersOf(code, language)) {
      identifiers++;
      if (isRomanianName(id, isRomanian)) romanian++;
    }
  }
  return { share: identifiers === 0 ? null : romanian / identifiers, identifiers, romanian };
}

/** Code-switching of function names and of variable names apart, and pooled (the RoCode paper's Figure 2). */
export interface CodeSwitchingByKind {
  all: CodeSwitching;
  functions: CodeSwitching;
  variables: CodeSwitching;
}

/**
 * Like {@link codeSwitchingShare}, with function names and variable names (parameters
 * included) counted apart, as the RoCode paper reports them; `all` equals
 * `codeSwitchingShare` of the same programs.
 */
export function codeSwitchingByKind(codes: readonly string[], language: string, isRomanian: (word: string) => boolean): CodeSwitchingByKind {
  const count = { function: { identifiers: 0, romanian: 0 }, variable: { identifiers: 0, romanian: 0 } };
  for (const code of codes) {
    for (const d of declarationsOf(code, language)) {
      count[d.kind].identifiers++;
      if (isRomanianName(d.name, isRomanian)) count[d.kind].romanian++;
    }
  }
  const share = (c: { identifiers: number; romanian: number }): CodeSwitching => ({ share: c.identifiers === 0 ? null : c.romanian / c.identifiers, ...c });
  return {
    all: share({ identifiers: count.function.identifiers + count.variable.identifiers, romanian: count.function.romanian + count.variable.romanian }),
    functions: share(count.function),
    variables: share(count.variable),
  };
}
