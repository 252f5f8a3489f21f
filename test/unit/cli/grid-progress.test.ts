import { describe, expect, it } from 'vitest';
import { createGridProgress } from '../../../bin/cli/grid-progress.ts';

/** A non-terminal stderr (CI log, pipe) that keeps each write. */
function plainStream(): { stream: NodeJS.WriteStream; writes: string[] } {
  const writes: string[] = [];
  const stream = { isTTY: false, write: (s: string) => (writes.push(s), true) } as unknown as NodeJS.WriteStream;
  return { stream, writes };
}

describe('sweep progress without a terminal', () => {
  it('writes whole lines: one per run in progress and one for the grid, with an ETA over cells not planned yet', () => {
    const { stream, writes } = plainStream();
    let t = 0;
    const progress = createGridProgress(stream, false, () => t);
    progress.cells([
      { benchmark: 'sample/rocode', model: 'reference' },
      { benchmark: 'sample/rocode', model: 'replay:r.jsonl' },
      { benchmark: 'sample/abricot', model: 'reference' },
    ]);
    progress.event(0, { type: 'planned', runId: 'r1', total: 10, done: 0, benchmark: 'rocode', remaining: { python: 10 } });
    for (let i = 0; i < 3; i++) {
      t += 1000; // the first interval is the warm-up; the next two teach 1 s per python item
      progress.event(0, {
        type: 'recorded',
        runId: 'r1',
        verdict: i === 2 ? 'WA' : 'OK',
        language: 'python',
        item: { runId: 'r1', taskId: `t${i}`, sample: 0 },
      });
    }
    t += 3000;
    progress.event(0, { type: 'recorded', runId: 'r1', verdict: 'OK', language: 'python', item: { runId: 'r1', taskId: 't3', sample: 0 } });
    const last = writes.at(-1) ?? '';
    // 6 left in r1 + 10 expected from the replay cell of the same benchmark (its sibling), at (1 + 1 + 3) / 3 s each.
    expect(last).toBe(
      [
        '  r1 · reference · 4/10 · OK 3 · WA 1',
        `grid 4/20 items · 0/3 cells done · 1 running · ETA ${Math.round((16 * 5) / 3)}s + 1 cell not planned yet`,
      ].join('\n') + '\n',
    );
    for (const w of writes) expect(w.endsWith('\n')).toBe(true);

    progress.event(1, { type: 'planned', runId: 'r2', total: 10, done: 4, benchmark: 'rocode', remaining: { python: 10 } });
    progress.event(0, { type: 'ended', runId: 'r1' });
    progress.cellEnded(0);
    progress.finish();
    expect(writes).toContain('run r2 · rocode · replay:r.jsonl · 10 items (4 already recorded)\n');
    expect(writes).toContain('  r1 · reference · 4/10 · OK 3 · WA 1 · ended\n');
    expect(writes.at(-1)).toMatch(
      /^ {2}r2 · replay:r\.jsonl · 4\/10 · —\ngrid 8\/20 items · 1\/3 cells done · 1 running · ETA \d+s \+ 1 cell not planned yet\n$/,
    );
  });

  it('says nothing when quiet', () => {
    const { stream, writes } = plainStream();
    const progress = createGridProgress(stream, true);
    progress.cells([{ benchmark: 'b', model: 'm' }]);
    progress.event(0, { type: 'planned', runId: 'r1', total: 1, done: 0, benchmark: 'b', remaining: { item: 1 } });
    progress.finish();
    expect(writes).toEqual([]);
  });
});
