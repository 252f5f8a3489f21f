/**
 * The user documentation as the tests read it: README.md and the pages under docs/, where
 * each topic now lives (README keeps the quick start and a map to the pages).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** README.md first, then every docs/*.md page, as paths relative to the repository. */
export function docPages(): string[] {
  const pages = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...pages];
}

export function readDoc(page: string): string {
  return readFileSync(join(ROOT, page), 'utf8');
}

/** The lines of `text` outside fenced code blocks, with their line numbers (from 1). */
function proseLines(text: string): { line: string; n: number }[] {
  let fenced = false;
  const out: { line: string; n: number }[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced) out.push({ line, n: i + 1 });
  });
  return out;
}

/** Every markdown heading of a page (outside code blocks): its level and text. */
export function headings(text: string): { level: number; title: string }[] {
  return proseLines(text).flatMap(({ line }) => {
    const m = /^(#{1,6}) (.+)$/.exec(line);
    return m ? [{ level: (m[1] as string).length, title: m[2] as string }] : [];
  });
}

/**
 * The section of `page` under the heading `title` (e.g. `## Adding a provider`), up to the
 * next heading of the same or a higher level; throws naming the page when it has none.
 */
export function docSection(page: string, title: string): string {
  const text = readDoc(page);
  const lines = text.split('\n');
  const level = /^#+/.exec(title)?.[0].length ?? 0;
  const prose = proseLines(text);
  const start = prose.find((p) => p.line === title);
  if (!start) throw new Error(`${page} has no "${title}" section`);
  const end = prose.find((p) => p.n > start.n && new RegExp(`^#{1,${level}} `).test(p.line));
  return lines.slice(start.n, end ? end.n - 1 : undefined).join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}
