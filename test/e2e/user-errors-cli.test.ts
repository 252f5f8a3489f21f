/**
 * Failures a user meets before or instead of a run, through the built CLI (audit of
 * 2026-12-07, items 5–13, 20, 23): each is refused with a message naming what is wrong and
 * what to do — exit 2 for the user's input — never an "internal error" with a stack, and
 * nothing recorded is lost.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { favourDigit, startBedrockServer, startOpenAiBatchServer, startOpenAiServer, type FakeServer } from '../fakes/wire-servers/index.ts';
import { homeWithPrices, type RunJson } from '../support/batch-runs.ts';
import { ROOT, parseJson, runCli, tempHome } from '../support/cli.ts';

const STACK = /\n\s+at /;

/** An environment with no AWS Region anywhere the SDK looks: no variable, no profile file, no instance metadata. */
function noRegionEnv(dir: string): NodeJS.ProcessEnv {
  return {
    AWS_REGION: undefined,
    AWS_DEFAULT_REGION: undefined,
    AWS_PROFILE: undefined,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_CONFIG_FILE: join(dir, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

describe('bedrock: and sagemaker: without an AWS Region', () => {
  let server: FakeServer & { url: string };
  beforeAll(async () => {
    server = (await startBedrockServer({ answer: () => '3' })) as FakeServer & { url: string };
  });
  afterAll(() => server.close());

  it('are refused before the run starts, naming --region and AWS_REGION (exit 2, no run recorded)', async () => {
    const home = tempHome();
    for (const model of ['bedrock:anthropic.claude-3-haiku-20240307-v1:0', 'sagemaker:my-tgi-endpoint#tgi']) {
      const result = await runCli(['run', '-b', 'sample/abricot', '-m', model, '-q', '--home', home], { env: noRegionEnv(home) });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain('needs an AWS Region');
      expect(result.stderr).toContain('--region');
      expect(result.stderr).toContain('AWS_REGION');
      expect(result.stderr).not.toMatch(STACK);
    }
    expect(existsSync(join(home, 'store', 'runs'))).toBe(false);
    expect(server.requests.length).toBe(0);
  });

  it("still run with the Region of the AWS profile (the SDK's own chain), as with --region", async () => {
    const home = tempHome();
    const config = join(home, 'aws-config');
    const credentials = join(home, 'aws-credentials');
    writeFileSync(config, '[profile eval]\nregion = eu-west-1\n');
    // With AWS_PROFILE the SDK takes the profile's credentials too (not the variables): fake ones.
    writeFileSync(credentials, '[eval]\naws_access_key_id = test\naws_secret_access_key = test\n');
    const env = {
      ...noRegionEnv(home),
      AWS_ACCESS_KEY_ID: undefined,
      AWS_SECRET_ACCESS_KEY: undefined,
      AWS_CONFIG_FILE: config,
      AWS_SHARED_CREDENTIALS_FILE: credentials,
      AWS_PROFILE: 'eval',
    };
    const model = 'bedrock:anthropic.claude-3-haiku-20240307-v1:0';
    const viaProfile = await runCli(['run', '-b', 'sample/abricot', '-m', model, '--endpoint-url', server.url, '--limit', '2', '--json', '--home', home], {
      env,
    });
    expect(viaProfile.code, viaProfile.stderr).toBe(0);
    // Every call reached the server and was answered (scored OK or WA, never SE).
    const verdicts = parseJson<{ verdicts: Record<string, number> }>(viaProfile).verdicts;
    expect(verdicts.SE).toBeUndefined();
    expect(Object.values(verdicts).reduce((a, b) => a + b, 0)).toBe(2);
    const viaFlag = await runCli(
      ['run', '-b', 'sample/abricot', '-m', model, '--endpoint-url', server.url, '--region', 'us-east-1', '--limit', '2', '--json', '--home', home],
      { env: noRegionEnv(home) },
    );
    expect(viaFlag.code, viaFlag.stderr).toBe(0);
  });
});

describe('polyeval remote doctor without AWS credentials or Region', () => {
  it('names how to give credentials (exit 1, message only) and --region when no Region is set (exit 2)', async () => {
    const dir = tempHome();
    const env = {
      ...noRegionEnv(dir),
      AWS_ACCESS_KEY_ID: undefined,
      AWS_SECRET_ACCESS_KEY: undefined,
      AWS_SESSION_TOKEN: undefined,
      AWS_ENDPOINT_URL_LAMBDA: 'http://127.0.0.1:9',
    };
    const noCredentials = await runCli(['remote', 'doctor', '--region', 'eu-west-1'], { env });
    expect(noCredentials.code, noCredentials.stderr).toBe(1);
    expect(noCredentials.stderr).toContain('no AWS credentials found');
    expect(noCredentials.stderr).toContain('AWS_ACCESS_KEY_ID');
    expect(noCredentials.stderr).toContain('AWS_PROFILE');
    expect(noCredentials.stderr).not.toContain('internal error');
    expect(noCredentials.stderr).not.toMatch(STACK);
    // POLYEVAL_DEBUG=1 still shows where it came from: the SDK error's own name and stack.
    const debug = await runCli(['remote', 'doctor', '--region', 'eu-west-1'], { env: { ...env, POLYEVAL_DEBUG: '1' } });
    expect(debug.code, debug.stderr).toBe(1);
    expect(debug.stderr).toContain('no AWS credentials found');
    expect(debug.stderr).toMatch(/caused by: CredentialsProviderError: [^\n]*\n\s+at /);
    const noRegion = await runCli(['remote', 'doctor'], { env });
    expect(noRegion.code, noRegion.stderr).toBe(2);
    expect(noRegion.stderr).toContain('polyeval: no AWS Region: pass --region');
    expect(noRegion.stderr).toContain('AWS_REGION');
    expect(noRegion.stderr).not.toMatch(STACK);
  });
});

describe('run --batch when the batch API fails', { timeout: 300_000 }, () => {
  const prices = { models: { 'model-a': { input_per_mtok: 2, output_per_mtok: 8, batch_input_per_mtok: 1, batch_output_per_mtok: 4 } } };
  const env = { OPENAI_API_KEY: 'sk-test' };

  it('a host it cannot reach stops the run resumable (exit 3), as on demand, with no stack', async () => {
    const { home, prices: file } = homeWithPrices(prices);
    const result = await runCli(
      ['run', '-b', 'sample/abricot', '-m', 'openai:http://127.0.0.1:9/v1#model-a', '--batch', '--prices', file, '-q', '--home', home],
      {
        env,
      },
    );
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain('the batch API of openai:http://127.0.0.1:9/v1#model-a failed');
    expect(result.stderr).toMatch(/continue with: polyeval run --resume abricot-\S+/);
    expect(result.stderr).not.toContain('internal error');
    expect(result.stderr).not.toMatch(STACK);
    const runs = parseJson<{ status: string }[]>(await runCli(['list', 'runs', '--json', '--home', home]));
    expect(runs.map((r) => r.status)).toEqual(['stopped']);
  });

  it('a refused call stops it, and --resume completes it once the API answers', async () => {
    const { home, prices: file } = homeWithPrices(prices);
    const server = await startOpenAiBatchServer({
      faults: [{ kind: 'status', status: 401, message: 'Incorrect API key provided', type: 'invalid_request_error' }],
    });
    try {
      const args = ['-m', `openai:${server.url}#model-a`, '--batch', '--batch-poll', '0.02', '--prices', file, '--json', '--home', home];
      const first = await runCli(['run', '-b', 'sample/abricot', ...args], { env });
      expect(first.code, first.stderr).toBe(3);
      expect(first.stderr).toContain('Incorrect API key provided');
      expect(first.stderr).not.toMatch(STACK);
      const runId = /continue with: polyeval run --resume (\S+)/.exec(first.stderr)?.[1] ?? '';
      const resumed = await runCli(['run', '--resume', runId, '--batch-poll', '0.02', '--json', '--home', home], { env });
      expect(resumed.code, resumed.stderr).toBe(0);
      const run = parseJson<RunJson>(resumed);
      expect(run.status).toBe('completed');
      expect(run.items).toBe(52);
    } finally {
      await server.close();
    }
  });
});

describe('gguf: naming a file that is not a GGUF model', () => {
  it('exits 2 naming the file and what a GGUF file starts with, before anything runs', async () => {
    const home = tempHome();
    const file = join(home, 'weights.bin');
    writeFileSync(file, Buffer.from([0xad, 0xd1, 0xe9, 0xe8, 0, 1, 2, 3]));
    const result = await runCli(['run', '-b', 'sample/abricot', '-m', `gguf:${file}`, '-q', '--home', home]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`polyeval: ${file}: not a GGUF model file: it starts with the bytes ad d1 e9 e8, where a GGUF file starts with "GGUF"`);
    expect(result.stderr).not.toMatch(STACK);
    expect(existsSync(join(home, 'store', 'runs'))).toBe(false);
  });
});

describe('run --resume with run-spec flags it would ignore', () => {
  it('refuses them naming each flag (exit 2, the run untouched), and keeps those a resume may change', async () => {
    const home = tempHome();
    const started = await runCli(['run', '-b', 'sample/abricot', '--limit', '3', '--json', '-q', '--home', home]);
    expect(started.code, started.stderr).toBe(0);
    const runId = parseJson<{ run_id: string }>(started).run_id;
    const manifest = join(home, 'store', 'runs', runId, 'manifest.json');
    const before = readFileSync(manifest, 'utf8');
    for (const [flags, named] of [
      [['--temperature', '0.5'], '--temperature'],
      [['--protocol', 'nope', '--limit', '1', '--language', 'kotlin'], '--limit, --language, --protocol'],
      [['-n', '2'], '-n'],
      [['--assume-price', '1,1'], '--assume-price'],
    ] as const) {
      const result = await runCli(['run', '--resume', runId, ...flags, '-q', '--home', home]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`polyeval: --resume continues the run with the settings it was planned with: ${named} would not change it`);
    }
    const dry = await runCli(['run', '--resume', runId, '--dry-run', '-q', '--home', home]);
    expect(dry.code, dry.stderr).toBe(2);
    expect(dry.stderr).toContain('--dry-run plans a new run without calling a model, and --resume runs the remaining items');
    expect(readFileSync(manifest, 'utf8')).toBe(before);
    // Every flag cli.md says a resume may change is taken (a machine without bubblewrap resumes only
    // with --trust-generated-code; provider settings, prices and limits may differ from the first run's).
    const caps = join(home, 'caps.json');
    writeFileSync(caps, JSON.stringify({ rules: [] }));
    const prices = join(home, 'prices.json');
    writeFileSync(prices, JSON.stringify({ models: {} }));
    const mayChange = [
      ...['--max-cost', '1', '--no-early-stop', '--region', 'eu-west-1', '--endpoint-url', 'http://127.0.0.1:9', '--api-key-env', 'HOME'],
      ...['--timeout', '5000', '--capabilities', caps, '--prices', prices, '--concurrency', '2', '--model-concurrency', '3', '--jobs', '1'],
      ...['--trust-generated-code', '--batch-poll', '1', '--batch-token-limit', '1000', '--json', '-q', '--home', home],
    ];
    const allowed = await runCli(['run', '--resume', runId, ...mayChange]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(parseJson<{ status: string; items: number }>(allowed)).toMatchObject({ status: 'completed', items: 3 });
    // `polyeval resume <id>` takes the same flags and prints the same JSON.
    const same = await runCli(['resume', runId, ...mayChange]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toBe(allowed.stdout);
  });
});

describe('polyeval resume <id> (as README and docs/aws.md name it)', () => {
  it('continues a run --max-cost stopped, as run --resume does, taking the flags a resume may change', async () => {
    const home = tempHome();
    const server = await startOpenAiServer({ logprob: favourDigit(() => '3') });
    try {
      const model = `openai:${server.url}#fake-model`;
      const env = { OPENAI_API_KEY: undefined };
      const first = await runCli(['run', '-b', 'sample/abricot', '-m', model, '--assume-price', '10,10', '--max-cost', '0.005', '-q', '--home', home], { env });
      expect(first.code, first.stderr).toBe(3);
      const runId = /continue with: polyeval run --resume (\S+)/.exec(first.stderr)?.[1] ?? '';
      expect(runId).toMatch(/^abricot-/);
      const resumed = await runCli(['resume', runId, '--max-cost', '5', '--json', '-q', '--home', home], { env });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(parseJson<{ run_id: string; status: string; items: number }>(resumed)).toMatchObject({ run_id: runId, status: 'completed', items: 52 });
      // The same refusals as run --resume: a flag it would ignore, no id.
      const refused = await runCli(['resume', runId, '--temperature', '0.5', '--home', home]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain('--temperature would not change it');
      const missing = await runCli(['resume', '--home', home]);
      expect(missing.code, missing.stderr).toBe(2);
      expect(missing.stderr).toContain("missing required argument 'run-id|sweep-id'");
    } finally {
      await server.close();
    }
  });

  it('has its own help listing the flags a resume may change', async () => {
    const help = await runCli(['resume', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: polyeval resume <run-id|sweep-id> [options]');
    expect(help.stdout).toContain('--max-cost');
    expect(help.stdout).not.toContain('--temperature');
    expect((await runCli(['--help'])).stdout).toMatch(/^\s+resume \[options\]/m);
  });
});

describe('polyeval leaderboard with a name it does not know, or -o outside html', () => {
  it('names an unknown benchmark with the known ones (exit 2), and refuses -o without --format html', async () => {
    const home = tempHome();
    expect((await runCli(['run', '-b', 'sample/abricot', '--limit', '2', '-q', '--home', home])).code).toBe(0);
    const unknown = await runCli(['leaderboard', '-b', 'nosuch', '--home', home]);
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain('polyeval: -b nosuch: unknown benchmark "nosuch" (known: abricot, rocode');
    expect(unknown.stdout).toBe('');
    // A known benchmark without runs is an empty board, as before; one with runs is listed.
    const empty = await runCli(['leaderboard', '-b', 'rocode', '--home', home]);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toContain('(no completed runs)');
    expect((await runCli(['leaderboard', '-b', 'sample/abricot', '--home', home])).stdout).toContain('sample/abricot');
    const file = join(home, 'board.txt');
    const output = await runCli(['leaderboard', '--format', 'table', '-o', file, '--home', home]);
    expect(output.code, output.stderr).toBe(2);
    expect(output.stderr).toContain('-o writes the HTML page: give it with --format html');
    expect(existsSync(file)).toBe(false);
    const page = join(home, 'board.html');
    const html = await runCli(['leaderboard', '--format', 'html', '-o', page, '--home', home]);
    expect(html.code, html.stderr).toBe(0);
    expect(existsSync(page)).toBe(true);
  });
});

describe('npm run bench <name> naming no bench', () => {
  it('exits 2 naming the name and every bench there is, running none', () => {
    // What `npm run bench nosuch` runs (package.json "bench": "tsx bench/index.ts").
    const result = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), ['bench/index.ts', 'nosuch'], { cwd: ROOT, encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(2);
    const benches = readdirSync(join(ROOT, 'bench'))
      .filter((f) => f.endsWith('.bench.ts'))
      .sort()
      .map((f) => f.slice(0, -'.bench.ts'.length));
    expect(benches).toContain('cloud-scale');
    expect(result.stderr).toContain(`no bench named "nosuch" (benches: ${benches.join(', ')})`);
    expect(result.stdout).toBe('');
  });
});

describe('openai: with --api-key-env naming an unset variable', () => {
  it('is refused before the run (exit 2), OPENAI_API_KEY too; a local server without a key still runs', async () => {
    const home = tempHome();
    const server = await startOpenAiServer({ logprob: favourDigit(() => '3') });
    try {
      const env = { OPENAI_API_KEY: undefined, NOPE: undefined };
      for (const variable of ['OPENAI_API_KEY', 'NOPE']) {
        const refused = await runCli(
          ['run', '-b', 'sample/abricot', '-m', 'openai:https://api.openai.com/v1#gpt-4o-mini', '--api-key-env', variable, '-q', '--home', home],
          { env },
        );
        expect(refused.code, refused.stderr).toBe(2);
        expect(refused.stderr).toContain(`environment variable ${variable} (named by --api-key-env) is not set`);
      }
      expect(existsSync(join(home, 'store', 'runs'))).toBe(false);
      const local = await runCli(['run', '-b', 'sample/abricot', '-m', `openai:${server.url}#fake-model`, '--limit', '2', '--json', '-q', '--home', home], {
        env,
      });
      expect(local.code, local.stderr).toBe(0);
      expect(parseJson<{ status: string }>(local).status).toBe('completed');
    } finally {
      await server.close();
    }
  });
});

describe('small confusions: list without <what>, a --home with nothing in it', () => {
  it('list alone names its choices (exit 2)', async () => {
    const result = await runCli(['list', '--home', tempHome()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing required argument 'what'");
    expect(result.stderr).toContain('polyeval list takes one of: runs, benchmarks, providers');
  });

  it('read commands over a missing or empty home say so on stderr, stdout and exit code as before; a home with runs says nothing', async () => {
    const dir = tempHome();
    const missing = join(dir, 'typo');
    for (const args of [['list', 'runs', '--json'], ['query', 'SELECT count(*) AS n FROM records', '--format', 'json'], ['leaderboard']]) {
      const result = await runCli([...args, '--home', missing]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(`polyeval: note: ${missing} does not exist: no run was recorded there`);
    }
    expect(parseJson<unknown>(await runCli(['list', 'runs', '--json', '--home', missing]))).toEqual([]);
    expect(existsSync(missing)).toBe(false);
    const empty = await runCli(['list', 'runs', '--home', dir]);
    expect(empty.stderr).toContain(`polyeval: note: ${dir} holds no polyeval data`);
    expect((await runCli(['run', '-b', 'sample/abricot', '--limit', '1', '-q', '--home', dir])).code).toBe(0);
    const listed = await runCli(['list', 'runs', '--home', dir]);
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toContain('abricot-');
  });
});
