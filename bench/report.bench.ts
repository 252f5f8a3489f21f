// The report as a sample browser at scale: render time and file size of a 20,000-sample
// report, and the time Headless Chromium takes from opening the file to the first page of
// the list, and to open one sample (its detail chunk parsed on demand).
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderReport } from '#core/report/html.ts';
import { launchBrowser } from '../sim/browser.ts';
import { syntheticRun } from '../sim/synthetic-report.ts';
import type { BenchRow } from './index.ts';

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pe-bench-report-'));
  const rows: BenchRow[] = [];
  const browser = await launchBrowser();
  try {
    for (const count of [2_000, 20_000]) {
      const docs = syntheticRun(count, { rawChars: 3_000 });
      const t0 = performance.now();
      const html = renderReport({ manifest: syntheticRun.manifest(), metrics: [], docs, summary: { items: count, verdicts: {} } });
      const renderMs = performance.now() - t0;
      const file = join(dir, `r${count}.html`);
      writeFileSync(file, html);
      const page = await browser.newPage();
      const t1 = performance.now();
      await page.goto(`file://${file}`);
      await page.waitForFunction(`document.getElementById('pe-count')?.textContent === '${count} of ${count} samples'`);
      const listMs = performance.now() - t1;
      const t2 = performance.now();
      await page.locator('#pe-rows tr').nth(2).click();
      await page.waitForSelector('#pe-detail:not([hidden])');
      const openMs = performance.now() - t2;
      await page.close();
      rows.push(
        { name: `render report, ${count} samples`, value: renderMs, unit: 'ms' },
        { name: `report file size, ${count} samples`, value: statSync(file).size / 1048576, unit: 'MiB' },
        { name: `Chromium: open → first page, ${count}`, value: listMs, unit: 'ms' },
        { name: `Chromium: open one sample, ${count}`, value: openMs, unit: 'ms' },
      );
    }
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
