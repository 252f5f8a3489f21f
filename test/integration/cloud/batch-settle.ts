/** What the cloud batch tests read back: a run driven to its end by ticks of the batch stage, its verdicts and SE reasons. */
import { parseItemDocument } from '#core/run/engine.ts';
import { keys } from '#core/run/keys.ts';
import { drive, type Cloud } from './cloud-harness.ts';

/** Ticks the stage and drains the pipeline until the run leaves `running`; the distinct status lines seen. */
export async function untilSettled(cloud: Cloud, runId: string, tick: () => Promise<unknown>, maxTicks = 40): Promise<string[]> {
  const lines: string[] = [];
  for (let i = 0; i < maxTicks; i++) {
    await tick();
    await drive(cloud);
    const run = await cloud.ledger.getRun(runId);
    if (run?.reason && lines.at(-1) !== run.reason) lines.push(run.reason);
    if (run && run.status !== 'running' && run.status !== 'planned') return lines;
  }
  throw new Error(`run ${runId} still running: ${lines.join(' | ')}`);
}

async function records(cloud: Cloud, runId: string) {
  const out = [];
  for (const key of await cloud.store.list(keys.itemsPrefix(runId))) out.push(parseItemDocument((await cloud.store.getText(key)) as string, key).record);
  return out;
}

/** `<task>#<sample>` → `<verdict>:<answer>` of every recorded item. */
export async function verdicts(cloud: Cloud, runId: string): Promise<Record<string, string>> {
  return Object.fromEntries((await records(cloud, runId)).map((r) => [`${r.task_id}#${r.sample}`, `${r.verdict}:${r.answer}`]));
}

/** The error of every SE record. */
export async function reasons(cloud: Cloud, runId: string): Promise<string[]> {
  return (await records(cloud, runId)).filter((r) => r.verdict === 'SE').map((r) => String(r.error));
}
