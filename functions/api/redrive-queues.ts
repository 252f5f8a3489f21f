/**
 * REDRIVE_QUEUES, read at the edge: the JSON list of {name, dlqUrl, queueUrl} infra gives the
 * api function, one entry per dead-letter queue and the queue its messages came from.
 */
import { z } from 'zod';
import { HarnessError } from '#core/errors.ts';
import type { RedrivePair } from '#app/cloud/run-control.ts';

const RedrivePairsSchema = z.array(z.object({ name: z.string().min(1), dlqUrl: z.string().url(), queueUrl: z.string().url() }));

export function parseRedrivePairs(text: string): RedrivePair[] {
  const result = RedrivePairsSchema.safeParse(JSON.parse(text) as unknown);
  if (!result.success) throw new HarnessError(`REDRIVE_QUEUES is not a list of {name, dlqUrl, queueUrl}: ${result.error.issues[0]?.message ?? ''}`);
  return result.data;
}
