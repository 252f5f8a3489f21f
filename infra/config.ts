/**
 * The deployment's configuration: every knob `bin/app.ts` reads from CDK context, validated
 * once at synth with messages that name the context key. Constructs receive this object and
 * never read context or the environment themselves.
 */
import { BENCHMARK_REGISTRY, type BenchmarkRegistry } from '../layers/core/benchmarks/registry.ts';

/** CPU architecture of every function and executor image. */
export type Architecture = 'arm64' | 'x86_64';

/** One nightly sweep: every benchmark × every model, with the same sampling parameters. */
export interface NightlySweep {
  benchmarks: string[];
  models: string[];
  /** Sampling parameters shared by every run (n, temperature, top_p, max_tokens, …). */
  params: Record<string, string | number | boolean | string[]>;
  split?: string;
}

/** Where the nightly sweep comes from: inline context, or an SSM parameter read at run time. */
export type NightlySource =
  | { kind: 'inline'; sweep: NightlySweep }
  | { kind: 'ssm'; parameterName: string };

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
  /** Deploy the Fargate lane (and the interface endpoints only it needs). */
  fargateLane: boolean;
  /** Upper bound of Fargate tasks per language. */
  fargateMaxTasks: number;
}

/** Raised at synth when a context value is missing or malformed. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly key: string, reason: string) {
    super(`context "${key}": ${reason}`);
  }
}

const DEFAULTS = {
  // x86_64 builds the executor images natively on the usual x86 workstation or CI runner;
  // arm64 (about 20% cheaper Lambda compute) needs an arm64 machine or QEMU emulation.
  architecture: 'x86_64',
  generateMaxConcurrency: 5,
  nightlySchedule: 'cron(0 3 * * ? *)',
  nightlyTimezone: 'UTC',
  athenaBytesScannedCutoff: 1_073_741_824,
  logRetentionDays: 30,
  fargateLane: true,
  fargateMaxTasks: 4,
} as const;

/** The retention periods CloudWatch Logs accepts. */
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

function retention(raw: unknown): number {
  const value = raw === undefined ? DEFAULTS.logRetentionDays : decode(raw);
  if (typeof value !== 'number' || !RETENTION_DAYS.includes(value)) {
    throw new ConfigError('logRetentionDays', `expected one of ${RETENTION_DAYS.join(', ')}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

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

function integer(key: string, raw: unknown, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = raw === undefined ? fallback : decode(raw);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(key, `expected an integer in [${min}, ${max}], got ${JSON.stringify(raw)}`);
  }
  return value;
}

function stringList(key: string, raw: unknown): string[] {
  const value = decode(raw);
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string' && v.length > 0)) {
    throw new ConfigError(key, `expected a non-empty array of strings, got ${JSON.stringify(raw)}`);
  }
  return value as string[];
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
    if (suites.has(id)) throw new ConfigError('benchmarks', `"${id}" is a bundled suite, not a benchmark id: its records are partitioned under their benchmark's id`);
    if (!PARTITION_VALUE.test(id)) throw new ConfigError('benchmarks', `"${id}" is not a partition value (letters, digits, ".", "_", "-")`);
  }
  return [...new Set([...registry.benchmarks.map((benchmark) => benchmark.id), ...extra])];
}

/** An e-mail address as SNS e-mail subscriptions take it (one address, no display name). */
function alarmEmail(raw: unknown): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !/^[^\s@<>,;]+@[^\s@<>,;]+\.[^\s@<>,;]+$/.test(raw.trim())) {
    throw new ConfigError('alarmEmail', `expected one e-mail address, got ${JSON.stringify(raw)}`);
  }
  return raw.trim();
}

/** Validates the `nightly` context object (benchmarks × models × params). */
export function parseNightlySweep(raw: unknown): NightlySweep {
  const value = decode(raw);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError('nightly', 'expected an object {benchmarks, models, params}');
  }
  const record = value as Record<string, unknown>;
  const params = record['params'] ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw new ConfigError('nightly.params', 'expected an object of sampling parameters');
  }
  const split = record['split'];
  if (split !== undefined && typeof split !== 'string') {
    throw new ConfigError('nightly.split', 'expected a string');
  }
  return {
    benchmarks: stringList('nightly.benchmarks', record['benchmarks']),
    models: stringList('nightly.models', record['models']),
    params: params as NightlySweep['params'],
    ...(split === undefined ? {} : { split }),
  };
}

/** The stack's name when `-c stackName=…` is not given. */
export const DEFAULT_STACK_NAME = 'Polyeval';

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
export function parseConfig(context: Record<string, unknown>): PolyevalConfig {
  const architecture = context['architecture'] ?? DEFAULTS.architecture;
  if (architecture !== 'arm64' && architecture !== 'x86_64') {
    throw new ConfigError('architecture', `expected "arm64" or "x86_64", got ${JSON.stringify(architecture)}`);
  }
  if (context['nightly'] !== undefined && context['nightlyParameter'] !== undefined) {
    throw new ConfigError('nightly', 'give either "nightly" or "nightlyParameter", not both');
  }
  const stackName = context['stackName'] ?? DEFAULT_STACK_NAME;
  if (typeof stackName !== 'string' || !/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(stackName)) {
    throw new ConfigError('stackName', 'expected a CloudFormation stack name (letters, digits and hyphens, starting with a letter)');
  }
  const parameterName = context['nightlyParameter'] ?? nightlyParameterName(stackName);
  if (typeof parameterName !== 'string' || !parameterName.startsWith('/')) {
    throw new ConfigError('nightlyParameter', 'expected an SSM parameter name starting with "/"');
  }
  const nightly: NightlySource =
    context['nightly'] === undefined
      ? { kind: 'ssm', parameterName }
      : { kind: 'inline', sweep: parseNightlySweep(context['nightly']) };
  const schedule = context['nightlySchedule'] ?? DEFAULTS.nightlySchedule;
  if (typeof schedule !== 'string' || !/^(cron|rate)\(.+\)$/.test(schedule)) {
    throw new ConfigError('nightlySchedule', 'expected "cron(...)" or "rate(...)"');
  }
  const timezone = context['nightlyTimezone'] ?? DEFAULTS.nightlyTimezone;
  if (typeof timezone !== 'string' || timezone.length === 0) {
    throw new ConfigError('nightlyTimezone', 'expected an IANA time zone name');
  }
  const fargateLane = decode(context['fargateLane'] ?? DEFAULTS.fargateLane);
  if (typeof fargateLane !== 'boolean') throw new ConfigError('fargateLane', 'expected true or false');
  const email = alarmEmail(context['alarmEmail']);
  return {
    architecture,
    generateMaxConcurrency: integer('generateMaxConcurrency', context['generateMaxConcurrency'], DEFAULTS.generateMaxConcurrency, 2, 1000),
    benchmarks: partitionBenchmarks(context['benchmarks'] === undefined ? [] : stringList('benchmarks', context['benchmarks'])),
    nightly,
    nightlySchedule: schedule,
    nightlyTimezone: timezone,
    athenaBytesScannedCutoff: integer('athenaBytesScannedCutoff', context['athenaBytesScannedCutoff'], DEFAULTS.athenaBytesScannedCutoff, 10_000_000),
    logRetentionDays: retention(context['logRetentionDays']),
    fargateLane,
    fargateMaxTasks: integer('fargateMaxTasks', context['fargateMaxTasks'], DEFAULTS.fargateMaxTasks, 1, 100),
    ...(email === undefined ? {} : { alarmEmail: email }),
  };
}
