/**
 * Pure post-processing of model answers before scoring (DESIGN §2 "generate"): code out of
 * markdown fences or prose, stop sequences, and the Kotlin HumanEval cleaning recipe.
 */
import { LANGUAGE_SPECS } from '../languages/index.ts';

/** Fence info strings accepted for each language (lower-case, first word of the info string). */
const LANGUAGE_TAGS: Record<string, readonly string[]> = {
  python: ['python', 'python3', 'py', 'py3'],
  c: ['c', 'h'],
  cpp: ['cpp', 'c++', 'cc', 'cxx', 'hpp', 'h++'],
  kotlin: ['kotlin', 'kt', 'kts'],
  ...Object.fromEntries(LANGUAGE_SPECS.map((s) => [s.id, s.fenceTags])),
};

interface Fenced { tag: string; code: string }

/** Markdown fenced blocks (``` or ~~~, any length ≥ 3); an unclosed last block runs to the end. */
function fencedBlocks(text: string): Fenced[] {
  const blocks: Fenced[] = [];
  const lines = text.split('\n');
  let open: { fence: string; tag: string; body: string[] } | null = null;
  for (const line of lines) {
    const m = /^\s*(`{3,}|~{3,})\s*([^\s`]*)/.exec(line);
    if (open === null) {
      if (m !== null) open = { fence: m[1] ?? '```', tag: (m[2] ?? '').toLowerCase(), body: [] };
    } else if (m !== null && line.trim().startsWith(open.fence) && line.trim().replace(/[`~]/g, '') === '') {
      blocks.push({ tag: open.tag, code: open.body.join('\n') });
      open = null;
    } else {
      open.body.push(line);
    }
  }
  if (open !== null) blocks.push({ tag: open.tag, code: open.body.join('\n') });
  return blocks;
}

const longest = (blocks: Fenced[]): Fenced | undefined =>
  blocks.reduce<Fenced | undefined>((best, b) => (best === undefined || b.code.length > best.code.length ? b : best), undefined);

/** Lines that begin code in each language; a line matching one is never taken for prose. */
const CODE_START: Record<string, RegExp> = {
  python: /^\s*(async\s|match\s|case\s|import\s|global\s|nonlocal\s|assert\s|raise\s|yield\s|from\s+\S+\s+import|def\s|class\s|if\s|elif\s|else\s*:|finally\s*:|for\s|while\s|with\s|try\s*:|except|return\b|print\s*\(|#!|@)/,
  c: /^\s*(#\s*include|#\s*define|using\s|typedef\s|struct\s|int\s|long\s|void\s|char\s|double\s|float\s|unsigned\s|const\s|static\s|template\s*<|namespace\s|return\b|if\s*\(|for\s*\(|while\s*\()/,
  kotlin: /^\s*(import\s|package\s|fun\s|val\s|var\s|class\s|object\s|data\s|return\b|if\s*\(|for\s*\(|while\s*\(|when\b|@)/,
  ...Object.fromEntries(LANGUAGE_SPECS.map((s) => [s.id, s.codeStart])),
};

/**
 * A line that reads as a sentence: it starts with a letter, has no statement punctuation
 * (`; { } =`), and either ends like a sentence (`. ! ? :`) or has three or more words and no
 * brackets. Only lines before the first and after the last code line are ever dropped.
 */
function isProse(line: string, language: string): boolean {
  const t = line.trim();
  if (CODE_START[language === 'cpp' ? 'c' : language]?.test(t) === true) return false;
  if (!/^\p{L}/u.test(t) || /[;{}=]/.test(t)) return false;
  const words = t.split(/\s+/).length;
  return /[.!?:]$/.test(t) || words >= 3 && !/[()[\]]/.test(t);
}

/** Removes prose lines before the first and after the last code line; pure code is untouched. */
function stripProse(answer: string, language: string): string {
  const lines = answer.split('\n');
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start]?.trim() === '' || isProse(lines[start] ?? '', language))) start++;
  while (end > start && (lines[end - 1]?.trim() === '' || isProse(lines[end - 1] ?? '', language))) end--;
  if (start === end) return answer.trim();
  const proseBefore = lines.slice(0, start).some((l) => l.trim() !== '');
  const proseAfter = lines.slice(end).some((l) => l.trim() !== '');
  return proseBefore || proseAfter ? lines.slice(start, end).join('\n') + '\n' : answer;
}

/**
 * The code of a model answer, for `language` (python, c, cpp, kotlin).
 *
 * - Fenced blocks: the longest block tagged with the requested language (```py, ```python3,
 *   ```c++, ```cpp, ```kt, …); else the longest untagged block; else the longest block of any
 *   tag (a model that answers in the wrong language is scored on what it wrote).
 * - No fences: prose lines before and after the code are dropped; a pure-code answer is
 *   returned unchanged.
 *
 * @example
 * extractCode('Iată soluția:\n```py\nprint(1)\n```', 'python') // 'print(1)\n'
 */
export function extractCode(answer: string, language: string): string {
  const blocks = fencedBlocks(answer);
  if (blocks.length === 0) return stripProse(answer, language);
  const tags = LANGUAGE_TAGS[language] ?? [language.toLowerCase()];
  const chosen = longest(blocks.filter((b) => tags.includes(b.tag))) ??
    longest(blocks.filter((b) => b.tag === '')) ?? longest(blocks);
  const code = chosen?.code ?? '';
  return code.endsWith('\n') ? code : `${code}\n`;
}

/**
 * Cuts `text` where the first stop sequence is complete (the earliest end, as a streaming
 * stop would), KEEPING the stop itself: for Kotlin the stop `}\n}` holds the function's
 * closing brace, which must survive. Text without a stop is returned unchanged; empty stops
 * are ignored.
 */
export function truncateAtStop(text: string, stops: readonly string[]): string {
  let cut = -1;
  for (const stop of stops) {
    if (stop === '') continue;
    const at = text.indexOf(stop);
    if (at >= 0 && (cut < 0 || at + stop.length < cut)) cut = at + stop.length;
  }
  return cut < 0 ? text : text.slice(0, cut);
}

/**
 * Kotlin source with comments removed, lexically: `//` and (nested) `/* … *\/` outside string,
 * raw-string (`"""`) and char literals, string templates (`${…}`) included. A block comment
 * becomes a space, or the newlines it spanned, so tokens never merge and lines keep their numbers.
 */
export function stripKotlinComments(code: string): string {
  let out = '';
  let i = 0;
  /** Copies a string literal starting at `i` (on its opening quote), templates included. */
  const copyString = (): void => {
    const raw = code.startsWith('"""', i);
    const close = raw ? '"""' : '"';
    out += close;
    i += close.length;
    while (i < code.length) {
      if (!raw && code[i] === '\\') { out += code.slice(i, i + 2); i += 2; continue; }
      if (code.startsWith(close, i)) {
        // A raw string may end with extra quotes: `""""` closes after the first of them.
        while (raw && code.startsWith('""""', i)) { out += '"'; i++; }
        out += close; i += close.length; return;
      }
      if (code.startsWith('${', i)) { out += '${'; i += 2; copyCode(true); continue; }
      out += code[i]; i++;
    }
  };
  /** Copies code until the end, or until the `}` closing a template when `inTemplate`. */
  const copyCode = (inTemplate: boolean): void => {
    let depth = 0;
    while (i < code.length) {
      const c = code[i];
      if (code.startsWith('//', i)) {
        while (i < code.length && code[i] !== '\n') i++;
      } else if (code.startsWith('/*', i)) {
        let nest = 0;
        let newlines = '';
        do {
          if (code.startsWith('/*', i)) { nest++; i += 2; } else if (code.startsWith('*/', i)) { nest--; i += 2; } else {
            if (code[i] === '\n') newlines += '\n';
            i++;
          }
        } while (nest > 0 && i < code.length);
        out += newlines === '' ? ' ' : newlines;
      } else if (c === '"') {
        copyString();
      } else if (c === '\'') {
        const m = /^'(\\u[0-9a-fA-F]{4}|\\.|[^\\'\n])'/.exec(code.slice(i, i + 8));
        const lit = m?.[0] ?? c;
        out += lit; i += lit.length;
      } else {
        if (inTemplate && c === '{') depth++;
        if (inTemplate && c === '}') {
          if (depth === 0) { out += c; i++; return; }
          depth--;
        }
        out += c; i++;
      }
    }
  };
  copyCode(false);
  return out;
}

/**
 * The Kotlin HumanEval cleaning recipe (card): remove comments, then drop a repeated
 * signature — when the answer starts again with a line beginning `fun ` (after blank, import
 * or annotation lines), keep what follows it. A signature spread over several lines is
 * dropped up to the line holding its `{`. Lines that held only a comment disappear.
 */
export function cleanKotlinCompletion(text: string): string {
  const stripped = stripKotlinComments(text);
  const before = text.split('\n');
  const lines = stripped.split('\n').filter((line, i) => {
    const original = before[i];
    return !(line.trim() === '' && original !== undefined && original.trim() !== '');
  });
  const first = lines.findIndex((l) => !/^\s*$|^\s*import\s|^\s*@/.test(l));
  if (first >= 0 && lines[first]?.startsWith('fun ') === true) {
    let open = first;
    while (open < lines.length - 1 && lines[open]?.includes('{') !== true) open++;
    return lines.slice(open + 1).join('\n');
  }
  return lines.join('\n');
}
