/** The stage queues of the pipeline (plan, generate, aggregate), each a {@link WorkQueue}. */
import { Duration } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { visibilityTimeoutFor } from './defaults/queue-defaults.ts';
import { WorkQueue } from './work-queue.ts';
import { GENERATE_MAX_RECEIVE_COUNT } from '../layers/app/cloud/retry-budget.ts';

/** Timeouts of the stage functions; each queue's visibility timeout derives from its consumer's. */
export const STAGE_TIMEOUTS = {
  plan: Duration.minutes(5),
  generate: Duration.minutes(5),
  aggregate: Duration.minutes(10),
} as const;

/** plan → generate → (execute) → aggregate queues. */
export class StageQueues extends Construct {
  readonly plan: WorkQueue;
  readonly generate: WorkQueue;
  readonly aggregate: WorkQueue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.plan = new WorkQueue(this, 'Plan', { visibilityTimeout: visibilityTimeoutFor(STAGE_TIMEOUTS.plan), maxAge: Duration.minutes(30) });
    // Generation is capped at the provider's rate limit, so a backlog is normal for a while. A
    // throttled item goes back with a back-off, each return a receive: the DLQ comes after 50 (retry-budget.ts).
    this.generate = new WorkQueue(this, 'Generate', {
      visibilityTimeout: visibilityTimeoutFor(STAGE_TIMEOUTS.generate),
      maxAge: Duration.hours(6),
      maxReceiveCount: GENERATE_MAX_RECEIVE_COUNT,
    });
    this.aggregate = new WorkQueue(this, 'Aggregate', { visibilityTimeout: visibilityTimeoutFor(STAGE_TIMEOUTS.aggregate), maxAge: Duration.hours(1) });
  }
}
