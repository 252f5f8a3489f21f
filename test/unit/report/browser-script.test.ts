/**
 * The report's browser script is a real file (`layers/core/report/browser/report.js`, linted
 * and formatted as code) that the page embeds as text, whole, in its one executable `<script>`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BROWSER_SCRIPT } from '#core/report/browser-script.ts';
import { renderReport } from '#core/report/html.ts';
import { syntheticRun } from '../../../sim/synthetic-report.ts';

const FILE = join(import.meta.dirname, '..', '..', '..', 'layers', 'core', 'report', 'browser', 'report.js');

describe('the report browser script', () => {
  it('is the text of browser/report.js, which cannot end the script element early', () => {
    expect(BROWSER_SCRIPT).toBe(readFileSync(FILE, 'utf8'));
    expect(BROWSER_SCRIPT).not.toMatch(/<\/script|<!--/i);
  });

  it('runs in the page as the one script without a data type, after every data block', () => {
    const html = renderReport({ manifest: syntheticRun.manifest(), metrics: [], docs: syntheticRun(3), summary: { items: 3, verdicts: {} } });
    const scripts = [...html.matchAll(/<script( type="[^"]+")?[^>]*>([\s\S]*?)<\/script>/g)];
    const code = scripts.filter((m) => m[1] === undefined);
    expect(code.map((m) => m[2])).toEqual([BROWSER_SCRIPT]);
    expect(scripts.at(-1)?.[2]).toBe(BROWSER_SCRIPT);
    expect(html).toContain(`data-chunk="250" data-page="50"`);
  });
});
