import { describe, expect, it } from 'vitest';
import { formatEta, LanguageEta } from '../../../bin/cli/eta.ts';

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 0;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('LanguageEta', () => {
  it('knows nothing before the first item and learns from the steady pace, not the warm-up', () => {
    const c = clock();
    const eta = new LanguageEta(c.now);
    eta.start({ kotlin: 12 }, 0);
    expect(eta.seconds()).toBeNull();
    c.advance(8000); // compile server warm-up
    eta.recorded('kotlin');
    expect(eta.seconds()).toBe(88); // 11 left at the only pace seen so far
    for (let i = 0; i < 3; i++) {
      c.advance(1000);
      eta.recorded('kotlin');
    }
    expect(eta.seconds()).toBe(8); // 8 left × 1 s
  });

  it('weighs each language by its own pace', () => {
    const c = clock();
    const eta = new LanguageEta(c.now);
    eta.start({ python: 11, kotlin: 11 }, 0);
    c.advance(100);
    eta.recorded('python'); // warm-up
    c.advance(200);
    eta.recorded('python');
    c.advance(2000);
    eta.recorded('kotlin');
    expect(eta.seconds()).toBe(Math.round((9 * 200 + 10 * 2000) / 1000));
  });

  it('keeps what it learnt for the next run and counts items already recorded', () => {
    const c = clock();
    const eta = new LanguageEta(c.now);
    eta.start({ c: 3 }, 0);
    for (let i = 0; i < 3; i++) {
      c.advance(500);
      eta.recorded('c');
    }
    eta.start({ c: 40 }, 20);
    expect(eta.seconds()).toBe(10); // 20 left × 0.5 s
  });

  it("adds the runs of a concurrent sweep to what remains and learns the grid's pace over all of them", () => {
    const c = clock();
    const eta = new LanguageEta(c.now);
    eta.add({ python: 10 }, 0);
    c.advance(2000);
    eta.recorded('python'); // warm-up
    c.advance(1000);
    eta.add({ python: 10, kotlin: 10 }, 10); // a resumed run: half of its items already recorded
    eta.recorded('python');
    c.advance(4000);
    eta.recorded('kotlin');
    // python: 8 + 5 left at 1 s; kotlin: 4 left at 4 s; 4 more kotlin items of a cell not planned yet.
    expect(eta.seconds()).toBe(8 + 5 + 4 * 4);
    expect(eta.seconds({ kotlin: 4 })).toBe(8 + 5 + 8 * 4);
  });

  it('formats durations', () => {
    expect([formatEta(null), formatEta(42), formatEta(185), formatEta(3720)]).toEqual(['—', '42s', '3m05s', '1h02m']);
  });
});
