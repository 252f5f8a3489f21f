/**
 * How the deployment shares the account's Lambda concurrency (1,000 per Region by default,
 * "Lambda quotas", https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html).
 * Judges (the execute functions and the Fargate tasks) invoke their runner synchronously and
 * wait for it, so a runner that is throttled turns a judged item into a retry. Each runner
 * therefore gets reserved concurrency, and the SQS mapping of its Lambda judge a
 * `maxConcurrency` that, with the Fargate lane's judges, never asks for more runner invocations
 * at once than are reserved ("Configuring reserved concurrency",
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html; "Configuring
 * scaling behavior for SQS event source mappings",
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html).
 *
 * What is left unreserved (at least 100, as Lambda requires) is one pool for every other
 * function: generate (its mapping's `maxConcurrency`, the provider's rate limit), plan and
 * aggregate (their mappings' caps below), the Lambda judges themselves, and the functions no
 * queue drives (api, nightly, watchdog). {@link concurrencyBudget} fits them all: the judges
 * get what the others leave, split evenly over the images, and a setting that leaves them less
 * than a mapping's minimum is refused, naming it.
 */

/**
 * Runner invocations reserved per executor image by default (context `runnerReservedConcurrency`
 * changes it; 0 reserves nothing). Five images reserve 500, so an account whose Regional limit
 * is below 600 (new accounts can start lower than the default 1,000) must lower it or deploy fails.
 */
export const RUNNER_RESERVED_CONCURRENCY = 100;
/** Items one Fargate task judges at once (its cores, functions/execute/consumer.ts). */
export const FARGATE_TASK_ITEMS = 2;
/** The account's concurrent executions per Region unless Service Quotas raised it ("Lambda quotas"). */
export const ACCOUNT_CONCURRENCY = 1000;
/** "Lambda requires at least 100 unreserved concurrency units" ("Configuring reserved concurrency"). */
export const MIN_UNRESERVED = 100;
/** The smallest `MaximumConcurrency` an SQS event source mapping takes (ScalingConfig: 2–1,000). */
export const MAPPING_MIN_CONCURRENCY = 2;
/** The largest `MaximumConcurrency` an SQS event source mapping takes. */
export const MAPPING_MAX_CONCURRENCY = 1000;
/**
 * The plan mapping's cap: a run's first chunk sends every later chunk's message at once (100 for
 * 100,000 items), which an uncapped mapping would scale out for. Ten chunks at a time plan far
 * faster than generate consumes.
 */
export const PLAN_MAX_CONCURRENCY = 10;
/** The aggregate mapping's cap: one message per recorded part and per finished run. */
export const AGGREGATE_MAX_CONCURRENCY = 10;
/**
 * Kept free for the functions no queue drives, so no mapping can cap them: the api (a person's
 * or the CLI's requests), the nightly sweep and the watchdog (one scheduled invocation each),
 * and the batch stage when it reserves nothing. An allowance, not a cap.
 */
export const UNQUEUED_ALLOWANCE = 10;
/** One reserved for the batch stage's single pass whenever runners reserve (infra/batch.ts). */
export const BATCH_RESERVED_CONCURRENCY = 1;

/** The deployment settings the budget reads, by their context keys (infra/config.ts). */
export interface ConcurrencySettings {
  /** The account's Regional concurrent executions (context `accountConcurrency`). */
  accountConcurrency: number;
  /** Per runner; 0 reserves nothing (context `runnerReservedConcurrency`). */
  runnerReservedConcurrency: number;
  /** The generate mapping's `maxConcurrency` (context `generateMaxConcurrency`). */
  generateMaxConcurrency: number;
  /** Fargate tasks per image judging with the same runner; 0 without the Fargate lane. */
  fargateMaxTasks: number;
  /** How many executor images (each a runner and a Lambda judge). */
  images: number;
}

/** How the settings share the account: what each function may hold at once. */
export interface ConcurrencyBudget {
  /** Reserved by the runners and the batch stage together. */
  reserved: number;
  /** The account less {@link reserved}: the pool every other function draws on. */
  unreserved: number;
  /**
   * Held for generate: `generateMaxConcurrency`, at least its mapping's `maxConcurrency`
   * (generate-mapping.ts: the same calls in flight in fewer, larger batches since issue 35), so
   * the fit is as it was for every setting.
   */
  generate: number;
  plan: number;
  aggregate: number;
  /** The `maxConcurrency` of each image's Lambda judge mapping; undefined when runners reserve nothing. */
  judge: number | undefined;
}

/** A setting the account's concurrency cannot hold, naming its context key. */
export class ConcurrencyBudgetError extends Error {
  override readonly name = 'ConcurrencyBudgetError';
  constructor(
    readonly key: keyof ConcurrencySettings,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The `maxConcurrency` of an image's Lambda judge mapping as far as its runner goes: the
 * runner's reservation less what the Fargate lane's tasks may hold (a judge holds one runner
 * invocation at a time). With no reservation there is nothing to fit: undefined (the mapping's
 * own scaling; a throttled runner sends its item back to the queue, never to a verdict).
 * @throws ConcurrencyBudgetError when the reservation cannot hold a mapping's minimum of 2 beside the Fargate lane
 * @example
 * judgeMaxConcurrency(4) // 92: 100 reserved, 4 tasks × 2 items on Fargate
 * judgeMaxConcurrency(4, 0) // undefined: no reservation
 */
export function judgeMaxConcurrency(fargateMaxTasks: number, reserved = RUNNER_RESERVED_CONCURRENCY): number | undefined {
  if (reserved === 0) return undefined;
  const fargate = fargateMaxTasks * FARGATE_TASK_ITEMS;
  const lambda = reserved - fargate;
  if (lambda < MAPPING_MIN_CONCURRENCY) {
    const needed = MAPPING_MIN_CONCURRENCY + fargate;
    throw new ConcurrencyBudgetError(
      'runnerReservedConcurrency',
      `${reserved} per runner cannot hold its judges: the Lambda judge's queue mapping takes at least ${MAPPING_MIN_CONCURRENCY} at once ` +
        `(an SQS event source mapping's minimum maxConcurrency) and the Fargate lane's ${fargateMaxTasks} task(s) × ${FARGATE_TASK_ITEMS} items hold ${fargate} more; ` +
        `reserve at least ${needed}, lower fargateMaxTasks, or 0 to reserve nothing`,
    );
  }
  return Math.min(lambda, MAPPING_MAX_CONCURRENCY);
}

/**
 * Fits the deployment into the account: the runners' and the batch stage's reservations leave
 * at least {@link MIN_UNRESERVED}, and in what is left generate, plan, aggregate, the functions
 * no queue drives and every image's Lambda judge can all run at their caps at once. The judges
 * get the smaller of what their runner holds ({@link judgeMaxConcurrency}) and their even share
 * of what the others leave.
 * @throws ConcurrencyBudgetError naming the setting that does not fit
 * @example
 * concurrencyBudget({ accountConcurrency: 1000, runnerReservedConcurrency: 100, generateMaxConcurrency: 5, fargateMaxTasks: 4, images: 5 }).judge // 92
 * concurrencyBudget({ accountConcurrency: 1000, runnerReservedConcurrency: 100, generateMaxConcurrency: 300, fargateMaxTasks: 4, images: 5 }).judge // 33
 */
export function concurrencyBudget(settings: ConcurrencySettings): ConcurrencyBudget {
  const { accountConcurrency: account, runnerReservedConcurrency: perRunner, generateMaxConcurrency: generate, images } = settings;
  const reserved = perRunner > 0 ? perRunner * images + BATCH_RESERVED_CONCURRENCY : 0;
  const unreserved = account - reserved;
  if (unreserved < MIN_UNRESERVED) {
    throw new ConcurrencyBudgetError(
      'runnerReservedConcurrency',
      `${perRunner} per runner reserves ${reserved} (${images} runners and the batch stage's ${BATCH_RESERVED_CONCURRENCY}) of accountConcurrency ${account}, ` +
        `leaving ${unreserved} where Lambda requires at least ${MIN_UNRESERVED} unreserved; ` +
        `use at most ${Math.floor((account - MIN_UNRESERVED - BATCH_RESERVED_CONCURRENCY) / images)}, 0 to reserve nothing, or raise the account's quota and accountConcurrency`,
    );
  }
  const others = generate + PLAN_MAX_CONCURRENCY + AGGREGATE_MAX_CONCURRENCY + UNQUEUED_ALLOWANCE;
  const othersText = `generateMaxConcurrency ${generate} + plan ${PLAN_MAX_CONCURRENCY} + aggregate ${AGGREGATE_MAX_CONCURRENCY} + ${UNQUEUED_ALLOWANCE} for the api, nightly and watchdog`;
  const base = { reserved, unreserved, generate, plan: PLAN_MAX_CONCURRENCY, aggregate: AGGREGATE_MAX_CONCURRENCY };
  const runnerSide = judgeMaxConcurrency(settings.fargateMaxTasks, perRunner);
  if (runnerSide === undefined) {
    // No reservation: judges and runners share the pool and a throttled runner is retried; what is capped must still fit.
    if (others > unreserved) {
      throw new ConcurrencyBudgetError(
        'generateMaxConcurrency',
        `${othersText} = ${others} exceed accountConcurrency ${account}; lower generateMaxConcurrency`,
      );
    }
    return { ...base, judge: undefined };
  }
  const share = Math.floor((unreserved - others) / images);
  if (share < MAPPING_MIN_CONCURRENCY) {
    const most = unreserved - (others - generate) - images * MAPPING_MIN_CONCURRENCY;
    throw new ConcurrencyBudgetError(
      'generateMaxConcurrency',
      `${othersText} leave ${unreserved - others} of the ${unreserved} unreserved (accountConcurrency ${account} less ${reserved} reserved) ` +
        `for ${images} Lambda judges, each of which needs at least ${MAPPING_MIN_CONCURRENCY}; ` +
        `lower generateMaxConcurrency to at most ${Math.max(most, 0)}, lower runnerReservedConcurrency, or raise the account's quota and accountConcurrency`,
    );
  }
  return { ...base, judge: Math.min(runnerSide, share) };
}

/** What GetAccountSettings says of the account's Lambda concurrency in one Region. */
export interface AccountConcurrency {
  /** `AccountLimit.ConcurrentExecutions`: the Regional quota. */
  limit: number;
  /** `AccountLimit.UnreservedConcurrentExecutions`: the quota less every function's reservation. */
  unreserved: number;
}

/** Whether a deployment fits an account, and the `-c` settings that make it fit. */
export interface ConcurrencyAdvice {
  /** What the deployment may use: the quota less what other functions already reserve. */
  available: number;
  /** The budget as deployed with the settings given, when they fit. */
  budget: ConcurrencyBudget | undefined;
  /** Why they do not fit (the synth's own message), when they do not. */
  problem: ConcurrencyBudgetError | undefined;
  /** Context settings to deploy with (`accountConcurrency` always, with any value to lower), and the budget they give. */
  settings: Partial<Record<keyof ConcurrencySettings, number>>;
  fitted: ConcurrencyBudget | undefined;
}

const fits = (settings: ConcurrencySettings): boolean => {
  try {
    concurrencyBudget(settings);
    return true;
  } catch (error) {
    if (error instanceof ConcurrencyBudgetError) return false;
    throw error;
  }
};

/** The largest value of `key` at or below its current one with which {@link concurrencyBudget} accepts `settings` (runners may also reserve 0). */
function largestFitting(settings: ConcurrencySettings, key: 'runnerReservedConcurrency' | 'generateMaxConcurrency'): number | undefined {
  for (let value = settings[key]; value >= 1; value--) if (fits({ ...settings, [key]: value })) return value;
  return key === 'runnerReservedConcurrency' && fits({ ...settings, runnerReservedConcurrency: 0 }) ? 0 : undefined;
}

/**
 * Fits a deployment into what an account has left (the synth's own {@link concurrencyBudget},
 * against the account's real quota instead of the `accountConcurrency` context value): when it
 * does not fit, lowers the setting the budget names — to the largest value that fits — then
 * the other one if that is not enough.
 * @example
 * concurrencyAdvice({ accountConcurrency: 1000, runnerReservedConcurrency: 100, generateMaxConcurrency: 5, fargateMaxTasks: 4, images: 5 }, { limit: 400, unreserved: 400 }).settings
 * // { accountConcurrency: 400, runnerReservedConcurrency: 59 }
 */
export function concurrencyAdvice(settings: ConcurrencySettings, account: AccountConcurrency): ConcurrencyAdvice {
  const available = Math.min(account.limit, account.unreserved);
  let current: ConcurrencySettings = { ...settings, accountConcurrency: available };
  const chosen: ConcurrencyAdvice['settings'] = { accountConcurrency: available };
  let budget: ConcurrencyBudget | undefined;
  let problem: ConcurrencyBudgetError | undefined;
  try {
    budget = concurrencyBudget(current);
  } catch (error) {
    if (!(error instanceof ConcurrencyBudgetError)) throw error;
    problem = error;
  }
  const keys =
    problem?.key === 'generateMaxConcurrency'
      ? (['generateMaxConcurrency', 'runnerReservedConcurrency'] as const)
      : (['runnerReservedConcurrency', 'generateMaxConcurrency'] as const);
  for (const key of problem ? keys : []) {
    if (fits(current)) break;
    const value = largestFitting(current, key);
    if (value === undefined) continue;
    current = { ...current, [key]: value };
    chosen[key] = value;
  }
  return { available, budget, problem, settings: chosen, fitted: fits(current) ? concurrencyBudget(current) : undefined };
}
