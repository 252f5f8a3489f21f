/**
 * Stopping a run's batch jobs at the provider: `polyeval rm <run-id>` cancels the jobs of
 * the run still running before it deletes the run's files, so a removed run leaves no paid
 * work behind (the job's record of which item is which goes with the files). The provider
 * is reached as the run reached it (the manifest's provider options: endpoint, key variable).
 */
import { batchKeys, parseBatchJob } from '#core/run/index.ts';
import { keys } from '#core/run/index.ts';
import { parseManifest } from '#core/run/index.ts';
import { createBatchClient } from '#providers/batch/registry.ts';
import type { Home } from './home.ts';

/**
 * Cancels every job of `runId` the provider has not ended; returns their ids. A run that
 * is not a batch run, or whose jobs all ended, cancels nothing.
 * @throws the provider's error when a running job cannot be cancelled (nothing is deleted then).
 */
export async function cancelRunningJobs(home: Home, runId: string): Promise<string[]> {
  const text = await home.store.getText(keys.manifest(runId));
  const manifest = text === undefined ? undefined : parseManifest(text, home.store.locate(keys.manifest(runId)));
  if (manifest?.generation !== 'batch') return [];
  const jobs = [];
  for (const key of await home.store.list(batchKeys.prefix(runId))) {
    const doc = await home.store.getText(key);
    if (doc !== undefined) jobs.push(parseBatchJob(doc, home.store.locate(key)));
  }
  const open = jobs.filter((j) => j.job_id !== null && j.state === 'submitted');
  if (open.length === 0) return [];
  const client = createBatchClient(manifest.model.spec, manifest.provider_options ?? {});
  const cancelled: string[] = [];
  for (const job of open) {
    const id = job.job_id as string;
    const status = await client.status(id);
    if (status.phase === 'ended' || status.phase === 'cancelling') continue;
    await client.cancel(id);
    cancelled.push(id);
  }
  return cancelled;
}
