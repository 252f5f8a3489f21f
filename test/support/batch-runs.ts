/**
 * What the `--batch` end-to-end tests read back from a run's home: its stored items, their
 * verdicts, a price table file, and a wait for a fake's state.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempHome } from './cli.ts';

/** The part of a stored item these tests read. */
export interface StoredItem {
  record: { task_id: string; sample: number; verdict: string; error: string | null; prompt_tokens: number | null; completion_tokens: number | null };
}

/** `polyeval run --json` of one run, as these tests read it. */
export type RunJson = { run_id: string; status: string; items: number; verdicts: Record<string, number>; metrics: Record<string, { value: number | null }> };

export function storedItems(home: string, runId: string): StoredItem[] {
  const dir = join(home, 'store', 'runs', runId, 'items');
  return readdirSync(dir).flatMap((task) => readdirSync(join(dir, task)).map((f) => JSON.parse(readFileSync(join(dir, task, f), 'utf8')) as StoredItem));
}

export function storedVerdicts(home: string, runId: string): Record<string, string> {
  return Object.fromEntries(storedItems(home, runId).map((i) => [`${i.record.task_id}#${i.record.sample}`, i.record.verdict]));
}

/** The model a run's manifest names. */
export function manifestModel(home: string, runId: string): string {
  return (JSON.parse(readFileSync(join(home, 'store', 'runs', runId, 'manifest.json'), 'utf8')) as { model: { name: string } }).model.name;
}

/** A fresh home with `prices` written beside it as a `--prices` file. */
export function homeWithPrices(prices: unknown): { home: string; prices: string } {
  const home = tempHome();
  const file = join(home, 'prices.json');
  writeFileSync(file, JSON.stringify(prices));
  return { home, prices: file };
}

/** Tokens a run's records billed. */
export function billedTokens(home: string, runId: string): { in: number; out: number } {
  return storedItems(home, runId).reduce((s, x) => ({ in: s.in + (x.record.prompt_tokens ?? 0), out: s.out + (x.record.completion_tokens ?? 0) }), {
    in: 0,
    out: 0,
  });
}

export async function until(condition: () => boolean, timeoutMs = 120_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
