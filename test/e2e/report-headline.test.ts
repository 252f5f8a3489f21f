/**
 * The HTML report leads with the answer, as a person opening it sees it in headless
 * Chromium at 1280×800: for every bundled suite's report (`run -b sample -m reference`) the
 * headline metric with its 95% interval is inside the first viewport, beside the verdict
 * counts; the page makes no network request (opened offline); metrics that cannot be
 * computed are said once; the manifest lists only the toolchains the run used. A
 * 2,000-sample report renders one page of rows, not 2,000, and paints its headline, table and
 * manifest from static HTML that comes before any sample data (it renders with scripts off). `compare --format html` leads with
 * the headline difference. Screenshots go to POLYEVAL_REPORT_SHOTS when it is set.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeMetrics } from '#core/scorers/index.ts';
import { renderReport } from '#core/report/html.ts';
import { launchBrowser } from '../../sim/browser.ts';
import { parseJson, runCli, tempHome } from '../support/cli.ts';
import { syntheticRun } from '../../sim/synthetic-report.ts';

const VIEWPORT = { width: 1280, height: 800 };
const home = tempHome();
const shots = process.env.POLYEVAL_REPORT_SHOTS;
let browser: Browser;
let runs: { run_id: string; benchmark: string; report: string; verdicts: Record<string, number> }[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  const result = await runCli(['run', '-b', 'sample', '-m', 'reference', '--json', '-q', '--home', home]);
  expect(result.code, result.stderr).toBe(0);
  runs = parseJson<{ runs: typeof runs }>(result).runs;
  if (shots) mkdirSync(shots, { recursive: true });
}, 900_000);
afterAll(async () => {
  await browser?.close();
});

/** Opens a page offline at 1280×800, recording every request it makes besides its own file. */
async function open(file: string, opts: { scripts?: boolean } = {}): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const context = await browser.newContext({ viewport: VIEWPORT, offline: true, javaScriptEnabled: opts.scripts ?? true });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => {
    if (r.url() !== `file://${file}`) requests.push(r.url());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`file://${file}`);
  return { page, requests, errors };
}

/** The headline cards and whether each lies inside the first viewport. */
async function headlineCards(page: Page): Promise<{ text: string; inView: boolean }[]> {
  const cards = page.locator('#headline .card[data-metric]');
  const out: { text: string; inView: boolean }[] = [];
  for (let i = 0; i < (await cards.count()); i++) {
    const box = await cards.nth(i).boundingBox();
    out.push({
      text: (await cards.nth(i).innerText()).replace(/\s+/g, ' '),
      inView: box !== null && box.y >= 0 && box.y + box.height <= VIEWPORT.height && box.x + box.width <= VIEWPORT.width,
    });
  }
  return out;
}

describe('the report leads with the answer', () => {
  it('runs every bundled suite once per language', () => {
    expect(runs.map((r) => r.benchmark).sort()).toEqual(['abricot', 'kotlin-humaneval', 'rocode', 'rocode', 'rocode']);
  });

  it.each(['abricot', 'kotlin-humaneval', 'rocode'])(
    '%s: the headline with its interval and the verdict counts are in the first 1280×800 screen, offline',
    async (benchmark) => {
      for (const run of runs.filter((r) => r.benchmark === benchmark)) {
        const { page, requests, errors } = await open(run.report);
        if (shots) await page.screenshot({ path: join(shots, `${run.run_id}.png`) });
        const cards = await headlineCards(page);
        expect(cards.length, run.run_id).toBe(benchmark === 'abricot' ? 2 : 1);
        for (const card of cards) {
          expect(card.text).toMatch(
            /^(pearson · (abstractness|inclusiveness)|(pass@1|accuracy) · all tasks) 1\.000 95% CI \[1\.000, 1\.000\] · n = \d+ (items|tasks)$/,
          );
          expect(card.inView, `${run.run_id}: ${card.text}`).toBe(true);
        }
        const verdicts = page.locator('#verdict-counts');
        const box = await verdicts.boundingBox();
        expect(box && box.y + box.height <= VIEWPORT.height).toBe(true);
        expect(await verdicts.textContent()).toContain(`OK ${run.verdicts.OK}`);
        expect(requests).toEqual([]);
        expect(errors).toEqual([]);
        await page.context().close();
      }
    },
    300_000,
  );

  it('says a metric that cannot be computed once, not per slice, and shows slices as rows', async () => {
    const run = runs.find((r) => r.benchmark === 'rocode') ?? runs[0];
    const { page } = await open(run?.report ?? '');
    // One sample per task: strict accuracy (APPS's rule) would equal pass@1, and pass@10 needs 10 samples; each said once.
    expect(await page.locator('#absent').textContent()).toMatch(
      /^strict_accuracy absent: one scored sample per task: strict accuracy equals pass@1 · \d+ slices · pass@10 absent: n=1 < k=10 · \d+ slices$/,
    );
    // The protocol's headline (RoCode paper: accuracy) is the first metric column; neither absent metric is a column.
    const columns = await page.locator('#metrics thead th').allTextContents();
    expect(columns.slice(0, 3)).toEqual(['slice', 'n', 'accuracy']);
    expect(columns).not.toContain('pass@10');
    expect(columns).not.toContain('strict_accuracy');
    expect(await page.locator('#metrics tbody th').first().textContent()).toBe('all tasks');
    await page.context().close();
  }, 120_000);

  it("rocode: its own section shows the code-switching shares with each slice's values, and no part of the page scrolls sideways at 1280 px", async () => {
    for (const run of runs.filter((r) => r.benchmark === 'rocode')) {
      const { page } = await open(run.report);
      const slices = await page.locator('#code-switching-table tbody tr > td:first-child').allTextContents();
      // The human baseline per difficulty: "c+cpp · difficulty <value>", never "c+cpp,difficulty".
      expect(slices.filter((s) => /^c\+cpp · difficulty \S+$/.test(s)).length, run.run_id).toBeGreaterThan(0);
      expect(slices.join('|')).not.toMatch(/,difficulty/);
      // The generic metrics table leaves the code-switching shares to the benchmark's section.
      expect((await page.locator('#metrics thead th').allTextContents()).filter((c) => c.startsWith('code_switching'))).toEqual([]);
      // Run in the page (a string: the test's own TypeScript has no DOM types).
      const overflow = await page.evaluate<{ page: number; wide: string[] }>(`({
        page: document.documentElement.scrollWidth,
        wide: [...document.querySelectorAll('table')].filter((t) => t.getBoundingClientRect().right > window.innerWidth).map((t) => t.id || t.className),
      })`);
      expect(overflow, run.run_id).toEqual({ page: VIEWPORT.width, wide: [] });
      await page.context().close();
    }
  }, 120_000);

  it('lists only the toolchains the run used', async () => {
    for (const run of runs) {
      const { page } = await open(run.report);
      const toolchains = (await page.locator('#manifest th').allTextContents()).filter((k) => k.startsWith('toolchain '));
      const expected =
        run.benchmark === 'abricot'
          ? []
          : run.benchmark === 'kotlin-humaneval'
            ? ['toolchain kotlin']
            : [`toolchain ${/-(c|cpp|python)-/.exec(run.run_id)?.[1] ?? '?'}`];
      expect(toolchains, run.run_id).toEqual(expected);
      await page.context().close();
    }
  }, 300_000);

  it('compare --format html leads with the headline difference and its interval', async () => {
    const [a, b] = runs.filter((r) => r.benchmark === 'rocode');
    const result = await runCli(['compare', a?.run_id ?? '', b?.run_id ?? '', '--format', 'html', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const { page, requests } = await open(result.stdout.trim());
    if (shots) await page.screenshot({ path: join(shots, 'compare.png') });
    const cards = await headlineCards(page);
    expect(cards.map((c) => c.inView)).toEqual([true]);
    expect(cards[0]?.text).toMatch(/^b − a · accuracy · all tasks \+0\.000 95% CI \[0\.000, 0\.000\] · no clear difference/);
    expect(await page.locator('#absent').textContent()).toContain('pass@10 absent');
    expect(requests).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('opens a 2,000-sample report with one page of rows and its headline first', async () => {
    const file = synthetic2000();
    const { page, requests, errors } = await open(file);
    if (shots) await page.screenshot({ path: join(shots, 'synthetic-2000.png') });
    await expect.poll(() => page.textContent('#pe-count'), { timeout: 30_000 }).toBe('2000 of 2000 samples');
    expect(await page.locator('#pe-rows tr').count()).toBe(50);
    // The whole page, every section included, stays a few hundred elements: samples are
    // data until shown, 50 rows at a time.
    expect(await page.locator('*').count()).toBeLessThan(1_500);
    const cards = await headlineCards(page);
    // The headline of a run without a protocol (RoCode: accuracy): one card for the whole run, then one per language (the synthetic run has two).
    expect(cards.map((c) => c.inView)).toEqual([true, true, true]);
    expect(cards.map((c) => c.text.split(' 0.')[0])).toEqual(['accuracy · all tasks', 'accuracy · cpp', 'accuracy · python']);
    expect(cards[0]?.text).toMatch(/^accuracy · all tasks 0\.\d{3} 95% CI \[0\.\d{3}, 0\.\d{3}\] · n = 2000 tasks$/);
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 300_000);

  it("paints a 2,000-sample report's headline, table and manifest from its static HTML, before any sample data (scripts off)", async () => {
    const file = synthetic2000();
    const html = readFileSync(file, 'utf8');
    const firstScript = html.indexOf('<script');
    for (const id of ['headline', 'metrics', 'manifest']) expect(html.indexOf(`id="${id}"`), id).toBeLessThan(firstScript);
    const { page, requests } = await open(file, { scripts: false });
    const cards = await headlineCards(page);
    expect(cards.map((c) => c.inView)).toEqual([true, true, true]);
    expect(cards[0]?.text).toMatch(/^accuracy · all tasks 0\.\d{3} 95% CI \[0\.\d{3}, 0\.\d{3}\] · n = 2000 tasks$/);
    expect(await page.locator('#metrics tbody th').first().textContent()).toBe('all tasks');
    expect(await page.locator('#manifest').isVisible()).toBe(true);
    // Without scripts the browser stays hidden and the failing samples show as a table.
    expect(await page.locator('#pe-browser').isVisible()).toBe(false);
    expect(await page.locator('noscript table tbody tr').count()).toBe(100);
    expect(requests).toEqual([]);
    await page.context().close();
  }, 300_000);
});

let synthetic: string | undefined;
/** A 2,000-sample report with its metrics (written once). */
function synthetic2000(): string {
  if (synthetic) return synthetic;
  const docs = syntheticRun(2_000, { rawChars: 2_000 });
  const records = docs.map((d) => d.record);
  const metrics = computeMetrics(records, { runId: 'synth', benchmark: 'rocode', model: 'synthetic', scorer: 'io-tests', n: 1, seed: 1 });
  const verdicts: Record<string, number> = {};
  for (const r of records) verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
  synthetic = join(home, 'synthetic-2000.html');
  writeFileSync(synthetic, renderReport({ manifest: syntheticRun.manifest(), metrics, docs, summary: { items: docs.length, verdicts } }));
  return synthetic;
}
