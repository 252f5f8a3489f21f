/**
 * Named datasets from the Hugging Face Hub and rows from S3, through the CLI: a local
 * server serves files the way the Hub does (pointed to by HF_ENDPOINT), moto serves S3.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeHub, type FakeHub } from '../fakes/hub-server.ts';
import { ROOT, parseJson, runCli, tempHome } from '../support/cli.ts';
import { awsClientConfig, createBucket, startMoto } from '../support/moto.ts';

const kotlinRows = readFileSync(join(ROOT, 'sample/kotlin-humaneval/tasks.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .slice(0, 2)
  .map((l) => JSON.parse(l) as Record<string, string>);
const COLUMNS = ['task_id', 'language', 'prompt', 'entry_point', 'test', 'canonical_solution', 'description'];

describe('named datasets on the Hub', () => {
  let hub: FakeHub;
  const home = tempHome();

  beforeAll(async () => {
    const parquet = Buffer.from(
      parquetWriteBuffer({ columnData: COLUMNS.map((name) => ({ name, type: 'STRING' as const, data: kotlinRows.map((r) => r[name] ?? '') })) }),
    );
    hub = await startFakeHub({
      repos: {
        'JetBrains/Kotlin_HumanEval': [
          { path: 'data/train-00000-of-00001.parquet', content: parquet, lfs: true },
          { path: 'README.md', content: '# card' },
        ],
      },
    });
  });
  afterAll(() => hub.close());

  it('downloads -b kotlin-humaneval from HF_ENDPOINT into the cache once and evaluates it', async () => {
    const env = { HF_ENDPOINT: hub.endpoint };
    const first = await runCli(['run', '-b', 'kotlin-humaneval', '-m', 'reference', '--json', '-q', '--home', home], { env });
    expect(first.code, first.stderr).toBe(0);
    const run = parseJson<{ items: number; verdicts: Record<string, number> }>(first);
    expect(run.items).toBe(2);
    expect(run.verdicts).toEqual({ OK: 2 });
    const downloads = hub.requests.filter((r) => r.url.startsWith('/cdn/')).length;
    expect(downloads).toBe(1);
    const again = await runCli(['run', '-b', 'kotlin-humaneval', '-m', 'reference', '--dry-run', '--json', '--home', home], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(hub.requests.filter((r) => r.url.startsWith('/cdn/')).length).toBe(downloads);
  }, 300_000);
});

describe('rows from S3', () => {
  let moto: Awaited<ReturnType<typeof startMoto>>;
  const home = tempHome();

  beforeAll(async () => {
    moto = await startMoto();
    const s3 = new S3Client(awsClientConfig(moto.endpoint));
    await createBucket(s3, 'datasets');
    const rows = readFileSync(join(ROOT, 'sample/abricot/items.jsonl'), 'utf8').trim().split('\n').slice(0, 5).join('\n');
    await s3.send(new PutObjectCommand({ Bucket: 'datasets', Key: 'abricot/mini.jsonl.gz', Body: gzipSync(rows) }));
  });
  afterAll(() => moto.stop());

  it('reads a gzipped JSONL from s3:// with the standard endpoint override', async () => {
    const env = { AWS_ENDPOINT_URL_S3: moto.endpoint, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' };
    const result = await runCli(['run', '-b', 'abricot:s3://datasets/abricot/mini.jsonl.gz', '-m', 'reference', '--json', '-q', '--home', home], { env });
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<{ items: number; metrics: Record<string, { value: number | null }> }>(result);
    expect(run.items).toBe(10);
    expect(run.metrics['accuracy/subtask=abstractness']?.value).toBe(1);
  }, 120_000);
});

describe('large RoCode splits', () => {
  let hub: FakeHub;
  const home = tempHome();
  const big = 'x'.repeat(200 * 1024);

  beforeAll(async () => {
    const row = (id: string, split?: string) =>
      JSON.stringify({
        task_id: id,
        name: 'ecou',
        statement: 'Afișați textul primit.',
        input_spec: 'un șir',
        output_spec: 'același șir',
        examples: [{ input: 'a\n', output: 'a\n' }],
        tests: [
          { input: `${big}\n`, output: `${big}\n` },
          { input: 'b\n', output: 'b\n' },
        ],
        time_limit_ms: 2000,
        memory_limit_mb: 64,
        difficulty: 'easy',
        ...(split ? { split } : {}),
        solutions: { python: 'import sys\nsys.stdout.write(sys.stdin.read())\n' },
      });
    hub = await startFakeHub({
      repos: {
        'cosmadrian/rocode': [
          { path: 'rocode_train.jsonl', content: `${row('t1')}\n${row('t2')}\n`, lfs: true },
          { path: 'rocode_val.jsonl', content: `${row('v1')}\n`, lfs: true },
          { path: 'rocode_test.jsonl', content: `${row('s1')}\n`, lfs: true },
        ],
      },
    });
  });
  afterAll(() => hub.close());

  it('reads only the requested split, keeps big tests on disk and judges them', async () => {
    const env = { HF_ENDPOINT: hub.endpoint };
    const test = await runCli(['run', '-b', 'rocode', '-m', 'reference', '--language', 'python', '--json', '-q', '--home', home], { env });
    expect(test.code, test.stderr).toBe(0);
    expect(parseJson<{ items: number; verdicts: Record<string, number> }>(test)).toMatchObject({ items: 1, verdicts: { OK: 1 } });
    expect(hub.requests.some((r) => r.url.includes('rocode_train'))).toBe(false);
    const train = await runCli(['run', '-b', 'rocode', '-m', 'reference', '--language', 'python', '--split', 'train', '--json', '-q', '--home', home], { env });
    expect(train.code, train.stderr).toBe(0);
    expect(parseJson<{ items: number }>(train).items).toBe(2);
    const spilled = await runCli(['query', "SELECT count(*) AS n FROM records WHERE verdict = 'OK'", '--format', 'json', '--home', home]);
    expect(parseJson<{ n: number }[]>(spilled)[0]?.n).toBe(3);
    // the 200 KB tests went to content-addressed files in the cache, not into the task
    const stored = readdirSync(join(home, 'cache', 'tests'), { recursive: true }).filter((f) => String(f).endsWith('.txt'));
    expect(stored.length).toBeGreaterThan(0);
  }, 300_000);
});
