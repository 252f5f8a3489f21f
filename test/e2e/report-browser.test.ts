/**
 * The HTML report as a sample browser, opened in headless Chromium from the file the CLI
 * wrote (file://, offline): filters narrow the list, a sample opens with its prompt, answer
 * and per-test input/expected/actual around the first difference; ABRICOT items show their
 * five log-likelihoods; a hostile answer stays text; 20,000 samples page instead of
 * rendering every row.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReport } from '#core/report/html.ts';
import { launchBrowser } from '../../sim/browser.ts';
import { ROOT, parseJson, runCli, tempHome } from '../support/cli.ts';
import { syntheticRun } from '../../sim/synthetic-report.ts';

const home = tempHome();
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function open(file: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`file://${file}`);
  return { page, errors };
}

async function reportOf(args: string[]): Promise<string> {
  const result = await runCli(['run', ...args, '--json', '-q', '--home', home]);
  expect(result.code, result.stderr).toBe(0);
  return parseJson<{ report: string }>(result).report;
}

describe('report sample browser in Chromium', () => {
  it('filters RoCode samples by verdict and shows a wrong answer against the expected output', async () => {
    const report = await reportOf(['-b', 'sample/rocode', '-m', `replay:${join(ROOT, 'sample/replay/rocode-mixed.jsonl')}`]);
    const { page, errors } = await open(report);
    await expect.poll(() => page.textContent('#pe-count')).toBe('13 of 13 samples');
    await page.selectOption('#pe-f-verdict', 'WA');
    expect(await page.textContent('#pe-count')).toBe('4 of 13 samples');
    await page.selectOption('#pe-f-language', 'python');
    await page.fill('#pe-f-task', '001-suma');
    expect(await page.locator('#pe-rows tr').count()).toBe(1);
    await page.click('#pe-rows tr');

    expect(await page.textContent('#pe-detail h3')).toContain('rocode-sample/001-suma · sample 0 · python WA');
    expect(await page.textContent('#pe-prompt')).toContain('Calculați suma');
    expect(await page.textContent('#pe-raw')).toContain('abs(int(x))');
    const marks = await page.locator('#pe-tests mark').allTextContents();
    expect(marks.slice(0, 2)).toEqual(['-1000000000', '1000000000']);
    expect(await page.locator('#pe-tests .io.in').first().textContent()).toContain('-1000000000');
    expect(await page.textContent('#pe-tests')).toMatch(/showing characters/);
    expect(errors).toEqual([]);
    await page.close();
  }, 600_000);

  it('shows a compile error as compile output and keeps a hostile answer as text', async () => {
    const replay = join(home, 'hostile.jsonl');
    const answer = '</script><img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script>';
    writeFileSync(replay, `${JSON.stringify({ task_id: 'rocode-sample/001-suma', completion: answer, language: 'cpp' })}\n`);
    const report = await reportOf(['-b', 'sample/rocode', '-m', `replay:${replay}`, '--language', 'cpp']);
    const { page, errors } = await open(report);
    await page.selectOption('#pe-f-verdict', 'CE');
    await page.click('#pe-rows tr');
    expect(await page.textContent('#pe-raw pre')).toBe(answer);
    expect(await page.locator('#pe-error h4').textContent()).toBe('Compile output');
    expect(await page.textContent('#pe-error pre')).toMatch(/error/);
    expect(await page.locator('#pe-detail img').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
    expect(errors).toEqual([]);
    await page.close();
  }, 600_000);

  it('shows an ABRICOT item with its sentence, target word and five log-likelihoods', async () => {
    const report = await reportOf(['-b', 'sample/abricot', '-m', 'reference']);
    const { page, errors } = await open(report);
    await page.selectOption('#pe-f-slice', 'subtask=inclusiveness');
    expect(await page.textContent('#pe-count')).toBe('26 of 52 samples');
    await page.fill('#pe-f-task', 'it001');
    await page.click('#pe-rows tr');
    const facts = await page.textContent('#pe-detail dl');
    expect(facts).toContain('target wordlampada');
    expect(facts).toContain('Ho acceso la lampada');
    const rows = page.locator('#pe-likert tbody tr');
    expect(await rows.count()).toBe(5);
    const predicted = await page.locator('#pe-likert tr.pred td').last().textContent();
    expect(predicted).toBe('predicted, gold');
    expect(await page.textContent('#pe-prompt')).toContain('inclusività');
    expect(errors).toEqual([]);
    await page.close();
  }, 600_000);

  it('pages 20,000 samples and opens one from the last page', async () => {
    const docs = syntheticRun(20_000, { rawChars: 2_000 });
    const file = join(home, 'synthetic-20000.html');
    writeFileSync(file, renderReport({ manifest: syntheticRun.manifest(), metrics: [], docs, summary: { items: docs.length, verdicts: {} } }));
    const { page, errors } = await open(file);
    await expect.poll(() => page.textContent('#pe-count'), { timeout: 30_000 }).toBe('20000 of 20000 samples');
    expect(await page.locator('#pe-rows tr').count()).toBe(50);
    expect(await page.textContent('#pe-page')).toBe('page 1 of 400');
    await page.selectOption('#pe-f-verdict', 'WA');
    await page.selectOption('#pe-f-language', 'python');
    expect(await page.textContent('#pe-count')).toBe('3333 of 20000 samples');
    for (let i = 0; i < 3; i++) await page.click('#pe-next');
    expect(await page.textContent('#pe-page')).toBe('page 4 of 67');
    await page.locator('#pe-rows tr').last().click();
    const title = (await page.textContent('#pe-detail h3')) ?? '';
    const taskNumber = Number(/rocode-synth\/(\d+)/.exec(title)?.[1]);
    const marks = await page.locator('#pe-tests mark').allTextContents();
    expect(marks).toEqual([String(taskNumber), `-${taskNumber}`]);
    expect(errors).toEqual([]);
    await page.close();
  }, 600_000);
});
