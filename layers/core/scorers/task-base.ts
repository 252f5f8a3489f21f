/**
 * The fields every task shares, as zod fields each scorer's task schema spreads (the stored
 * form of `TaskBase` in types.ts). Loose like every stored schema: a field a newer polyeval
 * adds is kept.
 */
import { z } from 'zod';

/** @example z.object({ ...taskBaseSchema, kind: z.literal('likert'), … }) */
export const taskBaseSchema = {
  id: z.string().min(1),
  benchmark: z.string().min(1),
  split: z.string(),
  difficulty: z.string().optional(),
  slices: z.record(z.string(), z.string()),
};
