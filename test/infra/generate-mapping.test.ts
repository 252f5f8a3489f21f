// generate's SQS event source mapping as synthesized: the calls in flight a user configured
// (context generateMaxConcurrency × 5, docs/aws.md "Model quotas") in as few invocations as hold
// them, each taking a batch above the old 5 so one model call's wait is billed once for more items;
// a batch above 10 carries the batching window AWS requires; the queue's visibility timeout
// still covers six function timeouts and the window; the provider gives every message of the
// largest batch its call slot at once, and a batch's worst case ends inside the timeout.
import { describe, expect, it } from 'vitest';
import { NO_BUNDLING, synthPolyeval } from './synth.ts';
import { GENERATE_CALLS_PER_SETTING } from '../../layers/app/cloud/generate-mapping.ts';
import { MAPPING_MIN_CONCURRENCY } from '../../layers/app/cloud/concurrency-budget.ts';
import {
  GENERATE_BATCH_SIZE,
  GENERATE_PROVIDER_OPTIONS,
  GENERATE_TIMEOUT_MS,
  RECORD_HEADROOM_MS,
  worstCaseCallMs,
} from '../../layers/app/cloud/retry-budget.ts';

type Resource = { Type: string; Properties: Record<string, unknown> };

interface Synthesized {
  batchSize: number;
  windowS: number;
  maxConcurrency: number;
  functionTimeoutS: number;
  visibilityTimeoutS: number;
}

/** The generate function's mapping, timeout and queue in a stack synthesized with `context`. */
function generateMappingOf(context: Record<string, unknown>): Synthesized {
  const resources = (synthPolyeval({ ...NO_BUNDLING, ...context }).template.toJSON() as { Resources: Record<string, Resource> }).Resources;
  const entries = Object.entries(resources);
  const [fnId, fn] =
    entries.find(([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties['Description'] === 'Calls the model provider for one batch of work items') ?? [];
  expect(fnId).toBeDefined();
  const mappings = entries.filter(([, r]) => r.Type === 'AWS::Lambda::EventSourceMapping' && (r.Properties['FunctionName'] as { Ref?: string }).Ref === fnId);
  expect(mappings).toHaveLength(1);
  const mapping = mappings[0]![1].Properties;
  const queueId = (mapping['EventSourceArn'] as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return {
    batchSize: Number(mapping['BatchSize']),
    windowS: Number(mapping['MaximumBatchingWindowInSeconds'] ?? 0),
    maxConcurrency: Number((mapping['ScalingConfig'] as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency),
    functionTimeoutS: Number(fn!.Properties['Timeout']),
    visibilityTimeoutS: Number(resources[queueId]!.Properties['VisibilityTimeout']),
  };
}

/**
 * "Creating and configuring an Amazon SQS event source mapping" (AWS Lambda Developer Guide): the
 * queue's visibility timeout at least six times the function's timeout; a message received at the
 * start of a batching window is held through the window and the invocation, so both fit in it.
 */
function visibilityHolds(m: Synthesized): void {
  expect(m.visibilityTimeoutS).toBeGreaterThanOrEqual(6 * m.functionTimeoutS);
  expect(m.visibilityTimeoutS).toBeGreaterThanOrEqual(m.windowS + m.functionTimeoutS);
}

describe("generate's queue mapping", () => {
  it('by default holds 2 invocations of 12: 24 calls in flight of the 25 configured, each invocation billing one wait for 12 items (was 5 × 5)', () => {
    const m = generateMappingOf({});
    expect(m).toMatchObject({ batchSize: 12, windowS: 1, maxConcurrency: 2 });
    expect(m.batchSize * m.maxConcurrency).toBeLessThanOrEqual(5 * GENERATE_CALLS_PER_SETTING);
    visibilityHolds(m);
  });

  it.each([
    // [generateMaxConcurrency, batch, window, maxConcurrency]
    [2, 5, 0, 2],
    [7, 17, 1, 2],
    [300, 25, 1, 60],
  ])('from generateMaxConcurrency %i: batch %i, window %i s, maxConcurrency %i — never more calls in flight than configured', (setting, batch, window, max) => {
    const m = generateMappingOf({ generateMaxConcurrency: String(setting) });
    expect(m).toMatchObject({ batchSize: batch, windowS: window, maxConcurrency: max });
    const configured = setting * GENERATE_CALLS_PER_SETTING;
    expect(m.batchSize * m.maxConcurrency).toBeLessThanOrEqual(configured);
    // Within one invocation of the configured: the fewest invocations of the largest batch that fit.
    expect(m.batchSize * m.maxConcurrency).toBeGreaterThan(configured - m.maxConcurrency);
    expect(m.maxConcurrency).toBeGreaterThanOrEqual(MAPPING_MIN_CONCURRENCY);
    // AWS: a batch above 10 needs MaximumBatchingWindowInSeconds of at least 1 (services-sqs-parameters).
    if (m.batchSize > 10) expect(m.windowS).toBeGreaterThanOrEqual(1);
    visibilityHolds(m);
  });

  it("gives every message of the largest batch its call slot at once, and the batch's worst case ends inside generate's timeout", () => {
    const m = generateMappingOf({ generateMaxConcurrency: '400' });
    expect(m.batchSize).toBe(GENERATE_BATCH_SIZE);
    expect(GENERATE_PROVIDER_OPTIONS.concurrency).toBeGreaterThanOrEqual(m.batchSize);
    expect(GENERATE_TIMEOUT_MS).toBe(m.functionTimeoutS * 1000);
    expect(worstCaseCallMs(GENERATE_PROVIDER_OPTIONS) + RECORD_HEADROOM_MS).toBeLessThanOrEqual(GENERATE_TIMEOUT_MS);
  });
});
