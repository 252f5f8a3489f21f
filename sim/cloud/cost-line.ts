/**
 * One language's cloud-against-local cost comparison from one simulated run: what
 * `npm run bench cloud-cost` prints and test/integration/cloud-sim/cost.test.ts checks (here, so
 * the test does not import the bench).
 */
import { runSimulation, type Without } from './simulate.ts';
import { MODEL_CALL_MS, type SimLanguage } from './sim-model.ts';
import { DEFAULT_DEPLOYMENT } from '#app/cloud/estimate.ts';

/**
 * The instance the local CLI is priced on: c7i.large (2 vCPU, 4 GiB, like the 2-core machine
 * the throughputs were measured on), Linux on-demand in us-east-1 (AWS's "Amazon EC2
 * On-Demand Pricing" page, November 2026).
 */
export const LOCAL_INSTANCE = { type: 'c7i.large', usdPerHour: 0.08925 } as const;

/**
 * Items per second the local CLI judged on a 2-core machine with nothing else running
 * (docs/sandbox.md): RoCode, `npm run bench rocode-scale` (2,000 items, Python and C++ mixed,
 * 5 tests each) 6.35/s; Kotlin, `npm run bench fidelity`'s Kotlin set, 54 samples in 17.8 s.
 */
export const LOCAL_ITEMS_PER_SECOND: Record<SimLanguage, number> = { python: 6.35, cpp: 6.35, kotlin: 54 / 17.8 };

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
  const rate = LOCAL_ITEMS_PER_SECOND[language];
  const executionS = items / rate;
  // The local CLI generates and judges at once: the slower of its model calls (as many in flight as the cloud's) and its judging.
  const wallS = Math.max(executionS, (items * MODEL_CALL_MS) / 1000 / CALLS_IN_FLIGHT);
  return {
    language,
    items,
    aws_architecture: architecture,
    aws_execution_usd: Number((sim.cost_usd - modelUsd).toFixed(2)),
    aws_model_usd: Number(modelUsd.toFixed(2)),
    aws_lambda_gb_s: sim.lambda_gb_s,
    aws_wall_s: sim.virtual_wall_s,
    local_instance: LOCAL_INSTANCE.type,
    local_items_per_s: Number(rate.toFixed(2)),
    local_execution_s: Math.round(executionS),
    local_wall_s: Math.round(wallS),
    local_instance_usd: Number(((wallS / 3600) * LOCAL_INSTANCE.usdPerHour).toFixed(3)),
  };
}
