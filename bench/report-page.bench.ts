// A 2,000-item run's report page as aggregate makes it: the metrics (computed from the records
// with the deployed 1,000 bootstrap resamples), the page's generation and size, and the time
// Headless Chromium takes from opening the file to the headline cards (metric with its interval)
// and to the sample browser's first page. `npm run bench report-page`.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Verdict } from '#core/types.ts';
import { computeMetrics } from '#core/scorers/metrics-table.ts';
import { renderReport } from '#core/report/html.ts';
import { launchBrowser } from '../sim/browser.ts';
import { syntheticRun } from '../sim/synthetic-report.ts';
import type { BenchRow } from './index.ts';

const ITEMS = 2_000;

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pe-bench-report-page-'));
  const browser = await launchBrowser();
  try {
    const manifest = syntheticRun.manifest();
    const docs = syntheticRun(ITEMS, { rawChars: 3_000 });
    const records = docs.map((d) => d.record);
    const t0 = performance.now();
    const metrics = computeMetrics(records, {
      runId: manifest.run_id,
      benchmark: manifest.benchmark.id,
      model: manifest.model.name,
      scorer: manifest.benchmark.scorer,
      n: manifest.n,
      seed: manifest.seed,
      iterations: 1_000,
    });
    const metricsMs = performance.now() - t0;
    const verdicts: Partial<Record<Verdict, number>> = {};
    for (const r of records) verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
    const t1 = performance.now();
    const html = renderReport({ manifest, metrics, docs, summary: { items: ITEMS, verdicts } });
    const renderMs = performance.now() - t1;
    const file = join(dir, 'report.html');
    writeFileSync(file, html);

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const t2 = performance.now();
    // 'commit': the clock stops when the headline is there, not when the whole file has loaded.
    await page.goto(`file://${file}`, { waitUntil: 'commit' });
    await page.locator('#headline .card[data-metric]').first().waitFor({ state: 'visible' });
    const headlineMs = performance.now() - t2;
    await page.waitForFunction(`document.getElementById('pe-count')?.textContent === '${ITEMS} of ${ITEMS} samples'`);
    const listMs = performance.now() - t2;
    // The browser's own clock, from navigation start: the first paint with content, and the load event.
    const paint = await page.evaluate<{ fcp: number; load: number }>(`({
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
      load: performance.getEntriesByType('navigation')[0]?.loadEventStart ?? NaN,
    })`);
    await page.close();
    return [
      { name: `metrics from ${ITEMS} records (1000 resamples)`, value: metricsMs, unit: 'ms' },
      { name: `generate the report page, ${ITEMS} items`, value: renderMs, unit: 'ms' },
      { name: `report page size, ${ITEMS} items`, value: statSync(file).size / 1048576, unit: 'MiB' },
      { name: `Chromium: first contentful paint`, value: paint.fcp, unit: 'ms' },
      { name: `Chromium: open → headline card visible`, value: headlineMs, unit: 'ms' },
      { name: `Chromium: load event`, value: paint.load, unit: 'ms' },
      { name: `Chromium: open → sample browser's first page`, value: listMs, unit: 'ms' },
    ];
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
