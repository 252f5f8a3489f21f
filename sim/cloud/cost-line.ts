/**
 * One language's cloud-against-local cost comparison from one simulated run: what
 * `npm run bench cloud-cost` prints and test/integration/cloud-sim/cost.test.ts checks (here, so
 * the test does not import the bench).
 */
import { runSimulation, type Without } from './simulate.ts';
import { busyLoopTle, CPU_FACTOR, expectedVerdicts, MODEL_CALL_MS, PROFILES, type SimLanguage } from './sim-model.ts';
import { ONE_VCPU_MB } from '#app/cloud/function-memory.ts';
import { UNIT_TEST_LIMITS } from '#core/judging/index.ts';
import { AWS_PRICES, DEFAULT_DEPLOYMENT } from '#app/cloud/estimate.ts';

/**
 * The instance the local CLI is priced on: c7i.large (2 vCPU, 4 GiB, like the 2-core machine
 * the throughputs were measured on), Linux on-demand in us-east-1 (AWS's "Amazon EC2
 * On-Demand Pricing" page, November 2026).
 */
export const LOCAL_INSTANCE = { type: 'c7i.large', usdPerHour: 0.08925 } as const;

/**
 * Items per second the local CLI judges on a 2-core machine with nothing else running.
 * - Python: `BENCH_ROCODE_ITEMS=1000 BENCH_ROCODE_LANGUAGES=python npm run bench rocode-scale` on the
 *   idle machine (load 0.6→2.0, nothing else running), 2026-12-07 09:29: 1,000 Python-only items of
 *   the simulated mix (5 % TLE at 4 s CPU) in 119.6 s of wall time, 8.36 items/s — the CLI's own
 *   throughput, harness and programs together. (From CPU time the same run gave at most 8.90/s:
 *   208.7 s the programs' own; an earlier sitting at load 12–16 gave at most 10.5/s, its wall rate
 *   the shared machine's.) At 10,000 items that is 1,196 s of judging, under the model calls'
 *   1,200 s (costLine), so the instance's wall time is still the model's.
 * - C++: the mixed set (`npm run bench rocode-scale`, 2,000 items, half Python, half C++)
 *   6.35/s on the idle machine (docs/sandbox.md); not measured on C++ alone.
 * - Kotlin: `npm run bench fidelity`'s Kotlin set, 54 samples in 17.8 s.
 */
export const LOCAL_ITEMS_PER_SECOND: Record<SimLanguage, number> = { python: 8.36, cpp: 6.35, kotlin: 54 / 17.8 };

/** The local instance's cores (c7i.large: 2 vCPU), over which the CLI spreads its items. */
const LOCAL_CORES = 2;

/**
 * Whether {@link LOCAL_ITEMS_PER_SECOND} was measured on the simulated run's own mix of answers.
 * RoCode's verdict mix and limits are (bench/rocode-scale runs sim/rocode-generator.ts: 5 % TLE
 * on the fifth of 5 tests, 4 s CPU under RoCode's protocol, as the simulation's provider answers);
 * Python's on its own language too (BENCH_ROCODE_LANGUAGES=python); C++'s rate is still the mixed
 * set's, half Python, so unmeasured on C++ alone. Kotlin's was not: the fidelity set's 54 samples end on their own, while 5 %
 * of the simulated Kotlin answers (sim/cloud/kotlin-tasks.ts) spin until the sandbox kills them.
 */
const RATE_HAS_THE_MIX: Record<SimLanguage, boolean> = { python: true, cpp: true, kotlin: false };

/**
 * Seconds the local CLI takes for `items` of the simulated run's mix on {@link LOCAL_CORES} cores.
 * Where the measured rate is not the mix's, an answer that ends on its own costs the measured
 * core time per item, and a TLE its compile plus the CPU the same sandbox lets its busy loop burn
 * on a whole core (busyLoopTle at one vCPU: a JVM program's CPU limit is twice UNIT_TEST_LIMITS'
 * 10 s, so 20 s) — what the simulated runner is billed for the same answer, so the cloud and the
 * instance are priced on the same work.
 */
export function localExecutionSeconds(language: SimLanguage, items: number): number {
  const rate = LOCAL_ITEMS_PER_SECOND[language];
  if (RATE_HAS_THE_MIX[language]) return items / rate;
  const n = 10;
  const mix = expectedVerdicts(Math.ceil(items / n), n, language);
  const total = Object.values(mix).reduce((a, b) => a + (b ?? 0), 0);
  const tleShare = (mix.TLE ?? 0) / total;
  const tleCoreSeconds = (PROFILES[language].compileMs + busyLoopTle(UNIT_TEST_LIMITS, ONE_VCPU_MB, CPU_FACTOR[language]).cpuMs) / 1000;
  const coreSeconds = items * ((1 - tleShare) * (LOCAL_CORES / rate) + tleShare * tleCoreSeconds);
  return coreSeconds / LOCAL_CORES;
}

/** Model calls in flight: the simulation's deployment (5 generate invocations × batch 5); the local CLI given the same. */
const CALLS_IN_FLIGHT = 25;

export interface CostLine {
  language: SimLanguage;
  items: number;
  /** The functions' architecture the Lambda GB-seconds are billed at (default: cdk.json's, arm64). */
  aws_architecture: 'arm64' | 'x86_64';
  aws_execution_usd: number;
  aws_model_usd: number;
  aws_lambda_gb_s: number;
  aws_wall_s: number;
  local_instance: string;
  local_items_per_s: number;
  local_execution_s: number;
  local_wall_s: number;
  local_instance_usd: number;
  /** aws_execution_usd / local_instance_usd, from the unrounded figures: issue 35's "within 5×". */
  aws_to_instance: number;
}

/** The comparison of one language at `items`, from one simulated run. */
export async function costLine(
  language: SimLanguage,
  items: number,
  without: readonly Without[] = [],
  architecture: 'arm64' | 'x86_64' = DEFAULT_DEPLOYMENT.architecture,
): Promise<CostLine> {
  const sim = await runSimulation({ items, language, without, architecture });
  if (sim.completed !== items) throw new Error(`the simulated ${language} run completed ${sim.completed} of ${items} items: ${sim.bottleneck}`);
  const modelUsd = sim.detail.model_usd as number;
  const executionS = localExecutionSeconds(language, items);
  const rate = items / executionS;
  // The local CLI generates and judges at once: the slower of its model calls (as many in flight as the cloud's) and its judging.
  const wallS = Math.max(executionS, (items * MODEL_CALL_MS) / 1000 / CALLS_IN_FLIGHT);
  // From the unrounded parts: sim.cost_usd is rounded to the cent with the model's $4 in it, which moved Python's
  // $0.206 to $0.20.
  const executionUsd = sim.lambda_gb_s * AWS_PRICES.lambdaGbSecond[architecture] + (sim.detail.requests as { total_usd: number }).total_usd;
  const instanceUsd = (wallS / 3600) * LOCAL_INSTANCE.usdPerHour;
  return {
    language,
    items,
    aws_architecture: architecture,
    aws_execution_usd: Number(executionUsd.toFixed(3)),
    aws_model_usd: Number(modelUsd.toFixed(2)),
    aws_lambda_gb_s: sim.lambda_gb_s,
    aws_wall_s: sim.virtual_wall_s,
    local_instance: LOCAL_INSTANCE.type,
    local_items_per_s: Number(rate.toFixed(2)),
    local_execution_s: Math.round(executionS),
    local_wall_s: Math.round(wallS),
    local_instance_usd: Number(instanceUsd.toFixed(3)),
    aws_to_instance: Number((executionUsd / instanceUsd).toFixed(2)),
  };
}
