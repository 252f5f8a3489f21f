/**
 * The run request, validated by one zod schema shared by the CLI and the HTTP API.
 * A bad value is rejected with a message naming the field and the reason.
 */
import { z } from 'zod';
import { InputError } from '../errors.ts';

export const RunSpecSchema = z
  .object({
    benchmark: z.string().min(1, 'must name a benchmark'),
    model: z.string().min(1, 'must name a provider'),
    n: z.number().int('must be an integer').min(1, 'must be at least 1').max(1000).optional(),
    temperature: z.number().min(0).max(2).optional(),
    topP: z.number().gt(0).max(1).optional(),
    maxTokens: z.number().int().min(1).max(200_000).optional(),
    stop: z.array(z.string()).optional(),
    seed: z.number().int().min(0).default(1234),
    split: z.string().min(1).optional(),
    limit: z.number().int().min(1).optional(),
    language: z.string().min(1).optional(),
    timeScale: z.number().gt(0).max(100).default(1),
    maxCostUsd: z.number().min(0).optional(),
    likertMode: z.enum(['auto', 'likelihood', 'next-token', 'digit-parse']).default('auto'),
    /** kotlinc -language-version/-api-version (kotlinc ≥ 2.1 rejects APIs older datasets use). */
    kotlinLanguageVersion: z.string().regex(/^\d+\.\d+$/, 'must look like 1.9 or 2.0').optional(),
  })
  .strict();

export type RunSpec = z.output<typeof RunSpecSchema>;
export type RunSpecInput = z.input<typeof RunSpecSchema>;

/** Validates a run request; throws InputError naming the first bad field. */
export function parseRunSpec(input: unknown, origin = 'run request'): RunSpec {
  const result = RunSpecSchema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') || undefined;
  throw new InputError(issue?.message ?? 'is invalid', { file: origin, ...(field ? { field } : {}) });
}
