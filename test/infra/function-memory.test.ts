// Issue 35: the Node stages' memory (layers/app/cloud/function-memory.ts) is what the synthesized
// template deploys, inside Lambda's range, and above each stage's measured peak by the headroom
// the module's rule asks (`npm run bench function-memory` measures the peaks).
import { beforeAll, describe, expect, it } from 'vitest';
import {
  FUNCTION_MEMORY,
  JUDGE_MEMORY,
  judgeFloorMb,
  LAMBDA_MEMORY_RANGE_MB,
  minimumHeadroomMb,
  ONE_VCPU_MB,
  RUNNER_MEMORY,
  runnerFloorMb,
} from '../../layers/app/cloud/function-memory.ts';
import { EXECUTOR_IMAGES } from '../../infra/languages.ts';
import { NO_BUNDLING, synthPolyeval } from './synth.ts';

type Fn = { Type: string; Properties: { MemorySize?: number; Description?: string; Environment?: { Variables?: Record<string, unknown> } } };

let memoryByService: Map<string, number | undefined>;
let resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
let memoryByDescription: Map<string, number | undefined>;

beforeAll(() => {
  const json = synthPolyeval(NO_BUNDLING).template.toJSON() as { Resources: Record<string, Fn> };
  resources = json.Resources as unknown as typeof resources;
  memoryByDescription = new Map(
    Object.values(json.Resources)
      .filter((r) => r.Type === 'AWS::Lambda::Function')
      .map((r) => [String(r.Properties.Description ?? ''), r.Properties.MemorySize]),
  );
  memoryByService = new Map(
    Object.values(json.Resources)
      .filter((r) => r.Type === 'AWS::Lambda::Function')
      .map((r) => [String(r.Properties.Environment?.Variables?.['POWERTOOLS_SERVICE_NAME'] ?? ''), r.Properties.MemorySize]),
  );
}, 300_000);

describe('the Node stages’ memory', () => {
  for (const [stage, chosen] of Object.entries(FUNCTION_MEMORY)) {
    it(`${stage}: the template deploys ${chosen.memoryMb} MB, at least its measured peak ${chosen.peakMb} MB + headroom`, () => {
      const service = [...memoryByService.keys()].find((name) => name === stage || name.endsWith(`-${stage}`));
      expect(service, `a function whose POWERTOOLS_SERVICE_NAME names ${stage}: ${[...memoryByService.keys()].join(', ')}`).toBeDefined();
      expect(memoryByService.get(service ?? '')).toBe(chosen.memoryMb);
      expect(chosen.memoryMb).toBeGreaterThanOrEqual(LAMBDA_MEMORY_RANGE_MB.min);
      expect(chosen.memoryMb).toBeLessThanOrEqual(LAMBDA_MEMORY_RANGE_MB.max);
      expect(Number.isInteger(chosen.memoryMb)).toBe(true);
      expect(chosen.memoryMb).toBeGreaterThanOrEqual(chosen.peakMb + minimumHeadroomMb(chosen.peakMb));
    });
  }

  it('generate, which waits on its model calls, is sized below the 1 GB it had', () => {
    expect(memoryByService.get([...memoryByService.keys()].find((n) => n.endsWith('generate')) ?? '')).toBeLessThanOrEqual(512);
  });
});

// Issue 35 (35k): the runners and judges sized from measured peaks (sim/cloud/measure-executor-memory.ts,
// measure-memory.ts's `execute` stage): never below a peak + headroom with a program at its limit, never
// below one vCPU for a runner (its CPU-bound work would only take longer), and what the template deploys.
describe('the runners’ and judges’ memory', () => {
  for (const [id, chosen] of Object.entries(RUNNER_MEMORY)) {
    it(`runner-${id}: the image and the template give ${chosen.memoryMb} MB, at least its peaks + headroom + a program at its limit`, () => {
      const image = EXECUTOR_IMAGES.find((i) => i.id === id);
      expect(image?.memoryMb).toBe(chosen.memoryMb);
      expect(memoryByDescription.get(`polyeval runner for ${image?.languages.join(', ')}: runs model code, holds nothing`)).toBe(chosen.memoryMb);
      expect(chosen.memoryMb).toBeGreaterThanOrEqual(runnerFloorMb(chosen.peaks));
      expect(chosen.memoryMb).toBeGreaterThanOrEqual(ONE_VCPU_MB);
      // The program's limit fits beside the runner's own processes and their headroom.
      const own = chosen.peaks.nodeMb + chosen.peaks.compileServerMb;
      expect(chosen.memoryMb - own - minimumHeadroomMb(own)).toBeGreaterThanOrEqual(Math.max(chosen.peaks.programLimitMb, chosen.peaks.limitProgramMb));
    });
  }

  it('runner-kotlin holds the worst a long-lived environment reaches: both JVMs at their full heaps, with their non-heap', () => {
    // The measurement saw the server after 24 compilations and a program filling 85 % of its heap; a warm
    // environment's server fills its old generation until recycled (kotlin-compiler.ts: -Xmx 1024 by default,
    // recycled at 70 % in use after a collection, so the whole committed heap can be touched), and a program may
    // touch its whole -Xmx. Non-heap upper bounds from the same measurement: the server's peak less its 512 MB
    // young generation; the program's peak less the 85 % of 512 MB it filled.
    const { nodeMb, compileServerMb, limitProgramMb, programLimitMb } = RUNNER_MEMORY.kotlin.peaks;
    const serverHeapMb = 1024;
    const serverNonHeapMb = compileServerMb - serverHeapMb / 2;
    const programNonHeapMb = limitProgramMb - Math.floor(programLimitMb * 0.85);
    const worstMb = nodeMb + serverHeapMb + serverNonHeapMb + programLimitMb + programNonHeapMb;
    expect(worstMb).toBeGreaterThan(ONE_VCPU_MB); // why Kotlin's runner is not at one vCPU
    expect(RUNNER_MEMORY.kotlin.memoryMb).toBeGreaterThanOrEqual(worstMb);
  });

  it('the floor rule: a runner is never below one vCPU, and grows with a program’s limit', () => {
    const peaks = { nodeMb: 120, compileServerMb: 0, limitProgramMb: 990, programLimitMb: 1024 };
    expect(runnerFloorMb(peaks)).toBe(ONE_VCPU_MB);
    expect(runnerFloorMb({ ...peaks, programLimitMb: 2048 })).toBe(120 + 64 + 2048);
    expect(runnerFloorMb({ ...peaks, compileServerMb: 700 })).toBe(820 + 410 + 1024);
  });

  it('each judge takes at most 10 messages an invocation and scores them one at a time, so its floor counts one checker', () => {
    // functions/shared/sqs-handler.ts handles a batch's records at once (Promise.allSettled); the judge's
    // handler (functions/execute/handler.ts) scores one item at a time (continuation.ts ScoreAlone), so a
    // batch never runs two checkers of up to 1,024 MB side by side: test/integration/cloud/runner-handoff.test.ts
    // counts the items scored at once. A batch over 10 needs a batching window and is not deployed.
    const judges = new Set(
      Object.entries(resources)
        .filter(([, r]) => r.Type === 'AWS::Lambda::Function' && String(r.Properties['Description'] ?? '').startsWith('polyeval executor for'))
        .map(([id]) => id),
    );
    const mappings = Object.values(resources).filter(
      (r) => r.Type === 'AWS::Lambda::EventSourceMapping' && judges.has((r.Properties['FunctionName'] as { Ref?: string }).Ref ?? ''),
    );
    expect(mappings.length).toBeGreaterThanOrEqual(judges.size);
    for (const m of mappings) expect(m.Properties['BatchSize']).toBeLessThanOrEqual(10);
  });

  it('each judge: its image and the template give the judge memory, at least its Node peak + headroom + a checker at its limit', () => {
    expect(JUDGE_MEMORY.memoryMb).toBeGreaterThanOrEqual(judgeFloorMb(JUDGE_MEMORY));
    for (const image of EXECUTOR_IMAGES) {
      expect(image.judgeMemoryMb).toBe(Math.min(image.memoryMb, JUDGE_MEMORY.memoryMb));
      expect(image.judgeMemoryMb, image.id).toBeGreaterThanOrEqual(judgeFloorMb(JUDGE_MEMORY));
      expect(memoryByDescription.get(`polyeval executor for ${image.languages.join(', ')}`)).toBe(image.judgeMemoryMb);
    }
  });
});
