/**
 * `polyeval remote run --batch` on the command line: the request carries `batch: true` (a
 * loopback API records it); a provider without a batch API is refused before anything is
 * sent; `--dry-run` shows the batch price beside the on-demand one; and a local
 * `run --batch` with a bedrock: model is refused, saying why and naming `remote run --batch`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from '../support/cli.ts';

const MODEL = 'bedrock:anthropic.claude-3-5-haiku-20241022-v1:0';
const env = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1', AWS_EC2_METADATA_DISABLED: 'true' };
const bodies: Record<string, unknown>[] = [];
let server: Server;
let api: string;

beforeAll(async () => {
  // The API's answer to POST /runs (functions/api): 202 with the runs it started.
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      bodies.push(JSON.parse(text || '{}') as Record<string, unknown>);
      const run = { run_id: 'abricot-x', benchmark: 'abricot', model: MODEL, language: null };
      res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ run_id: run.run_id, runs: [run] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

describe('polyeval remote run --batch', () => {
  it('sends batch: true with the run', async () => {
    const result = await runCli(['remote', 'run', '--batch', '-b', 'sample/abricot', '-m', MODEL, '--api', api, '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(bodies.at(-1)).toMatchObject({ model: MODEL, batch: true });
  }, 60_000);

  it('refuses a provider without a batch API before sending anything', async () => {
    const before = bodies.length;
    const result = await runCli(['remote', 'run', '--batch', '-b', 'sample/abricot', '-m', 'reference', '--api', api], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('provider "reference" has no batch API');
    expect(result.stderr).toContain('bedrock:, openai:, anthropic:');
    expect(bodies.length).toBe(before);
  }, 60_000);

  it('--dry-run shows the batch price beside the on-demand one', async () => {
    const result = await runCli(['remote', 'run', '--dry-run', '--batch', '-b', 'sample/abricot', '-m', MODEL, '--home', tempHome()], { env });
    expect(result.code, result.stderr).toBe(0);
    const match = /model ≈ \$(\d+\.\d+) on demand · ≈ \$(\d+\.\d+) as a batch, total ≈ \$\d+\.\d+ \(this run: batch\)/.exec(result.stdout);
    expect(match, result.stdout).not.toBeNull();
    // claude-3-5-haiku on Bedrock: the batch price is half the on-demand one.
    expect(Number(match?.[2])).toBeCloseTo(Number(match?.[1]) / 2, 3);
  }, 60_000);

  it('a local run --batch with a bedrock: model exits 2 saying why and naming remote run --batch', async () => {
    const result = await runCli(['run', '--batch', '-b', 'sample/abricot', '-m', MODEL, '--home', tempHome()], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Bedrock batch inference reads its records from S3');
    expect(result.stderr).toContain('polyeval remote run --batch');
  }, 60_000);
});
