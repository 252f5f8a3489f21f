// Bedrock's batch inference quotas as one job's limits, an account's own values, and the
// job timeout's bounds; plan's chunks of a batch run never leave a job below the minimum.
import { describe, expect, it } from 'vitest';
import { chunkEnd, laterChunks } from '#app/cloud/plan.ts';
import { cloudBatchMinRecords, quotasFromEnv } from '#app/cloud/batch-clients.ts';
import { BEDROCK_BATCH_QUOTAS, bedrockBatchLimits, bedrockTimeoutHours } from '#providers/batch/bedrock-quotas.ts';

describe('Bedrock batch quotas', () => {
  it('are AWS’s defaults as one job’s limits: the smaller of the file’s and the job’s', () => {
    expect(bedrockBatchLimits()).toEqual({ minRecords: 100, maxRecords: 50_000, maxBytes: 1024 ** 3, maxJobsInFlight: 10 });
    expect(bedrockBatchLimits({ maxInputFileBytes: 8 * 1024 ** 3, maxRecordsPerInputFile: 10_000 })).toMatchObject({
      maxBytes: 5 * 1024 ** 3,
      maxRecords: 10_000,
    });
    expect(bedrockBatchLimits({ minRecordsPerJob: 1, maxJobsInFlightPerModel: 20 })).toMatchObject({ minRecords: 1, maxJobsInFlight: 20 });
    expect(BEDROCK_BATCH_QUOTAS.defaultTimeoutHours).toBe(168);
  });

  it('refuses values no account has, and a timeout outside 24–168 hours', () => {
    expect(() => bedrockBatchLimits({ minRecordsPerJob: 0 })).toThrow('minRecordsPerJob must be a positive integer');
    expect(() => bedrockBatchLimits({ minRecordsPerJob: 60_000 })).toThrow('above the records a job may hold');
    expect(bedrockTimeoutHours(undefined)).toBe(168);
    expect(bedrockTimeoutHours(24)).toBe(24);
    expect(() => bedrockTimeoutHours(12)).toThrow('24–168 hours, got 12');
  });

  it('reads a deployment’s quotas from BATCH_QUOTAS, naming a quota that does not exist', () => {
    expect(quotasFromEnv({})).toEqual({});
    expect(quotasFromEnv({ BATCH_QUOTAS: '{"minRecordsPerJob":15}' })).toEqual({ minRecordsPerJob: 15 });
    expect(() => quotasFromEnv({ BATCH_QUOTAS: '{"minRecords":15}' })).toThrow('names no Bedrock batch quota: minRecords');
    expect(() => quotasFromEnv({ BATCH_QUOTAS: 'x' })).toThrow('BATCH_QUOTAS is not JSON');
    expect(cloudBatchMinRecords('bedrock:amazon.nova-lite-v1:0')).toBe(100);
    expect(cloudBatchMinRecords('bedrock:amazon.nova-lite-v1:0', { minRecordsPerJob: 15 })).toBe(15);
    expect(cloudBatchMinRecords('openai:https://api.openai.com/v1#gpt-4o-mini')).toBe(1);
  });

  it('plan’s last chunk of a batch run takes a remainder below the minimum', () => {
    // 2,050 items in chunks of 1,000 with a minimum of 100: 1,000 and 1,050, not 1,000 + 1,000 + 50.
    expect(laterChunks('r', 2_050, 1_000, 100).map((m) => m.body.offset)).toEqual([1_000]);
    expect(chunkEnd(2_050, 1_000, 1_000, 100)).toBe(2_050);
    expect(chunkEnd(2_050, 1_000, 0, 100)).toBe(1_000);
    // Without a minimum (on demand), the chunks are as before.
    expect(laterChunks('r', 2_050, 1_000).map((m) => m.body.offset)).toEqual([1_000, 2_000]);
    expect(chunkEnd(2_050, 1_000, 2_000)).toBe(2_050);
  });
});
