/**
 * The deployment's configuration: every knob `bin/app.ts` reads from CDK context, validated
 * once at synth (zod schemas) with messages that name the context key. Constructs receive this object and
 * never read context or the environment themselves.
 */
import { z } from 'zod';
import { BENCHMARK_REGISTRY, type BenchmarkRegistry } from '../layers/core/benchmarks/index.ts';
import { InputError } from '../layers/core/errors.ts';
import { parseSweep, sweepSpecs, type NightlySweep } from '../layers/app/cloud/sweep.ts';
import { BEDROCK_BATCH_QUOTAS, bedrockBatchLimits, type BedrockBatchQuotas } from '../layers/providers/index.ts';
import { parseKeyHosts } from '../layers/providers/index.ts';
import {
  ACCOUNT_CONCURRENCY,
  ConcurrencyBudgetError,
  concurrencyBudget,
  MAPPING_MAX_CONCURRENCY,
  MAPPING_MIN_CONCURRENCY,
  RUNNER_RESERVED_CONCURRENCY,
  type ConcurrencyBudget,
  type ConcurrencySettings,
} from '../layers/app/cloud/concurrency-budget.ts';
import { EXECUTOR_IMAGES } from './languages.ts';

export type { NightlySweep };

/** CPU architecture of every function and executor image. */
export type Architecture = 'arm64' | 'x86_64';

/** Where the nightly sweep comes from: inline context, or an SSM parameter read at run time. */
export type NightlySource = { kind: 'inline'; sweep: NightlySweep } | { kind: 'ssm'; parameterName: string };

/** Validated deployment configuration. */
export interface PolyevalConfig {
  architecture: Architecture;
  /** Upper bound of concurrent generate invocations: the provider's rate limit (≥ 2). */
  generateMaxConcurrency: number;
  /**
   * Values of the `benchmark` partition (Athena's projection enum): every benchmark id of the
   * registry, then the extra ids given as context `benchmarks`.
   */
  benchmarks: string[];
  /** Where alarm notifications go (an SNS e-mail subscription), if anywhere. */
  alarmEmail?: string;
  nightly: NightlySource;
  /** EventBridge Scheduler expression of the nightly sweep, e.g. `cron(0 3 * * ? *)`. */
  nightlySchedule: string;
  nightlyTimezone: string;
  /** Athena's per-query scan limit in bytes (≥ 10 MB, Athena's minimum). */
  athenaBytesScannedCutoff: number;
  logRetentionDays: number;
  /** Deploy the Fargate lane (its VPC and the interface endpoints only it needs); off by default. */
  fargateLane: boolean;
  /** Upper bound of Fargate tasks per language. */
  fargateMaxTasks: number;
  /** Concurrency reserved for each runner function (0: none); the Lambda judges' mappings fit under it. */
  runnerReservedConcurrency: number;
  /** The account's Regional concurrent executions (Service Quotas), which the deployment's functions share. */
  accountConcurrency: number;
  /** What each function may hold at once, fitted into the account at synth (layers/app/cloud/concurrency-budget.ts). */
  concurrency: ConcurrencyBudget;
  /** The account's Bedrock batch inference quotas where they differ from AWS's defaults (layers/providers/batch/bedrock-quotas.ts). */
  batchQuotas?: Partial<BedrockBatchQuotas>;
  /** A Bedrock batch job's `timeoutDurationInHours` (24–168; default 168). */
  batchTimeoutHours?: number;
  /**
   * The SSM path whose parameters hold the model providers' API keys (`<path>/OPENAI_API_KEY`,
   * `<path>/ANTHROPIC_API_KEY`, …), read by generate and the batch stage.
   */
  providerKeysPath: string;
  /**
   * Hosts a stored key may go to beside its provider's own (`OPENAI_API_KEY=llm.internal|*.corp.example,…`;
   * layers/providers/key-hosts.ts), as the functions get it in PROVIDER_KEY_HOSTS; empty: none.
   */
  providerKeyHosts: string;
  /** Buckets whose objects the functions that read datasets and replay files may read (`-c datasetBuckets=a,b`), beyond the results bucket's datasets/ and runs/. */
  datasetBuckets: string[];
}

/** `providerKeyHosts` as the functions get it (normalised), or a {@link ConfigError} naming the malformed entry. */
function checkedKeyHosts(text: string): string {
  try {
    return Object.entries(parseKeyHosts(text))
      .map(([variable, hosts]) => `${variable}=${hosts.join('|')}`)
      .join(',');
  } catch (error) {
    throw new ConfigError('providerKeyHosts', (error as Error).message);
  }
}

/** Quotas that make a job possible at all (bedrockBatchLimits' checks), as a ConfigError naming the key. */
function checkedQuotas(quotas: Partial<BedrockBatchQuotas>): Partial<BedrockBatchQuotas> {
  try {
    bedrockBatchLimits(quotas);
  } catch (error) {
    throw new ConfigError('batchQuotas', (error as Error).message);
  }
  return quotas;
}

/** The deployment's concurrency budget, or a {@link ConfigError} naming the setting the account cannot hold. */
function fittedConcurrency(settings: Parameters<typeof concurrencyBudget>[0]): ConcurrencyBudget {
  try {
    return concurrencyBudget(settings);
  } catch (error) {
    if (error instanceof ConcurrencyBudgetError) throw new ConfigError(error.key, error.message);
    throw error;
  }
}

/** Raised at synth when a context value is missing or malformed. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`context "${key}": ${reason}`);
  }
}

const DEFAULTS = {
  // arm64: Lambda's arm64 GB-second costs 20% less than x86_64's (layers/providers/aws-prices.ts),
  // and every executor image's toolchain exists for it (docs/aws.md "Architecture"). Building
  // the images on an x86 machine needs QEMU (docker buildx + binfmt); `-c architecture=x86_64`
  // builds natively there.
  architecture: 'arm64',
  generateMaxConcurrency: 5,
  nightlySchedule: 'cron(0 3 * * ? *)',
  nightlyTimezone: 'UTC',
  athenaBytesScannedCutoff: 1_073_741_824,
  logRetentionDays: 30,
  // Opt-in (`-c fargateLane=true`): the lane's VPC needs five interface endpoints × 2 AZs, which
  // bill by the hour whether a run goes or not (docs/aws.md "Idle cost").
  fargateLane: false,
  fargateMaxTasks: 4,
  runnerReservedConcurrency: RUNNER_RESERVED_CONCURRENCY,
  accountConcurrency: ACCOUNT_CONCURRENCY,
} as const;

/** The retention periods CloudWatch Logs accepts. */
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

/** Reads a context value that may arrive as JSON text (`cdk -c key=value` passes strings). */
function decode(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (/^[[{]/.test(trimmed) || trimmed === 'true' || trimmed === 'false' || /^-?\d+(\.\d+)?$/.test(trimmed)) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      return value;
    }
  }
  return value;
}

/** A context value decoded from command-line text, then checked by `schema`. */
function fromContext<T extends z.ZodType>(schema: T) {
  return z.preprocess(decode, schema);
}

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  fromContext(
    z
      .int({ error: (issue) => `expected an integer in [${min}, ${max}], got ${JSON.stringify(issue.input)}` })
      .min(min)
      .max(max),
  );

const stringList = fromContext(
  z
    .array(z.string().min(1), { error: (issue) => `expected a non-empty array of strings, got ${JSON.stringify(issue.input)}` })
    .min(1, { error: 'expected a non-empty array of strings' }),
);

/** An S3 bucket name ("General purpose bucket naming rules": 3–63 lowercase letters, digits, dots and hyphens, a letter or digit at each end). */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** An e-mail address as SNS e-mail subscriptions take it (one address, no display name). */
const EMAIL = /^[^\s@<>,;]+@[^\s@<>,;]+\.[^\s@<>,;]+$/;

/** Every context key `bin/app.ts` reads, with its default; a failure names the key. */
const ContextSchema = z.object({
  architecture: z
    .enum(['arm64', 'x86_64'], { error: (issue) => `expected "arm64" or "x86_64", got ${JSON.stringify(issue.input)}` })
    .default(DEFAULTS.architecture),
  generateMaxConcurrency: integer(MAPPING_MIN_CONCURRENCY, MAPPING_MAX_CONCURRENCY).default(DEFAULTS.generateMaxConcurrency),
  benchmarks: stringList.optional(),
  alarmEmail: z
    .string({ error: (issue) => `expected one e-mail address, got ${JSON.stringify(issue.input)}` })
    .transform((raw) => raw.trim())
    .refine((email) => email === '' || EMAIL.test(email), { error: (issue) => `expected one e-mail address, got ${JSON.stringify(issue.input)}` })
    .optional(),
  nightly: z.unknown().optional(),
  nightlyParameter: z
    .string({ error: 'expected an SSM parameter name starting with "/"' })
    .startsWith('/', { error: 'expected an SSM parameter name starting with "/"' })
    .optional(),
  nightlySchedule: z
    .string()
    .regex(/^(cron|rate)\(.+\)$/, { error: 'expected "cron(...)" or "rate(...)"' })
    .default(DEFAULTS.nightlySchedule),
  nightlyTimezone: z.string().min(1, { error: 'expected an IANA time zone name' }).default(DEFAULTS.nightlyTimezone),
  athenaBytesScannedCutoff: integer(10_000_000).default(DEFAULTS.athenaBytesScannedCutoff),
  logRetentionDays: fromContext(
    z.number().refine((days) => RETENTION_DAYS.includes(days), {
      error: (issue) => `expected one of ${RETENTION_DAYS.join(', ')}, got ${JSON.stringify(issue.input)}`,
    }),
  ).default(DEFAULTS.logRetentionDays),
  fargateLane: fromContext(z.boolean({ error: 'expected true or false' })).default(DEFAULTS.fargateLane),
  fargateMaxTasks: integer(1, 100).default(DEFAULTS.fargateMaxTasks),
  runnerReservedConcurrency: integer(0, 1000).default(DEFAULTS.runnerReservedConcurrency),
  accountConcurrency: integer(1).default(DEFAULTS.accountConcurrency),
  batchQuotas: fromContext(
    z.partialRecord(z.enum(Object.keys(BEDROCK_BATCH_QUOTAS) as [keyof BedrockBatchQuotas]), z.int().min(1), {
      error: (issue) =>
        `expected an object of Bedrock batch quotas (${Object.keys(BEDROCK_BATCH_QUOTAS).join(', ')}) to positive integers, got ${JSON.stringify(issue.input)}`,
    }),
  ).optional(),
  providerKeysPath: z
    .string({ error: 'expected an SSM parameter path starting with "/", e.g. /polyeval/provider-keys' })
    .regex(/^(\/[A-Za-z0-9_.-]+)+$/, { error: 'expected an SSM parameter path starting with "/", e.g. /polyeval/provider-keys' })
    .optional(),
  batchTimeoutHours: integer(BEDROCK_BATCH_QUOTAS.minTimeoutHours, BEDROCK_BATCH_QUOTAS.maxTimeoutHours).optional(),
  providerKeyHosts: z.string({ error: 'expected <KEY>=<host>[|<host>…],… e.g. OPENAI_API_KEY=llm.internal|*.corp.example' }).optional(),
  // `-c datasetBuckets=a,b` (a string, as the CDK CLI passes it) or a JSON array in cdk.json.
  datasetBuckets: z
    .preprocess(
      (raw) => (typeof raw === 'string' && !raw.trim().startsWith('[') ? raw.split(',').map((b) => b.trim()) : decode(raw)),
      z.array(
        z.string().regex(BUCKET_NAME, {
          error: (issue) => `expected S3 bucket names, comma-separated (e.g. team-datasets,shared-evals), got ${JSON.stringify(issue.input)}`,
        }),
        { error: (issue) => `expected S3 bucket names, comma-separated, got ${JSON.stringify(issue.input)}` },
      ),
    )
    .optional(),
});

/** The first failure of `schema` on `raw` as a {@link ConfigError} naming the key path under `prefix`. */
function parseOrThrow<T extends z.ZodType>(schema: T, raw: unknown, prefix?: string): z.output<T> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const key = [...(prefix === undefined ? [] : [prefix]), ...(issue?.path ?? []).map(String)].join('.');
  throw new ConfigError(key || (prefix ?? 'context'), issue?.message ?? 'invalid');
}

/** A partition value Athena and S3 keys take as is (see `safeSegment` in core/run/keys.ts). */
const PARTITION_VALUE = /^[A-Za-z0-9._-]+$/;

/**
 * The `benchmark` partition values: the registry's ids (a benchmark added there is visible to
 * Athena without a config change), then `extra` ids (benchmarks an alias or a fork writes).
 * Suite names (`sample`, `sample/<suite>`) are rejected: records carry the benchmark id.
 */
export function partitionBenchmarks(extra: readonly string[] = [], registry: BenchmarkRegistry = BENCHMARK_REGISTRY): string[] {
  const suites = new Set(['sample', ...registry.suites.map((suite) => `sample/${suite.name}`)]);
  for (const id of extra) {
    if (suites.has(id))
      throw new ConfigError('benchmarks', `"${id}" is a bundled suite, not a benchmark id: its records are partitioned under their benchmark's id`);
    if (!PARTITION_VALUE.test(id)) throw new ConfigError('benchmarks', `"${id}" is not a partition value (letters, digits, ".", "_", "-")`);
  }
  return [...new Set([...registry.benchmarks.map((benchmark) => benchmark.id), ...extra])];
}

/**
 * Validates the `nightly` context object (benchmarks × models × params) with the nightly
 * function's own validator, so a sweep that would fail at night fails the synth instead,
 * naming the field (`nightly.params.temperature`, …).
 */
export function parseNightlySweep(raw: unknown): NightlySweep {
  const value = decode(raw);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError('nightly', 'expected an object {benchmarks, models, params}');
  }
  // Lists given as JSON text inside the object (as on a command line) are read as lists.
  const record = Object.fromEntries(Object.entries(value).map(([key, field]) => [key, key === 'benchmarks' || key === 'models' ? decode(field) : field]));
  try {
    const sweep = parseSweep(record);
    sweepSpecs(sweep);
    return sweep;
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    const field = error.location.field;
    throw new ConfigError(field && field !== 'sweep' ? `nightly.${sweepField(field)}` : 'nightly', error.message);
  }
}

/** A run spec's field as the sweep names it: shared parameters live under `params`. */
function sweepField(field: string): string {
  const [head] = field.split('.');
  if (head === 'benchmark' || head === 'model') return `${head}s`;
  return head === 'benchmarks' || head === 'models' || head === 'split' || head === 'params' || head === 'batch' ? field : `params.${field}`;
}

/** The stack's name when `-c stackName=…` is not given. */
export const DEFAULT_STACK_NAME = 'Polyeval';

/** The SSM path of a stack's provider API keys by default: `/polyeval/provider-keys`, or `/polyeval/<stack>/provider-keys` for another stack name. */
export function providerKeysPathOf(stackName: string): string {
  return stackName === DEFAULT_STACK_NAME ? '/polyeval/provider-keys' : `/polyeval/${stackName}/provider-keys`;
}

/**
 * The SSM parameter a stack reads its nightly sweep from by default: `/polyeval/nightly` for
 * the default stack (as before), `/polyeval/<stackName>/nightly` for any other, so a second
 * stack in the account never runs the first one's sweep.
 */
export function nightlyParameterName(stackName: string): string {
  return stackName === DEFAULT_STACK_NAME ? '/polyeval/nightly' : `/polyeval/${stackName}/nightly`;
}

/**
 * Validates raw context values into a {@link PolyevalConfig}, applying defaults.
 * Exactly one of `nightly` (inline sweep) and `nightlyParameter` (SSM parameter name) is used;
 * without either, the sweep is read from the stack's SSM parameter ({@link nightlyParameterName};
 * `stackName` is the stack's name, {@link DEFAULT_STACK_NAME} when absent).
 */
/** The settings the concurrency budget reads, from validated context values. */
function settingsOf(values: z.output<typeof ContextSchema>): ConcurrencySettings {
  return {
    accountConcurrency: values.accountConcurrency,
    runnerReservedConcurrency: values.runnerReservedConcurrency,
    generateMaxConcurrency: values.generateMaxConcurrency,
    fargateMaxTasks: values.fargateLane ? values.fargateMaxTasks : 0,
    images: EXECUTOR_IMAGES.length,
  };
}

/**
 * The concurrency settings a deployment with this context would fit into the account (the
 * synth's own reading of cdk.json and `-c` values, defaults included), without fitting them:
 * `polyeval remote doctor` fits them into the account's real quota instead.
 * @throws ConfigError naming a malformed context value
 */
export function concurrencySettings(context: Record<string, unknown>): ConcurrencySettings {
  return settingsOf(parseOrThrow(ContextSchema, context));
}

export function parseConfig(context: Record<string, unknown>): PolyevalConfig {
  const values = parseOrThrow(ContextSchema, context);
  if (values.nightly !== undefined && values.nightlyParameter !== undefined) {
    throw new ConfigError('nightly', 'give either "nightly" or "nightlyParameter", not both');
  }
  const stackName = context['stackName'] ?? DEFAULT_STACK_NAME;
  if (typeof stackName !== 'string' || !/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(stackName)) {
    throw new ConfigError('stackName', 'expected a CloudFormation stack name (letters, digits and hyphens, starting with a letter)');
  }
  const nightly: NightlySource =
    values.nightly === undefined
      ? { kind: 'ssm', parameterName: values.nightlyParameter ?? nightlyParameterName(stackName) }
      : { kind: 'inline', sweep: parseNightlySweep(values.nightly) };
  return {
    architecture: values.architecture,
    generateMaxConcurrency: values.generateMaxConcurrency,
    benchmarks: partitionBenchmarks(values.benchmarks ?? []),
    nightly,
    nightlySchedule: values.nightlySchedule,
    nightlyTimezone: values.nightlyTimezone,
    athenaBytesScannedCutoff: values.athenaBytesScannedCutoff,
    logRetentionDays: values.logRetentionDays,
    fargateLane: values.fargateLane,
    fargateMaxTasks: values.fargateMaxTasks,
    runnerReservedConcurrency: values.runnerReservedConcurrency,
    accountConcurrency: values.accountConcurrency,
    concurrency: fittedConcurrency(settingsOf(values)),
    providerKeysPath: values.providerKeysPath ?? providerKeysPathOf(stackName),
    providerKeyHosts: checkedKeyHosts(values.providerKeyHosts ?? ''),
    datasetBuckets: [...new Set(values.datasetBuckets ?? [])],
    ...(values.alarmEmail ? { alarmEmail: values.alarmEmail } : {}),
    ...(values.batchQuotas ? { batchQuotas: checkedQuotas(values.batchQuotas) } : {}),
    ...(values.batchTimeoutHours ? { batchTimeoutHours: values.batchTimeoutHours } : {}),
  };
}
