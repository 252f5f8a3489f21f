// docs/aws.md ("Running on AWS", once README's section) cannot drift from the stack: the
// context keys it documents are the ones bin/app.ts reads, and the outputs it names are the stack's.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OUTPUT_KEYS } from '../../infra/outputs.ts';
import { PROJECT_ROOT } from '../../infra/paths.ts';

const section = readFileSync(path.join(PROJECT_ROOT, 'docs', 'aws.md'), 'utf8');
const app = readFileSync(path.join(PROJECT_ROOT, 'bin', 'app.ts'), 'utf8');

/** First-column backticked names of the table whose header starts with `header`. */
function tableKeys(header: string): string[] {
  const start = section.indexOf(`| ${header} |`);
  const rows = section.slice(start).split('\n').slice(2);
  const end = rows.findIndex((row) => !row.startsWith('|'));
  return rows.slice(0, end).flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1] as string));
}

describe('docs/aws.md: Running on AWS', () => {
  it('documents exactly the context keys bin/app.ts reads', () => {
    const read = [...(app.match(/const CONTEXT_KEYS = \[([^\]]*)\]/)?.[1] ?? '').matchAll(/'([A-Za-z]+)'/g)].map((m) => m[1] as string);
    expect(read.length).toBeGreaterThan(5);
    expect(new Set(tableKeys('context key'))).toEqual(new Set([...read, 'stackName']));
  });

  it("names the stack's outputs", () => {
    expect(new Set(tableKeys('output'))).toEqual(new Set(Object.values(OUTPUT_KEYS)));
  });
});
