/**
 * Starting runs in the cloud: what POST /runs and the nightly sweep share. A request expands
 * into one run per benchmark source × language (as `polyeval run` does locally); each run gets
 * its ledger row (status `planned`) and a plan message carrying the request. Nothing is loaded
 * here: plan loads the dataset, so the api answers at once whatever the dataset's size.
 */
import type { BenchmarkRegistry } from '#core/benchmarks/index.ts';
import { parseBenchmarkSpec, type BenchmarkSource } from '#core/benchmarks/index.ts';
import { checkCloudBatch } from './batch-clients.ts';
import { InputError } from '#core/errors.ts';
import type { RunLedger, WorkQueue } from '#core/ports.ts';
import { protocolChoiceOf, type RunSpec } from '#core/run/index.ts';
import { PROVIDER_REGISTRY } from '#providers/index.ts';
import { unknownProvider } from '../shared/create-provider.ts';
import { languagesFor, newRunId, randomSuffix, runIdPrefix } from '../shared/run-ids.ts';
import { versioned, type PlanMessage, type RunRequest } from './messages.ts';
import { checkReadableS3, type S3Location } from './readable-s3.ts';

export interface StartDeps {
  ledger: RunLedger;
  planQueue: Pick<WorkQueue<PlanMessage>, 'send'>;
  clock: () => Date;
  /** Suffix of run ids, given the run's description (random by default; passed in so tests and schedules reproduce). */
  randomSuffix?: (run: string) => string;
  /** A run id already in the ledger is left as it is (no second plan message): a retried start is a no-op. */
  skipExisting?: boolean;
  /** The benchmarks requests may name (default: the registry). */
  benchmarks?: BenchmarkRegistry;
  /** Where the deployment may read `s3://` datasets and replay files (readable-s3.ts); undefined: not checked (a stack deployed before the setting). */
  readableS3?: readonly S3Location[];
}

export interface StartedRun {
  run_id: string;
  benchmark: string;
  model: string;
  language: string | null;
}

/** Remote sources the functions can read: a path on the caller's laptop means nothing here. */
const REMOTE_REF = /^(s3|hf|https?):\/\//;

function checkReachable(source: BenchmarkSource): void {
  if (source.kind === 'file' && !REMOTE_REF.test(source.ref)) {
    throw new InputError(`"${source.spec}" names a local file; the deployed pipeline reads s3://, hf:// or https:// datasets`, { field: 'benchmark' });
  }
}

function checkModel(model: string, readable: readonly S3Location[] | undefined): void {
  const text = model.trim();
  const found = PROVIDER_REGISTRY.find(text);
  if (!found) throw unknownProvider(text);
  found.kind.checkCloud?.(found.rest);
  // A file a provider reads (a replay file) is read by the functions that generate.
  if (readable && found.rest.trim().startsWith('s3://')) checkReadableS3(found.rest.trim(), 'model', readable);
}

/** Validates and starts every run a spec names; returns them in order. */
export async function startRuns(deps: StartDeps, spec: RunSpec): Promise<StartedRun[]> {
  checkModel(spec.model, deps.readableS3);
  if (spec.batch === true) checkCloudBatch(spec.model);
  const sources = parseBenchmarkSpec(spec.benchmark, protocolChoiceOf(spec), deps.benchmarks);
  sources.forEach(checkReachable);
  const readable = deps.readableS3;
  if (readable) for (const source of sources) if (source.kind === 'file') checkReadableS3(source.ref, 'benchmark', readable);
  const planned: { request: RunRequest; runId: string; source: BenchmarkSource }[] = [];
  const now = deps.clock();
  const suffix = deps.randomSuffix ?? randomSuffix;
  for (const source of sources) {
    const languages = languagesFor(spec, source.benchmark);
    for (const language of languages) {
      const prefix = runIdPrefix(source.benchmark.id, language, languages);
      const request: RunRequest = {
        spec: { ...spec, ...(language ? { language } : {}) },
        benchmark: source.spec,
        ...(language ? { language } : {}),
        createdAt: now.toISOString(),
      };
      planned.push({ request, runId: newRunId(prefix, now, suffix(`${source.spec}|${language ?? ''}|${JSON.stringify(request.spec)}`)), source });
    }
  }
  const started: StartedRun[] = [];
  for (const { request, runId, source } of planned) {
    const run = { run_id: runId, benchmark: source.benchmark.id, model: spec.model.trim(), language: request.language ?? null };
    if (deps.skipExisting && (await deps.ledger.getRun(runId)) !== undefined) {
      started.push(run);
      continue;
    }
    await deps.ledger.createRun({ runId, benchmark: source.benchmark.id, model: spec.model.trim(), status: 'planned', items: 0, createdAt: request.createdAt });
    await deps.planQueue.send([{ id: `${runId}/plan/0`, body: versioned({ runId, offset: 0, request }) }]);
    started.push(run);
  }
  return started;
}
