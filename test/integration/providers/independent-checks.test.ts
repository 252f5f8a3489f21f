/**
 * Issue 18's independent check of a hostile provider: one ABRICOT run on Claude through Bedrock,
 * whose fake validates requests as Bedrock does for Anthropic's models (Opus 4.1 refuses
 * `temperature` with `top_p`; whitespace-only stop sequences refused), while the server throttles
 * (429 ThrottlingException), resets connections, cuts answers mid-body and sends bodies shorter
 * than their Content-Length. Every item must end predicted as the model prefers: no SE, no answer
 * scored from a broken body, every fault retried.
 */
import { calamitaGold } from '#core/benchmarks/likert-gold.ts';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHome, packageRoot } from '#app/local/home.ts';
import { requireManifest, runLocal } from '#app/local/run.ts';
import { readItems } from '#core/report/aggregate.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import { startBedrockServer, type Fault } from '../../fakes/wire-servers/index.ts';
import { useFakeAwsEnv } from './harness.ts';

const ROOT = packageRoot();
const items = readFileSync(join(ROOT, 'sample/abricot/items.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { text: string; abs_mean: number; inc_mean: number });
// The paper protocol's gold: the ABRICOT authors' rule (layers/core/benchmarks/likert-gold.ts).
const gold = (mean: number): number => calamitaGold(mean);

/** The digit the fake model answers: the gold of the open (last) question. */
function preferred(context: string): string {
  const question = context.slice(context.lastIndexOf('Assegna un valore di '));
  const sentence = /frase seguente:\s(.*?)\sDescrizione dei valori:/s.exec(question)?.[1] ?? '';
  const item = items.find((i) => i.text === sentence);
  return item ? String(gold(question.startsWith('Assegna un valore di astrazione') ? item.abs_mean : item.inc_mean)) : '1';
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('ABRICOT through Bedrock with Anthropic’s validation, on a server that throttles, drops connections and cuts bodies', () => {
  it('predicts every item as the model prefers, retrying every fault, with no SE', async () => {
    cleanups.push(useFakeAwsEnv());
    const kinds: Fault['kind'][] = ['throttle', 'reset', 'cut', 'short'];
    const faults = Array.from({ length: 12 }, (_, i) => ({ kind: kinds[i % kinds.length] }) as Fault);
    const server = await startBedrockServer({ faults, answer: (prompt) => `${preferred(prompt)}\nPerché la parola è usata così.` });
    cleanups.push(() => server.close());
    const home = openHome(mkdtempSync(join(tmpdir(), 'independent-')));

    const [result] = await runLocal(
      parseRunSpec({ benchmark: 'sample/abricot', model: 'bedrock:us.anthropic.claude-opus-4-1-20250805-v1:0', limit: 8, topP: 0.9 }),
      {
        home,
        packageRoot: ROOT,
        providerOptions: { env: {}, endpointUrl: server.url, retryBaseMs: 1, random: () => 0, sleep: async () => undefined, timeoutMs: 10_000 },
        jobs: 2,
      },
    );

    expect(result?.status).toBe('completed');
    const manifest = await requireManifest(home, result?.run_id ?? '');
    expect(manifest.likert_mode).toBe('digit-parse');
    const docs = await readItems(home.store, result?.run_id ?? '');
    expect(docs).toHaveLength(8);
    expect(docs.filter((d) => d.record.verdict === 'SE').map((d) => d.record.error)).toEqual([]);
    for (const d of docs) expect(d.record.predicted).toBe(d.record.gold);
    expect(server.requests.filter((r) => r.fault !== undefined).map((r) => r.fault)).toEqual(faults.map((f) => f.kind));
    // Anthropic's validation passed: no request carried temperature beside top_p.
    const configs = server.requests.map((r) => (r.body as { inferenceConfig?: Record<string, unknown> }).inferenceConfig ?? {});
    expect(configs.every((c) => !('temperature' in c && 'topP' in c))).toBe(true);
  }, 60_000);
});
