/**
 * The nightly sweep: read the sweep (inline in the schedule's event, or from an SSM parameter
 * so it changes without a deploy) and start one run per benchmark × model through the same
 * code as POST /runs.
 */
import { z } from 'zod';
import { InputError } from '#core/errors.ts';
import { startRuns, type StartDeps, type StartedRun } from './start.ts';
import { createHash } from 'node:crypto';
import { parseSweep, sweepSpecs } from './sweep.ts';

/** The schedule's time (`<aws.scheduler.scheduled-time>`): run ids derive from it. */
const ScheduledTime = z.string().datetime({ offset: true }).optional();

export const NightlyEventSchema = z.discriminatedUnion('source', [
  z.object({ source: z.literal('inline'), sweep: z.unknown(), scheduledTime: ScheduledTime }),
  z.object({ source: z.literal('ssm'), parameterName: z.string().startsWith('/').optional(), scheduledTime: ScheduledTime }),
]);

export type NightlyEvent = z.input<typeof NightlyEventSchema>;

export interface NightlyDeps extends StartDeps {
  /** Reads an SSM parameter's value (the sweep's JSON). */
  readParameter: (name: string) => Promise<string>;
  /** NIGHTLY_PARAMETER_NAME: used when the event names no parameter. */
  defaultParameterName?: string;
}

export async function startNightlySweep(deps: NightlyDeps, raw: unknown): Promise<StartedRun[]> {
  const parsed = NightlyEventSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InputError(issue?.message ?? 'is invalid', { file: 'nightly event', field: issue?.path.join('.') || 'source' });
  }
  const event = parsed.data;
  let sweep: unknown;
  let origin: string;
  if (event.source === 'inline') {
    sweep = event.sweep;
    origin = 'nightly sweep (inline)';
  } else {
    const name = event.parameterName ?? deps.defaultParameterName;
    if (!name) throw new InputError('names no SSM parameter and NIGHTLY_PARAMETER_NAME is unset', { file: 'nightly event', field: 'parameterName' });
    sweep = await deps.readParameter(name);
    origin = `SSM parameter ${name}`;
  }
  const specs = sweepSpecs(parseSweep(sweep, origin), origin);
  const start = event.scheduledTime === undefined ? deps : scheduledStart(deps, event.scheduledTime);
  const started: StartedRun[] = [];
  for (const spec of specs) started.push(...(await startRuns(start, spec)));
  return started;
}

/**
 * Run ids from the schedule's time: stamp = that time, suffix = a hash of it and the run, so
 * an invocation retried (by Lambda or the Scheduler) derives the same ids and skips the runs
 * already started.
 */
function scheduledStart(deps: StartDeps, scheduledTime: string): StartDeps {
  const at = new Date(scheduledTime);
  return {
    ...deps,
    clock: () => at,
    randomSuffix: (run) => createHash('sha256').update(`${at.toISOString()}|${run}`).digest('hex').slice(0, 6),
    skipExisting: true,
  };
}
