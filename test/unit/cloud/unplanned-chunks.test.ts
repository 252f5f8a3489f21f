// The aggregate's check that every plan chunk was planned: a chunk whose plan message was lost
// has no part manifest, so no part lists its items (plan.ts writes part 0 before it fans out).
import { describe, expect, it } from 'vitest';
import { unplannedChunks, type PartManifest } from '#app/cloud/record-parts.ts';

const part = (index: number, size: number): PartManifest =>
  ({ part: index, items: Array.from({ length: size }, (_, s) => ({ taskId: `t${index}`, sample: s })) }) as PartManifest;

describe('unplannedChunks', () => {
  it('names nothing when every chunk of the run has its part, the last one short', () => {
    expect(unplannedChunks('r', [part(0, 30), part(1, 30), part(2, 5)], 65, 1000)).toEqual([]);
  });

  it("names each chunk without a part by its plan message's id, part 0's length being the chunk size", () => {
    expect(unplannedChunks('r', [part(0, 30), part(2, 30)], 100, 1000)).toEqual(['r/plan/30', 'r/plan/90']);
  });
});
