// `polyeval remote run --dry-run --batch`, as docs/aws.md "Batch runs" has a user type it, counts
// the requests the deployed stages make — never a negative one (audit 2026-12-07: ABRICOT as a
// Bedrock batch showed `-127 SQS`, RoCode `-140`, Kotlin `-196`): a batch run makes none of
// generate's queue, and the batch stage sends each executed item's message on its own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REQUESTS_PER_ITEM } from '#app/cloud/estimate.ts';
import { ROOT, runCli, tempHome } from '../support/cli.ts';

const MODEL = 'bedrock:anthropic.claude-3-5-haiku-20241022-v1:0';

interface Estimate {
  items: number;
  generation: string;
  requests: { lambda: number; sqs: number; dynamodb_units: number; s3: number; cost_usd: number };
}

async function dryRun(args: string[]): Promise<Estimate> {
  const out = await runCli(['remote', 'run', '--dry-run', '-m', MODEL, ...args, '--json', '--home', tempHome()]);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as Estimate;
}

describe('remote run --dry-run: request counts', () => {
  it.each([[['-b', 'sample/abricot']], [['-b', 'sample/rocode', '-n', '10']], [['-b', 'sample/kotlin-humaneval']]])(
    'are never negative for %j, as a batch and on demand',
    async (args) => {
      const batch = await dryRun([...args, '--batch']);
      const onDemand = await dryRun(args);
      expect(batch.generation).toBe('batch');
      for (const estimate of [batch, onDemand])
        for (const kind of ['lambda', 'sqs', 'dynamodb_units', 's3', 'cost_usd'] as const) expect(estimate.requests[kind], kind).toBeGreaterThanOrEqual(0);
      // The batch stage's ticks are scheduled whatever runs (the `fixed:` line): the run adds no generate invocation.
      expect(batch.requests.lambda).toBeLessThan(onDemand.requests.lambda);
    },
    120_000,
  );

  it('are what docs/aws.md "Cost estimate before launch" shows for its example, line for line', async () => {
    const aws = readFileSync(join(ROOT, 'docs', 'aws.md'), 'utf8');
    const section = aws.slice(aws.indexOf('## Cost estimate before launch'));
    const block = /```sh\n(polyeval remote run --dry-run [^\n]+)\n((?:#[^\n]*\n)+)```/.exec(section);
    if (!block?.[1] || !block[2]) throw new Error('docs/aws.md: no example block under "Cost estimate before launch"');
    const args = block[1].split(' ').slice(1);
    const out = await runCli([...args, '--home', tempHome()]);
    expect(out.code, out.stderr).toBe(0);
    const shown = block[2]
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.replace(/^# ?/, ''));
    expect(out.stdout.trimEnd().split('\n')).toEqual(shown);
    // Its requests per item are the estimate's (which test/integration/cloud-sim/estimate.test.ts holds to the simulation).
    const perItem =
      /The requests per item \(([\d.]+) Lambda, ([\d.]+) SQS,\s+([\d.]+) DynamoDB writes and ([\d.]+) reads, ([\d.]+) S3 PUT and ([\d.]+) GETs\)/.exec(section);
    const { lambda, sqs, dynamoWrite, dynamoRead, s3Put, s3Get } = REQUESTS_PER_ITEM;
    expect(perItem?.slice(1).map(Number)).toEqual([lambda, sqs, dynamoWrite, dynamoRead, s3Put, s3Get]);
  }, 120_000);
});
