import { describe, expect, it } from 'vitest';
import { EarlyStopWatch, earlyStopReason, generatedRecord, type EarlyStopRecord } from '#core/run/early-stop.ts';

const se = (error: string): EarlyStopRecord => ({ verdict: 'SE', answer: '', error });
const empty = (error: string): EarlyStopRecord => ({ verdict: 'WA', answer: '', error });

describe('earlyStopReason', () => {
  it('stops when every first item ended SE, quoting the error', () => {
    expect(earlyStopReason(Array.from({ length: 10 }, () => se('generation: HTTP 500')))).toMatch(/first 10 items all ended SE .*"generation: HTTP 500"/);
  });

  it('stops when every first answer came back empty for the same reason, numbers aside', () => {
    const records = Array.from({ length: 10 }, (_, i) => empty(`the model returned no content (request ${i})`));
    expect(earlyStopReason(records)).toMatch(/all came back empty for the same reason/);
  });

  it('goes on when one item of the first succeeded, or the empty answers have different reasons', () => {
    const mixed = [...Array.from({ length: 9 }, () => se('x')), { verdict: 'OK' as const, answer: '3', error: null }];
    expect(earlyStopReason(mixed)).toBeUndefined();
    expect(earlyStopReason([empty('filtered'), empty('finish_reason length')])).toBeUndefined();
  });
});

describe('EarlyStopWatch', () => {
  it('decides once, on the first N records, and never after', () => {
    const watch = new EarlyStopWatch(3);
    expect(watch.observe(se('x'))).toBeUndefined();
    expect(watch.observe(se('x'))).toBeUndefined();
    expect(watch.observe(se('x'))).toMatch(/first 3 items/);
    expect(watch.observe(se('x'))).toBeUndefined();
  });
});

describe('generatedRecord', () => {
  it('reads a failed generation as the SE it will be recorded as, and an empty answer with its reason', () => {
    const failed = Array.from({ length: 10 }, () => generatedRecord({ answer: '', failure: 'generation: HTTP 401' }));
    expect(earlyStopReason(failed)).toMatch(/all ended SE .*"generation: HTTP 401"/);
    const refused = Array.from({ length: 10 }, () => generatedRecord({ answer: '', refusal: 'the answer was filtered (finish_reason "content_filter")' }));
    expect(earlyStopReason(refused)).toMatch(/all came back empty for the same reason/);
    // An answer, or an empty one with no reason given, is not a failure the rule can name.
    expect(earlyStopReason([...failed.slice(1), generatedRecord({ answer: '3' })])).toBeUndefined();
    expect(earlyStopReason(Array.from({ length: 10 }, () => generatedRecord({ answer: '' })))).toBeUndefined();
  });
});
