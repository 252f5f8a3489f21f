// How a finished run is classified (program-host.ts `classify`), from the supervisor's facts:
// the cases that decide between TLE and MLE when both limits are near.
import { describe, expect, it } from 'vitest';
import { javascriptRuntime } from '#sandbox/languages/javascript.ts';
import { pythonRuntime } from '#sandbox/languages/python.ts';
import { classify } from '#sandbox/program-host.ts';
import type { SandboxResult } from '#sandbox/sandbox-process.ts';

const ended = (facts: Partial<SandboxResult>): SandboxResult => ({
  exitCode: null,
  signal: null,
  wallTimeout: false,
  outputExceeded: false,
  cpuMs: 100,
  wallMs: 200,
  peakMemoryKb: 20_000,
  stdout: '',
  stderr: '',
  reported: true,
  ...facts,
});
const python = { cpuMs: 1000, memoryMb: 128, addressSpaceMb: 192 };
const javascript = { cpuMs: 1000, memoryMb: 128, addressSpaceMb: 1152, heapCapped: true };

describe('classify', () => {
  it('calls a run that crossed its memory limit and then ran out of CPU MLE (seen on a loaded machine)', () => {
    expect(classify(ended({ signal: 'SIGXCPU', cpuMs: 905, peakMemoryKb: 179_908 }), pythonRuntime, python)).toBe('memory');
  });

  it('calls a run out of CPU within its memory limit TLE', () => {
    expect(classify(ended({ signal: 'SIGXCPU', cpuMs: 1003, peakMemoryKb: 90_000 }), pythonRuntime, python)).toBe('time');
  });

  it('calls a MemoryError MLE', () => {
    expect(classify(ended({ exitCode: 1, peakMemoryKb: 150_000, stderr: 'MemoryError\n' }), pythonRuntime, python)).toBe('memory');
  });

  it('leaves resident memory to the heap cap for a heap-capped runtime: a slow run above the limit in RSS is TLE', () => {
    expect(classify(ended({ signal: 'SIGXCPU', cpuMs: 1002, peakMemoryKb: 180_000 }), javascriptRuntime, javascript)).toBe('time');
  });

  it('calls a clean exit above the limit in RSS by its exit, the output deciding', () => {
    expect(classify(ended({ exitCode: 0, peakMemoryKb: 140_000 }), pythonRuntime, python)).toBe('exited');
  });
});
