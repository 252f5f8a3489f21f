/**
 * Pure post-processing of model answers before scoring (DESIGN §2 "generate"): code out of
 * markdown fences or prose (fence tags and code-start lines from the language specs), stop
 * sequences.
 */
import { languageSpec } from '../languages/index.ts';

interface Fenced {
  tag: string;
  code: string;
}

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

/**
 * A line that reads as a sentence: it starts with a letter, has no statement punctuation
 * (`; { } =`), and either ends like a sentence (`. ! ? :`) or has three or more words and no
 * brackets. Only lines before the first and after the last code line are ever dropped.
 */
function isProse(line: string, language: string): boolean {
  const t = line.trim();
  if (languageSpec(language)?.codeStart.test(t) === true) return false;
  if (!/^\p{L}/u.test(t) || /[;{}=]/.test(t)) return false;
  const words = t.split(/\s+/).length;
  return /[.!?:]$/.test(t) || (words >= 3 && !/[()[\]]/.test(t));
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
  const tags = languageSpec(language)?.fenceTags ?? [language.toLowerCase()];
  const chosen = longest(blocks.filter((b) => tags.includes(b.tag))) ?? longest(blocks.filter((b) => b.tag === '')) ?? longest(blocks);
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
