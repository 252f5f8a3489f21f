/**
 * GET /runs/{id}/report: where to download a run's HTML report. The API answers with a
 * short-lived presigned S3 URL rather than the page itself, because a report of a large run
 * exceeds what a Lambda response may carry (6 MB, https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html).
 * An unknown run is a RunNotFoundError (404); a run whose report is not written yet (still
 * running, cancelled before aggregation) a ReportNotWrittenError (409).
 */
import { PolyevalError } from '#core/errors.ts';
import type { BlobStore, RunLedger } from '#core/ports.ts';
import { keys } from '#core/run/index.ts';
import { checkRunId, RunNotFoundError } from './queries.ts';

/** How long a report link stays valid: long enough to start a download, short enough not to be a share link. */
export const REPORT_LINK_SECONDS = 300;

export class ReportNotWrittenError extends PolyevalError {
  override name = 'ReportNotWrittenError';
  constructor(
    readonly runId: string,
    readonly status: string,
  ) {
    super(`run "${runId}" is ${status} and has no report yet: the report is written when the run completes (see: polyeval remote status ${runId})`);
  }
}

export interface ReportLinkDeps {
  store: BlobStore;
  ledger: RunLedger;
  /** A URL that GETs `key` without further credentials for `expiresInSeconds` (S3BlobStore.presignedGetUrl). */
  signedGetUrl: (key: string, expiresInSeconds: number) => Promise<string>;
  clock: () => Date;
}

/** The answer of GET /runs/{id}/report. */
export interface ReportLink {
  run_id: string;
  url: string;
  expires_at: string;
}

export async function reportLink(deps: ReportLinkDeps, runId: string): Promise<ReportLink> {
  checkRunId(runId);
  const run = await deps.ledger.getRun(runId);
  if (run === undefined) throw new RunNotFoundError(runId);
  const key = keys.report(runId);
  // A completed run has its report; a run aggregated again (redrive) keeps the previous one until replaced.
  if (!(await deps.store.exists(key))) throw new ReportNotWrittenError(runId, run.status);
  const now = deps.clock();
  return {
    run_id: runId,
    url: await deps.signedGetUrl(key, REPORT_LINK_SECONDS),
    expires_at: new Date(now.getTime() + REPORT_LINK_SECONDS * 1000).toISOString(),
  };
}
