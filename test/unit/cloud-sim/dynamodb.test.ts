import { describe, expect, it } from 'vitest';
import { DynamoLimits, PARTITION_WCU_PER_S, TRANSACTION_HOLD_MS } from '../../../bench/cloud-sim/limits/dynamodb.ts';

describe('DynamoDB limits', () => {
  it('rejects a single write to an item an ongoing transaction holds, and accepts it once the transaction is over', () => {
    const limits = new DynamoLimits();
    limits.transact(['run', 'item-1'], 1_000);
    expect(() => limits.write('run', 1_000 + TRANSACTION_HOLD_MS - 1)).toThrow(expect.objectContaining({ name: 'TransactionConflictException' }));
    expect(() => limits.write('run', 1_000 + TRANSACTION_HOLD_MS)).not.toThrow();
    expect(() => limits.write('other', 1_000)).not.toThrow();
  });

  it('finds a hold even when an earlier request is checked after a later transaction', () => {
    const limits = new DynamoLimits();
    limits.transact(['run'], 1_000);
    limits.transact(['run'], 5_000);
    expect(() => limits.write('run', 1_010)).toThrow(expect.objectContaining({ name: 'TransactionConflictException' }));
  });

  it('throttles a partition past 1,000 write units in one second', () => {
    const limits = new DynamoLimits();
    limits.charge('RUN#r1', 'write', PARTITION_WCU_PER_S, 0);
    expect(() => limits.charge('RUN#r1', 'write', 1, 999)).toThrow(expect.objectContaining({ name: 'ProvisionedThroughputExceededException' }));
    expect(() => limits.charge('RUN#r1', 'write', 1, 1_000)).not.toThrow();
    expect(() => limits.charge('RUN#r2', 'write', 1, 999)).not.toThrow();
  });

  it("forgets items whose holds ended more than 30 minutes before (a record's row is written once), and keeps the holds that can still conflict", () => {
    const limits = new DynamoLimits();
    limits.transact(['ITEM#old'], 0);
    const later = 31 * 60_000;
    for (let i = 0; i < 49_998; i++) limits.transact([`ITEM#${i}`], later + i);
    expect(limits.heldItems).toBe(49_999);
    // The 50,000th transaction sweeps: the old item is gone, the recent ones stay.
    limits.transact(['ITEM#last'], later + 50_000);
    expect(limits.heldItems).toBe(49_999);
    expect(() => limits.write('ITEM#last', later + 50_000 + TRANSACTION_HOLD_MS - 1)).toThrow(
      expect.objectContaining({ name: 'TransactionConflictException' }),
    );
    expect(() => limits.write('ITEM#old', later)).not.toThrow();
  });
});
