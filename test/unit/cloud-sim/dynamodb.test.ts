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
});
