/**
 * The deployed self-test (POST /selftest, GET /selftest/{id}): starts every image's reference
 * suite and the hostile suite with the `reference` model through the deployed pipeline — so
 * every probe passes through its language's real judge and runner — and, once every run has
 * ended, reads their records into the report of layers/core/selftest/report.ts.
 * Suites built in code (the hostile rows, Java's and JavaScript's reference rows) are written
 * to `datasets/selftest/<hash>/` (plan reads `datasets/*`); the self-test's list of runs to
 * `selftest/<id>.json`.
 */
import { createHash } from 'node:crypto';
import { InputError, PolyevalError } from '#core/errors.ts';
import { z } from 'zod';
import { EXECUTOR_IMAGES, languageIdOf, languageSpec } from '#core/languages/index.ts';
import type { BlobStore, RunLedger } from '#core/ports.ts';
import { readItems } from '#core/report/index.ts';
import { parseRunSpec } from '#core/run/index.ts';
import { selftestReport, type SelftestReport, type SelftestRun } from '#core/selftest/index.ts';
import { HOSTILE_PROBES, SELFTEST_LANGUAGES, selftestSuites } from '#core/selftest/index.ts';
import { randomSuffix } from '../shared/run-ids.ts';
import { startRuns, type StartDeps } from './start.ts';

export interface SelftestDeps extends StartDeps {
  store: BlobStore;
  ledger: RunLedger;
}

export interface SelftestRunRef {
  run_id: string;
  role: 'reference' | 'hostile';
  language: string;
  image: string;
  /** The suite's benchmark: a bundled `sample/<name>`, or `rocode`/`mxeval` for rows built by the self-test. */
  benchmark?: string;
}

export interface SelftestStarted {
  selftest_id: string;
  runs: SelftestRunRef[];
}

export type SelftestView =
  { selftest_id: string; status: 'running'; runs: (SelftestRunRef & { status: string })[] } | ({ selftest_id: string; status: 'done' } & SelftestReport);

export class SelftestNotFoundError extends PolyevalError {
  override name = 'SelftestNotFoundError';
  constructor(readonly selftestId: string) {
    super(`no self-test "${selftestId}"`);
  }
}

const SELFTEST_ID = /^selftest-[A-Za-z0-9-]{1,80}$/;
const recordKey = (id: string): string => `selftest/${id}.json`;
const ENDED = new Set(['completed', 'completed_with_missing', 'stopped', 'cancelled', 'failed']);

/** The executor image that runs a language (its queue, judge and runner). */
export function imageOf(language: string): string {
  return languageSpec(language)?.executor.image ?? language;
}

/** What POST /selftest may carry: the languages to test (default: every language an executor image runs). */
export const SelftestRequestSchema = z.object({ languages: z.array(z.string().min(1)).min(1).optional() }).strict();
export type SelftestRequest = z.infer<typeof SelftestRequestSchema>;

/** The request's languages as ids, each one a self-test suite reaches. */
function chosenLanguages(request: SelftestRequest): Set<string> | undefined {
  if (!request.languages) return undefined;
  const ids = request.languages.map((spelling) => {
    const id = languageIdOf(spelling);
    if (id === undefined || !SELFTEST_LANGUAGES.includes(id))
      throw new InputError(`no self-test suite runs in "${spelling}" (languages: ${SELFTEST_LANGUAGES.join(', ')})`, { field: 'languages' });
    return id;
  });
  return new Set(ids);
}

/** Parses a POST /selftest body (none, or `{ "languages": [...] }`). */
export function parseSelftestRequest(body: unknown): SelftestRequest {
  if (body === undefined || body === null || body === '') return {};
  const parsed = SelftestRequestSchema.safeParse(body);
  if (!parsed.success)
    throw new InputError(`the body must be {"languages": ["python", …]} or empty: ${parsed.error.issues[0]?.message ?? ''}`, { field: 'body' });
  return parsed.data;
}

/** Writes the suites built in code (content-addressed) and starts every self-test run (of the request's languages). */
export async function startSelftest(deps: SelftestDeps, request: SelftestRequest = {}): Promise<SelftestStarted> {
  const only = chosenLanguages(request);
  const suites = selftestSuites().filter((s) => only === undefined || only.has(s.language));
  const hash = createHash('sha256')
    .update(suites.map((s) => s.rows?.text ?? s.benchmark).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const runs: SelftestRunRef[] = [];
  for (const suite of suites) {
    let benchmark = suite.benchmark;
    if (suite.rows) {
      const key = `datasets/selftest/${hash}/${suite.rows.file}`;
      await deps.store.put(key, suite.rows.text);
      benchmark = `${suite.benchmark}:${deps.store.locate(key)}`;
    }
    const spec = { benchmark, model: 'reference', language: suite.language, ...(suite.rowLimits ? { rowLimits: true } : {}) };
    const [run] = await startRuns(deps, parseRunSpec(spec, 'self-test'));
    if (run) runs.push({ run_id: run.run_id, role: suite.role, language: suite.language, image: imageOf(suite.language), benchmark: suite.benchmark });
  }
  const now = deps.clock();
  const id = `selftest-${now
    .toISOString()
    .replace(/[^0-9]/g, '')
    .slice(0, 14)}-${(deps.randomSuffix ?? randomSuffix)(`selftest|${hash}`)}`;
  await deps.store.put(recordKey(id), JSON.stringify({ selftest_id: id, created_at: now.toISOString(), runs }));
  return { selftest_id: id, runs };
}

/** Where a self-test is: its runs' statuses while any is going, else the report. */
export async function selftestView(deps: Pick<SelftestDeps, 'store' | 'ledger'>, id: string): Promise<SelftestView> {
  if (!SELFTEST_ID.test(id)) throw new InputError('expected a self-test id (selftest-…)', { field: 'id' });
  const text = await deps.store.getText(recordKey(id));
  if (text === undefined) throw new SelftestNotFoundError(id);
  const { runs } = JSON.parse(text) as { runs: SelftestRunRef[] };
  const statuses = await Promise.all(runs.map(async (r) => ({ ...r, status: (await deps.ledger.getRun(r.run_id))?.status ?? 'unknown' })));
  if (statuses.some((r) => !ENDED.has(r.status))) return { selftest_id: id, status: 'running', runs: statuses };
  const recorded: SelftestRun[] = [];
  for (const r of statuses) {
    const items = (await readItems(deps.store, r.run_id)).map((doc) => ({
      taskId: doc.record.task_id,
      verdict: doc.outcome.verdict,
      ...(doc.outcome.isolation ? { isolation: doc.outcome.isolation } : {}),
      ...(doc.outcome.error ? { error: doc.outcome.error.slice(0, 300) } : {}),
    }));
    recorded.push({ runId: r.run_id, role: r.role, language: r.language, status: r.status, items });
  }
  return { selftest_id: id, status: 'done', ...selftestReport(recorded, HOSTILE_PROBES, EXECUTOR_IMAGES) };
}
