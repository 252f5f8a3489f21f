// Issue 35: the Node stages' memory (layers/app/cloud/function-memory.ts) is what the synthesized
// template deploys, inside Lambda's range, and above each stage's measured peak by the headroom
// the module's rule asks (`npm run bench function-memory` measures the peaks).
import { beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_MEMORY, LAMBDA_MEMORY_RANGE_MB, minimumHeadroomMb } from '../../layers/app/cloud/function-memory.ts';
import { NO_BUNDLING, synthPolyeval } from './synth.ts';

type Fn = { Type: string; Properties: { MemorySize?: number; Environment?: { Variables?: Record<string, unknown> } } };

let memoryByService: Map<string, number | undefined>;

beforeAll(() => {
  const json = synthPolyeval(NO_BUNDLING).template.toJSON() as { Resources: Record<string, Fn> };
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
