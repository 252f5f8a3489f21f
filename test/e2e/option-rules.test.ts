/**
 * Options declared once: every rule between run options refuses the same bad combination with
 * the same message on each surface — the built CLI (`polyeval run`, one run and a sweep grid),
 * the HTTP API (`POST /runs` through the api function's middy chain) and a nightly sweep file —
 * and `polyeval run`'s own flag rules refuse with exit code 2 and their message. Each declared
 * rule needs a row here: a rule without one fails the coverage check below.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '#core/errors.ts';
import { RUN_RULES } from '#core/run/run-options.ts';
import { FileRunLedger, FsBlobStore } from '#local/index.ts';
import { parseSweep, sweepSpecs } from '#app/cloud/sweep.ts';
import { makeHandler } from '../../functions/api/handler.ts';
import { RUN_FLAG_RULES, SWEEP_RESUME_RULES } from '../../bin/cli/run-rules.ts';
import { postJson } from '../integration/cloud/api-events.ts';
import { lambdaContext } from '../integration/cloud/cloud-harness.ts';
import { runCli, tempHome } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'polyeval-option-rules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One bad combination: the flags as typed, the same request as a spec, and the refusal. */
interface SpecRuleCase {
  rule: string;
  benchmark: string;
  argv: string[];
  spec: Record<string, unknown>;
  /** A nightly sweep file's `params` (snake_case names where the declarations give one). */
  params?: Record<string, unknown>;
  field: string;
  detail: string;
}

const SPEC_CASES: SpecRuleCase[] = [
  {
    rule: 'protocol-known',
    benchmark: 'sample/abricot',
    argv: ['--protocol', 'lm-eval'],
    spec: { protocol: 'lm-eval' },
    field: 'protocol',
    detail: 'unknown protocol "lm-eval" for abricot (protocols: paper, paper-figure, calamita, calamita-fork)',
  },
  {
    rule: 'shots-applies',
    benchmark: 'sample/rocode',
    argv: ['--shots', '2'],
    spec: { shots: 2 },
    field: 'shots',
    detail: '--shots does not apply to rocode (protocol paper)',
  },
  {
    rule: 'gold-applies',
    benchmark: 'sample/kotlin-humaneval',
    argv: ['--gold', 'authors'],
    spec: { gold: 'authors' },
    field: 'gold',
    detail: '--gold does not apply to kotlin-humaneval (protocol mxeval)',
  },
  {
    rule: 'shotSeed-applies',
    benchmark: 'sample/rocode',
    argv: ['--shot-seed', '7'],
    spec: { shotSeed: 7 },
    field: 'shotSeed',
    detail: '--shot-seed does not apply to rocode (protocol paper)',
  },
  {
    rule: 'chatTemplate-applies',
    benchmark: 'sample/rocode',
    argv: ['--chat-template', 'llama-3.1'],
    spec: { chatTemplate: 'llama-3.1' },
    field: 'chatTemplate',
    detail: '--chat-template does not apply to rocode (protocol paper)',
  },
  {
    rule: 'promptLanguage-applies',
    benchmark: 'sample/abricot',
    argv: ['--prompt-language', 'en'],
    spec: { promptLanguage: 'en' },
    field: 'promptLanguage',
    detail: '--prompt-language does not apply to abricot (protocol paper)',
  },
  {
    rule: 'timeClock-applies',
    benchmark: 'sample/abricot',
    argv: ['--time-clock', 'wall'],
    spec: { timeClock: 'wall' },
    field: 'timeClock',
    detail: '--time-clock does not apply to abricot (protocol paper)',
  },
];

function api() {
  const handler = makeHandler({
    store: new FsBlobStore(join(dir, 'store')),
    ledger: new FileRunLedger(join(dir, 'ledger')),
    results: { sql: () => Promise.reject(new Error('not queried here')), close: () => Promise.resolve() },
    planQueue: { send: () => Promise.resolve() },
    clock: () => new Date('2026-01-01T00:00:00Z'),
    pairs: [],
    move: () => Promise.resolve({ moved: 0 }),
    signedGetUrl: (key) => Promise.resolve(`https://signed.example/${key}`),
  });
  return async (body: unknown) => {
    const response = await handler(postJson('/runs', body), lambdaContext('api'));
    return { status: response.statusCode, message: (JSON.parse(response.body ?? '{}') as { message: string }).message };
  };
}

/** The nightly sweep's refusal (its specs are built when the stack is configured and when the sweep starts). */
function sweepRefusal(c: SpecRuleCase): InputError {
  try {
    sweepSpecs(parseSweep({ benchmarks: [c.benchmark], models: ['reference'], params: c.params ?? c.spec }));
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error(`the nightly sweep accepted ${JSON.stringify(c.spec)} on ${c.benchmark}`);
}

describe('a rule between run options refuses alike on the CLI, the HTTP API and sweeps', { timeout: 120_000 }, () => {
  it('has a row for every declared rule', () => {
    expect(SPEC_CASES.map((c) => c.rule).sort()).toEqual(RUN_RULES.map((r) => r.id).sort());
    expect(FLAG_CASES.map((c) => c.rule).sort()).toEqual([...RUN_FLAG_RULES, ...SWEEP_RESUME_RULES].map((r) => r.id).sort());
  });

  it.each(SPEC_CASES)('$rule', async (c) => {
    const home = tempHome();
    // The CLI: one run, and a sweep grid of two models; refused before any plan (exit 2, nothing recorded).
    const single = await runCli(['run', '-b', c.benchmark, ...c.argv, '--dry-run', '-q', '--home', home]);
    expect(single.code, single.stderr).toBe(2);
    expect(single.stderr).toContain(c.detail);
    const grid = await runCli(['run', '-b', c.benchmark, '-m', 'reference', '-m', 'replay:none.jsonl', ...c.argv, '-q', '--home', home]);
    expect(grid.code, grid.stderr).toBe(2);
    expect(grid.stderr).toContain(c.detail);
    expect(grid.stderr).not.toContain('sweep sweep-');
    // `remote run`: refused on this machine, before the API is asked for (none is given here).
    const remote = await runCli(['remote', 'run', '-b', c.benchmark, ...c.argv, '--home', home], { env: { ...process.env, POLYEVAL_API: '' } });
    expect(remote.code, remote.stderr).toBe(2);
    expect(remote.stderr).toContain(c.detail);

    // The HTTP API: 400 naming the field.
    const response = await api()({ benchmark: c.benchmark, model: 'reference', ...c.spec });
    expect(response.status).toBe(400);
    expect(response.message).toBe(`request body, field "${c.field}": ${c.detail}`);

    // A nightly sweep file.
    const refusal = sweepRefusal(c);
    expect(refusal.detail).toBe(c.detail);
    expect(refusal.location.field).toBe(c.field);
  });
});

/** `polyeval run`'s own flags (a run spec does not store them, so only the CLI has them). */
interface FlagRuleCase {
  rule: string;
  argv: string[];
  detail: string;
  /** Resume a sweep of this home first started with these flags. */
  sweepFirst?: boolean;
}

const FLAG_CASES: FlagRuleCase[] = [
  {
    rule: 'concurrency-agrees',
    argv: ['-b', 'sample/abricot', '--concurrency', '2', '--model-concurrency', '3'],
    detail: '--concurrency 2 and --model-concurrency 3 disagree: in a single run both set the model calls in flight; give one',
  },
  {
    rule: 'batch-poll-positive',
    argv: ['-b', 'sample/abricot', '--batch', '--batch-poll', '0'],
    detail: '--batch-poll must be a positive number of seconds, got 0',
  },
  {
    rule: 'batch-poll-requires-batch',
    argv: ['-b', 'sample/abricot', '--batch-poll', '5'],
    detail: '--batch-poll sets how often a batch job is polled: give it with --batch or --batch-model (or with --resume of a batch run)',
  },
  {
    rule: 'batch-token-limit-positive',
    argv: ['-b', 'sample/abricot', '--batch', '--batch-token-limit', '1.5'],
    detail: '--batch-token-limit must be a positive whole number of tokens, got 1.5',
  },
  {
    rule: 'batch-token-limit-requires-batch',
    argv: ['-b', 'sample/abricot', '--batch-token-limit', '100'],
    detail: '--batch-token-limit sizes batch jobs: give it with --batch or --batch-model (or with --resume of a batch run)',
  },
  {
    rule: 'batch-conflicts-resume',
    argv: ['--resume', 'abricot-20260101T000000Z-abcdef', '--batch'],
    detail: '--resume continues a run in the mode it was planned with; do not pass --batch (a batch run resumes as a batch)',
  },
  {
    rule: 'batch-model-conflicts-resume',
    argv: ['--resume', 'abricot-20260101T000000Z-abcdef', '--batch-model', 'reference'],
    detail: '--resume continues a run in the mode it was planned with; do not pass --batch-model (a batch run resumes as a batch)',
  },
  {
    rule: 'batch-conflicts-batch-model',
    argv: ['-b', 'sample/abricot', '-m', 'reference', '-m', 'replay:x.jsonl', '--batch', '--batch-model', 'reference'],
    detail: '--batch makes every cell a batch; --batch-model picks some: give one of them',
  },
  {
    rule: 'resume-conflicts-benchmark',
    argv: ['--resume', 'abricot-20260101T000000Z-abcdef', '-b', 'sample/abricot'],
    detail: '--resume takes the benchmark and model from the run; do not pass -b',
  },
  {
    rule: 'resume-conflicts-model',
    argv: ['--resume', 'abricot-20260101T000000Z-abcdef', '-m', 'reference'],
    detail: '--resume takes the benchmark and model from the run; do not pass -m',
  },
  {
    rule: 'sweep-resume-max-cost',
    argv: ['--max-cost', '1'],
    sweepFirst: true,
    detail: '--max-cost cannot be changed for a whole sweep; resume its stopped run with --resume <run-id> --max-cost',
  },
  {
    rule: 'sweep-resume-early-stop',
    argv: ['--no-early-stop'],
    sweepFirst: true,
    detail: '--no-early-stop cannot be changed for a whole sweep; resume its stopped run with --resume <run-id> --no-early-stop',
  },
];

describe("polyeval run's own flag rules", { timeout: 180_000 }, () => {
  let sweepHome: { home: string; id: string } | undefined;
  /** A finished sweep of two reference cells (once for the file). */
  async function sweep(): Promise<{ home: string; id: string }> {
    if (sweepHome) return sweepHome;
    const home = tempHome();
    const started = await runCli(['run', '-b', 'sample/abricot', '-m', 'reference', '-m', 'reference', '--limit', '1', '--json', '-q', '--home', home]);
    expect(started.code, started.stderr).toBe(0);
    sweepHome = { home, id: (JSON.parse(started.stdout) as { sweep_id: string }).sweep_id };
    return sweepHome;
  }

  it.each(FLAG_CASES)('$rule', async (c) => {
    const target = c.sweepFirst ? await sweep() : undefined;
    const argv = target ? ['--resume', target.id, ...c.argv] : c.argv;
    const result = await runCli(['run', ...argv, '-q', '--home', target?.home ?? tempHome()]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(c.detail);
  });
});

describe('a sweep recorded before the rules ran at validation', { timeout: 180_000 }, () => {
  it('still resumes: its other cells come back, the refused cell fails as a cell', async () => {
    // A sweep as earlier versions recorded `-b sample/abricot -b sample/rocode --shots 3`: both cells
    // carry the option, the abricot cell ran, the rocode cell failed before starting a run.
    const home = tempHome();
    const started = await runCli(['run', '-b', 'sample/abricot', '-b', 'sample/rocode', '--limit', '1', '--json', '-q', '--home', home]);
    expect(started.code, started.stderr).toBe(0);
    const sweepId = (JSON.parse(started.stdout) as { sweep_id: string }).sweep_id;
    const file = join(home, 'store', 'sweeps', `${sweepId}.json`);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { specs: Record<string, unknown>[]; runs: Record<string, Record<string, string>> };
    for (const spec of doc.specs) spec.shots = 3;
    const abricotRun = Object.values(doc.runs['0'] ?? {})[0];
    delete doc.runs['1'];
    writeFileSync(file, JSON.stringify(doc, null, 2));

    const resumed = await runCli(['run', '--resume', sweepId, '--json', '-q', '--home', home]);
    expect(resumed.stderr).not.toContain(`sweeps/${sweepId}.json specs[`);
    expect(resumed.code, resumed.stderr).toBe(2);
    const out = JSON.parse(resumed.stdout) as { runs: { run_id: string }[]; failed: { benchmark: string; error: string }[] };
    expect(out.runs.map((r) => r.run_id)).toEqual([abricotRun]);
    expect(out.failed).toEqual([{ benchmark: 'sample/rocode', model: 'reference', error: 'field "shots": --shots does not apply to rocode (protocol paper)' }]);
  });
});
