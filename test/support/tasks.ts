/** Hand-made tasks the unit tests share (one builder, so a new required field is added once). */
import type { LikertTask } from '#core/types.ts';

/** One ABRICOT abstractness item (gold mean 0.2 → score 2), with `overrides` on top. */
export function likertTask(overrides: Partial<LikertTask> = {}): LikertTask {
  return {
    id: 'abricot-1-abstractness',
    benchmark: 'abricot',
    split: 'test',
    slices: { subtask: 'abstractness' },
    kind: 'likert',
    subtask: 'abstractness',
    itemId: '1',
    text: 'La casa è grande.',
    target: 'casa',
    goldMean: 0.2,
    gold: 2,
    ...overrides,
  };
}
