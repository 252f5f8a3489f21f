// The cloud-scale simulation end to end at a small size (small chunks, so 600 items make 20 plan chunks): the real stage handlers complete a
// run under AWS's limits, and reverting a fix shows the failure it prevents.
import { describe, expect, it } from 'vitest';
import { runSimulation } from '../../../sim/cloud/simulate.ts';
import { USAGE } from '../../../sim/cloud/sim-model.ts';

/** Claude 3 Haiku's price of one simulated call (the sim's usage, $0.25 / $1.25 per million tokens). */
const CALL_USD = (USAGE.promptTokens * 0.25 + USAGE.completionTokens * 1.25) / 1e6;

describe('cloud-scale simulation', () => {
  it('completes 600 items with the generated verdict mix, no SE, nothing missing, the model cost booked once per call', async () => {
    const result = await runSimulation({ items: 600, chunkSize: 30 });

    expect(result).toMatchObject({ items: 600, completed: 600, se: 0, missing: 0, dlq: 0 });
    expect(result.detail.verdicts).toEqual(result.detail.expected);
    // At-least-once delivery hands some generate messages out twice; each item's call is booked once.
    expect(result.detail.duplicate_deliveries).toBeGreaterThan(0);
    expect(result.detail.booked_model_usd).toBeCloseTo(600 * CALL_USD, 4);
    expect(result.detail.model_calls).toBeGreaterThanOrEqual(600);
    expect(result.virtual_wall_s).toBeGreaterThan(0);
  }, 300_000);

  it('runs Kotlin HumanEval-style items through the Kotlin runner at its 2 GB on the Lambda lane, every verdict as generated', async () => {
    const result = await runSimulation({ items: 200, language: 'kotlin' });

    expect(result).toMatchObject({ items: 200, completed: 200, se: 0, missing: 0, dlq: 0 });
    expect(result.detail.verdicts).toEqual(result.detail.expected);
    expect(result.detail.expected).toMatchObject({ CE: 40 });
    expect(result.detail.runner).toMatchObject({ runner_mb: 2048, judge_mb: 1280, lane: 'lambda' });
    // A Kotlin item's compile, JVM run and 10 s TLE cost more runner GB-seconds than a Python one's.
    const python = await runSimulation({ items: 200 });
    const gb = (r: typeof result) => r.detail.gb_s as Record<string, number>;
    expect(gb(result)['runner-kotlin'] as number).toBeGreaterThan(2 * (gb(python)['runner-python'] as number));
  }, 300_000);

  it("hands each item off to its runner asynchronously: the judge's GB-seconds fall to a fraction, every verdict as synchronously", async () => {
    // One sample per runner invocation here (the hand-off alone); several per invocation is the next test's.
    // Kotlin: its runner works long enough (a compile and a JVM a sample) for the waiting to show; a
    // Python sample's runner work is now tens of ms (runner-cost's measurement), little to wait for.
    const handoff = await runSimulation({ items: 300, language: 'kotlin', without: ['runner-batch'] });
    const sync = await runSimulation({ items: 300, language: 'kotlin', without: ['async-handoff'] });
    for (const result of [handoff, sync]) {
      expect(result).toMatchObject({ items: 300, completed: 300, se: 0, missing: 0, dlq: 0 });
      expect(result.detail.verdicts).toEqual(result.detail.expected);
    }
    // Every item's runner answer came back as an invocation record through the answers queue.
    expect(handoff.detail.handoff).toMatchObject({ delivery_failures: 0 });
    expect((handoff.detail.handoff as { records: number }).records).toBeGreaterThanOrEqual(300);
    expect(sync.detail.handoff).toBe('sync');
    const judge = (r: typeof sync) => (r.detail.gb_s as Record<string, number>)['execute-kotlin'] ?? NaN;
    // The synchronous judge bills its 2 GB for the whole runner invocation; handing off, only for its own work.
    expect(judge(handoff)).toBeLessThan(judge(sync) / 2);
    // One sample an invocation, the runners' own starts (a compile server each) outweigh that; with
    // several samples an invocation, as deployed, the whole run bills less than the waiting judge's.
    const deployed = await runSimulation({ items: 300, language: 'kotlin' });
    expect(deployed).toMatchObject({ completed: 300, se: 0, missing: 0 });
    expect(deployed.lambda_gb_s).toBeLessThan(sync.lambda_gb_s);
  }, 300_000);

  it('gives a runner invocation several samples of one task: fewer invocations and runner records, the same verdicts, no SE', async () => {
    // 1,000 items: at 300 the judge's Pending minutes at the start (every unbatched message failing and
    // coming back together) leave the runners' work too alike to tell apart.
    const batched = await runSimulation({ items: 1000 });
    const single = await runSimulation({ items: 1000, without: ['runner-batch'] });
    for (const result of [batched, single]) {
      expect(result).toMatchObject({ items: 1000, completed: 1000, se: 0, missing: 0, dlq: 0 });
      expect(result.detail.verdicts).toEqual(result.detail.expected);
    }
    const records = (r: typeof single) => (r.detail.handoff as { records: number; delivery_failures: number }).records;
    expect(records(single)).toBeGreaterThanOrEqual(1000);
    expect(records(batched)).toBeLessThan(records(single) / 2);
    expect(batched.detail.handoff).toMatchObject({ delivery_failures: 0 });
    const gb = (r: typeof single, fn: string) => (r.detail.gb_s as Record<string, number>)[fn] ?? NaN;
    expect(gb(batched, 'execute-python')).toBeLessThan(gb(single, 'execute-python'));
    expect(gb(batched, 'runner-python')).toBeLessThan(gb(single, 'runner-python'));
  }, 300_000);

  it("books a redelivered generate message's model call twice without booking ids, once with them", async () => {
    const before = await runSimulation({ items: 600, chunkSize: 30, without: ['call-ids'] });
    const after = await runSimulation({ items: 600, chunkSize: 30 });
    const duplicates = await runSimulation({ items: 600, chunkSize: 30, without: ['call-ids', 'duplicates'] });

    expect(before.detail.model_calls as number).toBeGreaterThan(600);
    expect(before.detail.booked_model_usd as number).toBeGreaterThan(600 * CALL_USD + CALL_USD / 2);
    expect(after.detail.booked_model_usd).toBeCloseTo(600 * CALL_USD, 4);
    expect(before.bottleneck).toMatch(/^model cost booked twice: [1-9]\d* call\(s\) booked beyond one per recorded item$/);
    expect(after.bottleneck).not.toMatch(/booked twice/);
    // Without duplicate deliveries there is nothing to book twice, ids or not.
    expect(duplicates.detail.booked_model_usd).toBeCloseTo(600 * CALL_USD, 4);
  }, 300_000);

  it('loses the chunks after the 16th to recursion detection when plan chains itself', async () => {
    const result = await runSimulation({ items: 600, chunkSize: 30, without: ['plan-fanout'] });

    expect(result.missing).toBeGreaterThan(0);
    expect(result.detail.recursion_dropped).toBeGreaterThan(0);
    expect(result.bottleneck).toMatch(/recursion/);
    // The aggregate notices the chunks whose plan message was dropped: no part of theirs lists their items.
    expect(result.detail.status).toBe('completed_with_missing');
    expect(result.detail.reason).toMatch(new RegExp(`^${result.missing} of 600 items never recorded .*plan chunk\\(s\\) never planned: \\S+/plan/\\d+`));
  }, 300_000);

  it('starts the judge Inactive on the idle stack as well as the runner: its first batches come back, every item still recorded once', async () => {
    const result = await runSimulation({ items: 300 });

    expect(result).toMatchObject({ completed: 300, se: 0, missing: 0, dlq: 0 });
    expect((result.detail.not_active as Record<string, number>)['execute-python']).toBeGreaterThan(0);
  }, 300_000);

  it('sends items a binding model quota throttles back to their queue (0 SE, the quota named); without the fix, records them SE', async () => {
    const modelQuota = { requestsPerMinute: 20, tokensPerMinute: 40_000 };
    const requeued = await runSimulation({ items: 300, modelQuota });
    const before = await runSimulation({ items: 300, modelQuota, without: ['quota-requeue'] });

    expect(requeued).toMatchObject({ completed: 300, se: 0, missing: 0, dlq: 0 });
    expect(requeued.bottleneck).toMatch(/^model quota of \S+ \(20 requests\/min, 40000 tokens\/min\): \d+ call\(s\) throttled, each back in its queue/);
    expect(before.se).toBeGreaterThan(0);
    expect(before.bottleneck).toMatch(/throttled items recorded as SE$/);
  }, 300_000);

  it('records SE for items that met an inactive runner when transient errors are not sent back to the queue', async () => {
    // The judge's synchronous invoke (the Fargate lane's, and a request too large for the asynchronous
    // hand-off): an asynchronous one to an Inactive runner is queued by Lambda, not refused.
    const result = await runSimulation({ items: 300, without: ['transient-redelivery', 'async-handoff'] });

    expect(result.se).toBeGreaterThan(0);
  }, 300_000);

  it("answers the judges' synchronous runner invokes with 429 when a sweep's judges share the account and runners reserve nothing; reserved, none", async () => {
    // Every image judging at once (--sweep) at a wide generate stage: without reservations the judge mappings scale out over the account's 1,000.
    // Synchronous invokes (the judge waiting, as the Fargate lane and an oversized request still do).
    const reserved = await runSimulation({ items: 1000, generateMaxConcurrency: 300, sweep: true, without: ['async-handoff'] });
    const shared = await runSimulation({ items: 1000, generateMaxConcurrency: 300, sweep: true, without: ['runner-reservation', 'async-handoff'] });
    const runnerThrottles = (r: typeof reserved) =>
      Object.entries(r.detail.throttles as Record<string, number>)
        .filter(([fn]) => fn.startsWith('runner-'))
        .reduce((sum, [, n]) => sum + n, 0);

    expect(reserved).toMatchObject({ completed: 1000, se: 0, missing: 0, dlq: 0 });
    expect(runnerThrottles(reserved)).toBe(0);
    expect(runnerThrottles(shared)).toBeGreaterThan(0);
    expect(shared.bottleneck).toMatch(/^runners throttled: \d+ synchronous invoke\(s\) from judges answered 429 \(TooManyRequestsException\)/);
    // The throttled items wait out the judge's visibility timeout (30 minutes) once more.
    expect(shared.virtual_wall_s).toBeGreaterThan(reserved.virtual_wall_s + 1500);
  }, 600_000);

  it('records SE and under-books the model cost when the cost guard writes the run row that unsharded records hold', async () => {
    // With shards no record transaction holds the run row any more: the race needs both fixes reverted.
    // The race needs records and model calls at the same time: without the inactive runner, whose
    // Pending minutes (limits/function-state.ts) hold back every record of a run this small until
    // its generation is over.
    // And the booking ids reverted too: with them, the cost guard's booking is a transaction
    // (booking row + run row) retried on conflict like a record's, no longer the lone UpdateItem.
    // And each call booked on its own, as then: a batch of bookings that fails fails its items back to the
    // queue (booking-batch.ts), where a lone booking that failed left its item SE. And generate's first look
    // at the S3 document, as then: its look at the item row, in the run's partition when unsharded, shifts
    // generate's calls off the records' (stages.ts generateWork).
    const result = await runSimulation({
      items: 1000,
      chunkSize: 100,
      without: ['cost-row', 'call-ids', 'ledger-shards', 'inactive', 'batch-bookings', 'ledger-look'],
    });

    expect(result.se).toBeGreaterThan(0);
    expect(result.detail.booked_model_usd as number).toBeLessThan(result.detail.model_usd as number);
  }, 300_000);

  it('spreads the records over shard partitions: far fewer transaction conflicts than on the one run row', async () => {
    const sharded = await runSimulation({ items: 1000, chunkSize: 100 });
    const single = await runSimulation({ items: 1000, chunkSize: 100, without: ['ledger-shards'] });

    expect(single).toMatchObject({ completed: 1000, se: 0 });
    expect(sharded.detail.conflicts as number).toBeLessThan((single.detail.conflicts as number) / 4);
  }, 300_000);

  it("counts a judge invocation's records in one ledger transaction: fewer DynamoDB write units per item, 0 SE, each item counted once under duplicate deliveries", async () => {
    const batched = await runSimulation({ items: 600, chunkSize: 30 });
    const single = await runSimulation({ items: 600, chunkSize: 30, without: ['batch-records'] });
    const writesPerItem = (r: typeof batched) => (r.detail.requests as Record<string, { per_item: number }>).dynamo_write!.per_item;

    for (const result of [batched, single]) {
      expect(result).toMatchObject({ items: 600, completed: 600, se: 0, missing: 0, dlq: 0 });
      // The ledger's own counts: an item counted twice would show as one verdict too many.
      expect(result.detail.verdicts).toEqual(result.detail.expected);
    }
    expect(batched.detail.duplicate_deliveries).toBeGreaterThan(0);
    // A record was 4 units (its item row and its count row, 2 each); batched, 2 and a share of one count row's 2.
    expect(writesPerItem(batched)).toBeLessThan(writesPerItem(single) - 1);
  }, 300_000);

  it("books a generate invocation's model calls in one ledger transaction: fewer DynamoDB write units per item, each call booked once under duplicate deliveries", async () => {
    const batched = await runSimulation({ items: 600, chunkSize: 30 });
    const single = await runSimulation({ items: 600, chunkSize: 30, without: ['batch-bookings'] });
    const writesPerItem = (r: typeof batched) => (r.detail.requests as Record<string, { per_item: number }>).dynamo_write!.per_item;

    for (const result of [batched, single]) {
      expect(result).toMatchObject({ items: 600, completed: 600, se: 0, missing: 0, dlq: 0 });
      expect(result.detail.booked_model_usd).toBeCloseTo(600 * CALL_USD, 4);
    }
    expect(batched.detail.duplicate_deliveries).toBeGreaterThan(0);
    // A call's booking was 4 units (its booking row and its shard's count row, 2 each); batched, 2 and a share of one count row's 2.
    expect(writesPerItem(batched)).toBeLessThan(writesPerItem(single) - 1.5);
  }, 300_000);

  it("counts records parts on sub-counters in the shards' partitions: the run's own partition is no longer the hot key", async () => {
    const spread = await runSimulation({ items: 1000, generateMaxConcurrency: 300 });
    const single = await runSimulation({ items: 1000, generateMaxConcurrency: 300, without: ['part-shards'] });

    expect(spread).toMatchObject({ completed: 1000, se: 0, missing: 0 });
    expect(single).toMatchObject({ completed: 1000, se: 0, missing: 0 });
    // Since generate's batches of 25 at this setting (generate-mapping.ts), a batch's records land together and a
    // records shard is the hottest partition in both runs (~300 write units a second of DynamoDB's 1,000, none throttled);
    // the part counters are what the fix moves off the run's own partition.
    expect((spread.detail.peak_partition_wcu as { pk: string; units: number }).units).toBeLessThan(1000);
    expect(spread.detail.dynamo_throttles).toBe(0);
    expect(spread.detail.run_partition_peak_wcu as number).toBeLessThan((single.detail.run_partition_peak_wcu as number) / 4);
  }, 600_000);
});
