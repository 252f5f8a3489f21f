// The run-level rules of core/run/lifecycle.ts as a user meets them: what a stage's error does
// to a run, locally and in the cloud, and what a new run's manifest records of its price.
import { describe, expect, it } from 'vitest';
import { InputError, RunStopped } from '#core/errors.ts';
import { decideItem, readyToAggregate, recordSettings, stageErrorDecision, type RunSettings } from '#core/run/lifecycle.ts';
import type { Manifest } from '#core/run/manifest.ts';

describe('a stage error', () => {
  const rows: { error: Error; local: string; cloud: string }[] = [
    { error: new RunStopped('cost cap reached'), local: 'stop', cloud: 'stop' },
    { error: new InputError('bad task row'), local: 'fail', cloud: 'fail' },
    // The cloud's queue delivers the message again (then its DLQ and the watchdog); a local run has no second delivery.
    { error: new Error('socket hang up'), local: 'fail', cloud: 'retry' },
  ];
  it.each(rows)('$error.name: local $local, cloud $cloud', ({ error, local, cloud }) => {
    expect(stageErrorDecision(error, { redelivers: false })).toBe(local);
    expect(stageErrorDecision(error, { redelivers: true })).toBe(cloud);
  });
});

describe('a delivered item message', () => {
  it('re-runs its stored SE only when the message is that re-run', () => {
    expect(decideItem({ stored: 'SE', on: 'delivery' })).toEqual({ action: 'skip', recount: true });
    expect(decideItem({ stored: 'SE', on: 'delivery', previousVerdict: 'SE' })).toEqual({ action: 'rerun', recount: true });
    // A redelivered re-run whose new record is stored already: no second call.
    expect(decideItem({ stored: 'OK', on: 'delivery', previousVerdict: 'SE' })).toEqual({ action: 'skip', recount: true });
  });
});

describe('completion', () => {
  it('waits for every planned item and never reopens an ended run', () => {
    expect(readyToAggregate({ status: 'running', items: 3, recorded: 3 })).toBe(true);
    expect(readyToAggregate({ status: 'running', items: 3, recorded: 2 })).toBe(false);
    expect(readyToAggregate({ status: 'planned', items: 0, recorded: 0 })).toBe(false);
    expect(readyToAggregate({ status: 'cancelled', items: 3, recorded: 3 })).toBe(false);
    // A late record of a run the watchdog closed completes it.
    expect(readyToAggregate({ status: 'completed_with_missing', items: 3, recorded: 3 })).toBe(true);
  });
});

describe('the manifest of a new run', () => {
  const manifest = (): Manifest => ({ early_stop: { first: 10 } }) as unknown as Manifest;
  const price = { input_per_mtok: 1, output_per_mtok: 2, source: 'user' } as NonNullable<Manifest['price']>;

  it('records the price the same way whichever driver planned it', () => {
    // What the local CLI and the cloud's plan stage pass for a billed model the user priced.
    const local: RunSettings = { batch: false, assumedPrice: { input_per_mtok: 1, output_per_mtok: 2 }, price: { billed: true, recorded: price } };
    const cloud: RunSettings = { ...local, earlyStopOff: true };
    const a = manifest();
    const b = manifest();
    recordSettings(a, local);
    recordSettings(b, cloud);
    expect(a.price).toEqual(price);
    expect(b.price).toEqual(a.price);
    expect(b.assumed_price).toEqual(a.assumed_price);
    expect(b.early_stop).toBeNull();
  });

  it('records null for a billed model without a price, and nothing for an unbilled one', () => {
    const billed = manifest();
    recordSettings(billed, { batch: false, price: { billed: true, recorded: null } });
    expect(billed.price).toBeNull();
    const free = manifest();
    recordSettings(free, { batch: false, price: { billed: false } });
    expect('price' in free).toBe(false);
  });
});
