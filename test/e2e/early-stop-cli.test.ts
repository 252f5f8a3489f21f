/**
 * A run that stops itself: when the first 10 items all end SE (a server that refuses the key)
 * or all come back empty for the same reason (a model that returns no content), the CLI stops
 * the run, says why once with how to fix it, exits 3 (stopped, resumable), makes no further
 * model call and bills only what was spent; the manifest records it; `--resume` continues it
 * and `--no-early-stop` opts out.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAiServer, type FakeServer } from '../fakes/wire-servers/index.ts';
import { parseJson, runCli, tempHome } from '../support/cli.ts';

interface Stopped {
  status: string;
  run_id: string;
  recorded: number;
  items: number;
  reason: string;
}
interface Completed {
  status: string;
  items: number;
  verdicts: Record<string, number>;
}

const servers: FakeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const chatCalls = (server: FakeServer): number => server.requests.filter((r) => r.path.endsWith('/chat/completions')).length;
const ABRICOT = ['run', '-b', 'sample/abricot', '--likert-mode', 'digit-parse', '--json'];

describe('a run that stops itself', () => {
  it('stops after the first 10 items all end SE, says why once, exits 3, and --resume continues once fixed', async () => {
    const server = await startOpenAiServer({ flavour: 'openai-chat', apiKey: 'right-key', answer: () => '3' });
    servers.push(server);
    const home = tempHome();
    const model = `openai:${server.url}#gpt-4o-mini`;

    const stopped = await runCli([...ABRICOT, '-m', model, '--home', home], { env: { OPENAI_API_KEY: 'wrong-key' } });

    expect(stopped.code, stopped.stderr).toBe(3);
    const run = parseJson<Stopped>(stopped);
    expect(run.status).toBe('stopped');
    expect(run.items).toBe(52);
    expect(run.reason).toMatch(/^early stop: the first 10 items all ended SE \(system error\): ".*Incorrect API key provided.*"; .*--no-early-stop/);
    // Said once on stderr (with how to continue), not once per item.
    expect(stopped.stderr.match(/early stop/g)).toHaveLength(1);
    expect(stopped.stderr).toContain(`--resume ${run.run_id}`);
    // No call after the stop beyond those already in flight (the CLI's default concurrency).
    expect(chatCalls(server)).toBeLessThan(20);
    expect(run.recorded).toBeLessThan(20);
    const manifest = JSON.parse(readFileSync(join(home, 'store', 'runs', run.run_id, 'manifest.json'), 'utf8')) as {
      early_stop: { first: number; stopped?: string };
    };
    expect(manifest.early_stop).toEqual({ first: 10, stopped: run.reason });

    const resumed = await runCli(['run', '--resume', run.run_id, '--json', '--home', home], { env: { OPENAI_API_KEY: 'right-key' } });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(parseJson<Completed>(resumed).verdicts).toEqual({ WA: expect.any(Number), OK: expect.any(Number) });
    expect(Object.values(parseJson<Completed>(resumed).verdicts).reduce((a, b) => a + b, 0)).toBe(52);
  }, 240_000);

  it('stops when the first 10 answers all come back empty for the same reason, and --no-early-stop runs every item', async () => {
    const server = await startOpenAiServer({ flavour: 'openai-chat', refuse: () => true });
    servers.push(server);
    const home = tempHome();
    const model = `openai:${server.url}#gpt-4o-mini`;

    const stopped = await runCli([...ABRICOT, '-m', model, '--home', home]);

    expect(stopped.code, stopped.stderr).toBe(3);
    const run = parseJson<Stopped>(stopped);
    expect(run.reason).toMatch(/^early stop: the first 10 items all came back empty for the same reason: ".*finish_reason \\"content_filter\\"/);
    expect(chatCalls(server)).toBeLessThan(20);

    // The stopped run itself goes on to the end with --resume --no-early-stop (without it, its
    // next 10 items would stop it again), and its manifest then records the rule as off.
    const resumed = await runCli(['run', '--resume', run.run_id, '--no-early-stop', '--json', '--home', home]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(Object.values(parseJson<Completed>(resumed).verdicts).reduce((a, b) => a + b, 0)).toBe(52);
    const manifest = JSON.parse(readFileSync(join(home, 'store', 'runs', run.run_id, 'manifest.json'), 'utf8')) as { early_stop: unknown };
    expect(manifest.early_stop).toBeNull();

    const all = await runCli([...ABRICOT, '-m', model, '--no-early-stop', '--home', tempHome()]);
    expect(all.code, all.stderr).toBe(0);
    expect(parseJson<Completed>(all).items).toBe(52);
  }, 240_000);

  it('refuses --no-early-stop on a whole sweep, naming the run-level resume, rather than ignoring it', async () => {
    const home = tempHome();
    // A sweep document in the store: the refusal comes before it is read.
    mkdirSync(join(home, 'store', 'sweeps'), { recursive: true });
    writeFileSync(join(home, 'store', 'sweeps', 'sweep-20261206T000000Z-abcdef.json'), '{}');
    const out = await runCli(['run', '--resume', 'sweep-20261206T000000Z-abcdef', '--no-early-stop', '--home', home]);
    expect(out.code, out.stderr).toBe(2);
    expect(out.stderr).toContain('--no-early-stop cannot be changed for a whole sweep; resume its stopped run with --resume <run-id> --no-early-stop');
  });
});
