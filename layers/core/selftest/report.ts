/**
 * The self-test's verdict: per executor image, the isolation its runner reported, whether its
 * reference suite passed, and for each hostile probe whether the sandbox held it. A probe
 * whose verdict is one of its "held" verdicts held; `SE` (the harness failed) and a missing
 * record are errors — nothing was learned — and any other verdict is an escape.
 */
import type { ExecutorImage } from '../languages/index.ts';
import type { Verdict } from '../types.ts';
import type { HostileProbe } from './suite.ts';

export type ProbeResult = 'held' | 'escaped' | 'error';

/** One recorded sample of a self-test run. */
export interface SelftestItem {
  taskId: string;
  verdict: Verdict;
  isolation?: string;
  error?: string;
}

/** One run the self-test started, with its final status and its records. */
export interface SelftestRun {
  runId: string;
  role: 'reference' | 'hostile';
  language: string;
  status: string;
  items: readonly SelftestItem[];
}

export interface ProbeReport {
  language: string;
  attack: string;
  /** The judge it went through: `io-tests` (a RoCode row) or `unit-tests` (an MXEval row). */
  scorer: HostileProbe['scorer'];
  verdict: Verdict | null;
  result: ProbeResult;
  error?: string;
}

export interface ImageReport {
  image: string;
  languages: string[];
  /** Distinct isolation labels the image's records name, e.g. `lambda-runner+rlimits+seccomp+landlock`. */
  isolation: string[];
  /** Null when no bundled reference suite reaches the image. */
  reference: { passed: number; total: number; failed: string[] } | null;
  probes: ProbeReport[];
  /** Runs that did not complete (`<run id>: <status>`). */
  incomplete: string[];
  /** Nothing was sent to this image (no bundled suite of its languages). */
  untested: boolean;
  ok: boolean;
}

export interface SelftestReport {
  images: ImageReport[];
  escaped: number;
  errors: number;
  referenceFailed: number;
  ok: boolean;
}

/**
 * How one probe went.
 * @example
 * probeResult(['TLE', 'RE'], 'TLE') // 'held'
 * probeResult(['OK'], 'WA')         // 'escaped': the probe printed what it reached
 */
export function probeResult(held: readonly Verdict[], verdict: Verdict | null): ProbeResult {
  if (verdict === null) return 'error';
  if (held.includes(verdict)) return 'held';
  return verdict === 'SE' ? 'error' : 'escaped';
}

const DONE = new Set(['completed', 'completed_with_missing']);

function imageReport(image: ExecutorImage, runs: readonly SelftestRun[], probes: readonly HostileProbe[]): ImageReport {
  const mine = runs.filter((r) => image.languages.includes(r.language));
  const isolation = [...new Set(mine.flatMap((r) => r.items.flatMap((i) => (i.isolation ? [i.isolation] : []))))].sort();
  const incomplete = mine.filter((r) => !DONE.has(r.status)).map((r) => `${r.runId}: ${r.status}`);
  const referenceRuns = mine.filter((r) => r.role === 'reference');
  const referenceItems = referenceRuns.flatMap((r) => r.items.map((i) => ({ ...i, language: r.language })));
  const failed = referenceItems.filter((i) => i.verdict !== 'OK').map((i) => `${i.language} ${i.taskId}: ${i.verdict}`);
  const reference = referenceRuns.length === 0 ? null : { passed: referenceItems.length - failed.length, total: referenceItems.length, failed };
  const hostileRuns = mine.filter((r) => r.role === 'hostile');
  const probeReports = probes
    .filter((p) => hostileRuns.some((r) => r.language === p.language))
    .map((p): ProbeReport => {
      // A language's probes may ride on two runs (RoCode rows and MXEval rows): task ids are unique across them.
      const item = hostileRuns
        .filter((r) => r.language === p.language)
        .flatMap((r) => r.items)
        .find((i) => i.taskId === p.taskId);
      const verdict = item?.verdict ?? null;
      const result = probeResult(p.held, verdict);
      const error = item === undefined ? 'not recorded' : result === 'held' ? undefined : item.error;
      return { language: p.language, attack: p.attack, scorer: p.scorer, verdict, result, ...(error ? { error } : {}) };
    });
  const untested = mine.length === 0;
  const ok = incomplete.length === 0 && (reference?.failed.length ?? 0) === 0 && probeReports.every((p) => p.result === 'held');
  return { image: image.id, languages: [...image.languages], isolation, reference, probes: probeReports, incomplete, untested, ok };
}

/**
 * The report over every image: `ok` when every run completed, every reference item passed
 * and every probe held. An image no run reached is listed as untested and fails nothing.
 */
export function selftestReport(runs: readonly SelftestRun[], probes: readonly HostileProbe[], images: readonly ExecutorImage[]): SelftestReport {
  const reports = images.map((image) => imageReport(image, runs, probes));
  const all = reports.flatMap((r) => r.probes);
  return {
    images: reports,
    escaped: all.filter((p) => p.result === 'escaped').length,
    errors: all.filter((p) => p.result === 'error').length,
    referenceFailed: reports.reduce((n, r) => n + (r.reference?.failed.length ?? 0), 0),
    ok: reports.every((r) => r.ok),
  };
}
