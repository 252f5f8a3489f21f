// `polyeval remote run --dry-run --batch`, as docs/aws.md "Batch runs" has a user type it, counts
// the requests the deployed stages make — never a negative one (audit 2026-12-07: ABRICOT as a
// Bedrock batch showed `-127 SQS`, RoCode `-140`, Kotlin `-196`): a batch run makes none of
// generate's queue, and the batch stage sends each executed item's message on its own.
import { describe, expect, it } from 'vitest';
import { runCli, tempHome } from '../support/cli.ts';

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
});
