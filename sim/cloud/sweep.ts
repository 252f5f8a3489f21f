/**
 * `--sweep`: the rest of the deployment busy at the same time, as in a nightly sweep. A
 * Region's concurrency is one pool "shared by all functions in your account" ("Lambda quotas",
 * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html; "Understanding
 * Lambda function scaling", https://docs.aws.amazon.com/lambda/latest/dg/lambda-concurrency.html),
 * so the simulated run's runner competes not only with its own judge and stages but with every
 * other executor image's judges and runners. Reserved concurrency is the documented answer:
 * "no other function can use that concurrency", and the function's own invocations cannot
 * exceed it ("Configuring reserved concurrency",
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html).
 *
 * Each other image of EXECUTOR_IMAGES gets its judge (an SQS event source mapping, scaling as
 * limits/esm-scaling.ts says, with the deployment's `maxConcurrency` when the fix is in) and its
 * runner (reserved as the fix reserves it), sized as deployment.ts sizes ours. Its execute queue
 * receives one message for every message generate sends to the simulated run's (the sweep's
 * other runs: the same model over each image's benchmark, at the same pace); its judge invokes
 * its runner synchronously for as long as the simulated language's runner takes, with the SDK's
 * retries, and gives a throttled or failed item back to its queue (a TransientError, as ours).
 * On the idle stack of the default scenario their runners start `Inactive` too, so each image's
 * first items come back together after the judge's visibility timeout: a backlog on every
 * judge mapping at once, which each scales out for (5 batches, +300 a minute, up to 1,000)
 * unless `maxConcurrency` holds it.
 * These judges are load, not verdicts: what they cost is in lambda_gb_s and cost_usd, what they
 * met in `--detail`'s `sweep`.
 */
import { RUNNER_RESERVED_CONCURRENCY } from '#app/cloud/concurrency-budget.ts';
import { EXECUTOR_IMAGES } from '#core/languages/index.ts';
import type { WorkQueue } from '#core/ports.ts';
import { MAX_RECEIVE_COUNT, visibilityMs } from './deployment.ts';
import { SimSqsQueue } from './limits/sqs.ts';
import type { FunctionSpec, SimLambda } from './sim-lambda.ts';
import { cpuBoundMs, PROFILES, type SimLanguage } from './sim-model.ts';

/** Tests per RoCode item (sim/rocode-generator.ts): what one runner invocation runs. */
const TESTS_PER_ITEM = 5;
/** The judge's own work around its runner call (parse, compare, record): an assumption. */
const JUDGE_OWN_MS = 60;

export interface SweepStats {
  images: string[];
  judged: number;
  redelivered: number;
  dlq: number;
}

export interface Sweep {
  /** Wraps the simulated run's execute sender: every message sent is mirrored to each other image's queue. */
  mirror<T>(sender: Pick<WorkQueue<T>, 'send'>): Pick<WorkQueue<T>, 'send'>;
  stats(): SweepStats;
}

export function sweepNeighbours(
  lambda: SimLambda,
  language: SimLanguage,
  options: { runnerReservation: boolean; judgeMaxConcurrency: number | undefined; inactive: boolean; random: () => number },
): Sweep {
  const own = EXECUTOR_IMAGES.find((i) => i.languages.includes(language))?.id ?? language;
  const profile = PROFILES[language];
  const counts = { judged: 0, redelivered: 0 };
  const neighbours = EXECUTOR_IMAGES.filter((image) => image.id !== own).map((image) => {
    const judge: FunctionSpec = { name: `execute-${image.id}`, memoryMb: image.judgeMemoryMb, timeoutMs: 300_000, coldStartMs: 2_500, overheadMs: 30 };
    const runner: FunctionSpec = {
      name: `runner-${image.id}`,
      memoryMb: image.memoryMb,
      timeoutMs: 900_000,
      coldStartMs: 2_500,
      overheadMs: 30,
      // 0 reserves nothing, as infra/runners.ts reads it.
      ...(options.runnerReservation && RUNNER_RESERVED_CONCURRENCY > 0 ? { reserved: RUNNER_RESERVED_CONCURRENCY } : {}),
    };
    lambda.define(judge);
    lambda.define(runner);
    // The same idle stack: every image's judge and runner (VPC functions) are Inactive at the sweep's start, as the simulated run's.
    if (options.inactive) for (const fn of [judge, runner]) lambda.states.markInactive(fn.name);
    const queue = new SimSqsQueue<unknown>(judge.name, visibilityMs(judge), MAX_RECEIVE_COUNT);
    // The same cap as the run's own judge (deployment.ts mappingCaps): every image's judge gets one share.
    const maxConcurrency = options.judgeMaxConcurrency;
    lambda.map({
      fn: judge,
      queue,
      batchSize: 1,
      ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
      handler: async (event) => {
        const failures: { itemIdentifier: string }[] = [];
        for (const record of event.Records) {
          lambda.time.spend(JUDGE_OWN_MS);
          if (await invokeWithRetries(lambda, runner, profile, options.random)) counts.judged += 1;
          else {
            counts.redelivered += 1;
            failures.push({ itemIdentifier: record.messageId });
          }
        }
        return { batchItemFailures: failures };
      },
    });
    return queue;
  });
  return {
    mirror: (sender) => ({
      send: async (messages) => {
        const now = lambda.time.now();
        for (const queue of neighbours) {
          for (const { body } of messages) queue.send(body, 0, now, {});
          lambda.wake(queue, now);
        }
        return sender.send(messages);
      },
    }),
    stats: () => ({
      images: EXECUTOR_IMAGES.filter((i) => i.id !== own).map((i) => i.id),
      ...counts,
      dlq: neighbours.reduce((sum, q) => sum + q.dlq.length, 0),
    }),
  };
}

/** The runner invoked as simulate.ts's invokeRunner does (3 attempts on 429 and ResourceNotReady); false: still not invocable. */
async function invokeWithRetries(lambda: SimLambda, runner: FunctionSpec, profile: (typeof PROFILES)[SimLanguage], random: () => number): Promise<boolean> {
  const durationMs = cpuBoundMs((profile.compileMs + TESTS_PER_ITEM * profile.testMs) * (0.8 + 0.4 * random()), runner.memoryMb);
  for (let attempt = 1; ; attempt++) {
    try {
      await lambda.invokeSync(runner, 2_000, () => Promise.resolve({ payload: '{}', durationMs }));
      return true;
    } catch (error) {
      const name = (error as Error).name;
      if (name !== 'TooManyRequestsException' && name !== 'ResourceNotReadyException') throw error;
      if (attempt >= 3) return false;
      lambda.time.spend(random() * 100 * 2 ** attempt);
    }
  }
}
