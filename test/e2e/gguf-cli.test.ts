/**
 * `-m gguf:<file>` through the built CLI, with a tiny Llama-architecture model written by the
 * test (sim/gguf-writer.ts, Mistral's SentencePiece vocabulary) and llama.cpp in the
 * CLI's own process: ABRICOT in log-likelihood mode with nothing reachable over the network,
 * and RoCode and Kotlin HumanEval generations that become records (whatever a random model
 * writes) with no system error.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseJson, runCli, tempHome } from '../support/cli.ts';
import { tinyLlamaModelPath } from '../../sim/gguf-writer.ts';

interface RunJson {
  run_id: string;
  model: string;
  items: number;
  verdicts: Record<string, number>;
  likert_mode?: string;
}

// Any HTTP(S) request of the run would go to a closed port.
const OFFLINE = { HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: '' };

describe('polyeval run -m gguf:<file>', () => {
  const home = tempHome();
  let model: string;
  beforeAll(() => {
    model = tinyLlamaModelPath({ vocab: 'mistral' });
  });

  it('scores the ABRICOT sample by log-likelihood offline, recording the file it ran', async () => {
    const result = await runCli(['run', '-b', 'sample/abricot', '-m', `gguf:${model}`, '--json', '-q', '--home', home], { env: OFFLINE });
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<RunJson>(result);
    expect(run.likert_mode).toBe('likelihood');
    expect(run.items).toBe(52);
    expect(run.verdicts.SE ?? 0).toBe(0);
    const details = JSON.parse(readFileSync(`${home}/store/runs/${run.run_id}/manifest.json`, 'utf8')).model.details;
    expect(details.sha256).toBe(createHash('sha256').update(readFileSync(model)).digest('hex'));
    expect(details).toMatchObject({ architecture: 'llama', quantisation: 'ALL_F32' });
  }, 600_000);

  it.each([
    ['RoCode', 'sample/rocode'],
    ['Kotlin HumanEval', 'sample/kotlin-humaneval'],
  ])(
    'turns %s generations into records with no system error',
    async (_name, suite) => {
      const result = await runCli(
        ['run', '-b', suite, '-m', `gguf:${model}`, '--limit', '1', '-n', '1', '--max-tokens', '16', '--json', '-q', '--home', home],
        { env: OFFLINE },
      );
      expect(result.code, result.stderr).toBe(0);
      const out = parseJson<RunJson & { runs?: RunJson[] }>(result);
      const runs = out.runs ?? [out];
      for (const run of runs) {
        expect(run.items, run.run_id).toBeGreaterThan(0);
        expect(run.verdicts.SE ?? 0, run.run_id).toBe(0);
        expect(Object.values(run.verdicts).reduce((a, b) => a + b, 0)).toBe(run.items);
      }
    },
    600_000,
  );
});
