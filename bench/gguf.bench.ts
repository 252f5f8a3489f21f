// ABRICOT in log-likelihood mode on a tiny GGUF model run in-process by llama.cpp (`gguf:`):
// items per second over the bundled sample's 52 items (each item: its few-shot prompt
// evaluated once, the five choices scored on that state). Model loading and start are left
// out: this is the per-item evaluation, where losing the context reuse would show.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createProvider } from '#app/shared/create-provider.ts';
import { loadSource } from '#app/shared/load-benchmark.ts';
import { parseBenchmarkSpec } from '#core/benchmarks/spec.ts';
import type { Prompt } from '#core/models/provider.ts';
import { tinyLlamaModelPath, type VocabName } from '../sim/gguf-writer.ts';
import type { BenchRow } from './index.ts';

const ROOT = resolve(import.meta.dirname, '..');

export async function run(): Promise<BenchRow[]> {
  const [source] = parseBenchmarkSpec('sample/abricot');
  if (!source) throw new Error('sample/abricot did not resolve');
  const cacheDir = mkdtempSync(join(tmpdir(), 'pe-bench-gguf-'));
  const rows: BenchRow[] = [];
  try {
    const loaded = await loadSource(source, { packageRoot: ROOT, cacheDir });
    const benchmark = source.benchmark;
    const choices = (benchmark.choices ?? []).map((c) => `${benchmark.choiceDelimiter ?? ' '}${c}`);
    const prompts: Prompt[] = loaded.tasks.map((t) => benchmark.buildPrompt(t as never, { pool: loaded.tasks as never }));
    for (const vocab of ['mistral', 'llama3'] as VocabName[]) {
      const provider = await createProvider(`gguf:${tinyLlamaModelPath({ vocab })}`, { concurrency: 1 });
      try {
        let tokens = 0;
        const t0 = performance.now();
        for (const [i, prompt] of prompts.entries()) {
          const scores = await provider.scoreChoices!({ taskId: String(i), prompt, choices });
          tokens += scores.usage.promptTokens;
        }
        const seconds = (performance.now() - t0) / 1000;
        rows.push({
          name: `abricot likelihood items/s (tiny ${vocab}, 2×64)`,
          value: prompts.length / seconds,
          unit: 'items/s',
          note: `${((seconds * 1000) / prompts.length).toFixed(0)} ms/item, ${Math.round(tokens / prompts.length)} tokens/item evaluated, ${provider.details?.threads} thread(s) of ${availableParallelism()}, load ${loadavg()[0]?.toFixed(1)}`,
        });
      } finally {
        await provider.close?.();
      }
    }
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  return rows;
}
