import { describe, expect, it } from 'vitest';
import { DynamoLimits, PARTITION_RCU_PER_S, PARTITION_WCU_PER_S, TRANSACT_MAX_ITEMS, TRANSACTION_HOLD_MS } from '../../../sim/cloud/limits/dynamodb.ts';

describe('DynamoDB limits', () => {
  it('rejects a single write to an item an ongoing transaction holds, and accepts it once the transaction is over', () => {
    const limits = new DynamoLimits();
    limits.transact(['run', 'item-1'], 1_000);
    expect(() => limits.write('run', 1_000 + TRANSACTION_HOLD_MS - 1)).toThrow(expect.objectContaining({ name: 'TransactionConflictException' }));
    expect(() => limits.write('run', 1_000 + TRANSACTION_HOLD_MS)).not.toThrow();
    expect(() => limits.write('other', 1_000)).not.toThrow();
  });

  it('refuses a transaction over 100 items or naming one item twice (ValidationException), and takes 100 distinct ones', () => {
    const limits = new DynamoLimits();
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `ITEM#${i}`);
    expect(() => limits.transact(keys(TRANSACT_MAX_ITEMS + 1), 0)).toThrow(expect.objectContaining({ name: 'ValidationException' }));
    expect(() => limits.transact(['ITEM#a', 'ITEM#a'], 0)).toThrow(expect.objectContaining({ name: 'ValidationException' }));
    expect(() => limits.transact(keys(TRANSACT_MAX_ITEMS), 0)).not.toThrow();
  });

  it('lets single writes on one item pass each other: only an ongoing transaction conflicts', () => {
    const limits = new DynamoLimits();
    limits.write('COST', 1_000);
    expect(() => limits.write('COST', 1_000)).not.toThrow();
    expect(() => limits.transact(['COST'], 1_000)).not.toThrow();
    expect(() => limits.transact(['COST', 'OTHER'], 1_001)).toThrow(expect.objectContaining({ name: 'TransactionConflictException' }));
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

  it('counts a second that an earlier request (checked later, out of time order) does not reset', () => {
    const limits = new DynamoLimits();
    limits.charge('RUN#r1', 'write', PARTITION_WCU_PER_S, 5_100);
    // A long invocation's write in the second before, checked after the later second filled up.
    limits.charge('RUN#r1', 'write', 1, 4_900);
    expect(() => limits.charge('RUN#r1', 'write', 1, 5_200)).toThrow(expect.objectContaining({ name: 'ProvisionedThroughputExceededException' }));
    expect(() => limits.charge('RUN#r1', 'read', PARTITION_RCU_PER_S, 5_300)).not.toThrow();
    expect(() => limits.charge('RUN#r1', 'read', 1, 5_400)).toThrow(expect.objectContaining({ name: 'ProvisionedThroughputExceededException' }));
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
