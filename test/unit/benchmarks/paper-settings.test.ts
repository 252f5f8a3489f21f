/**
 * The settings the papers' own code used, where polyeval's defaults used to differ: RoCode's
 * memory (none stated: the sandbox's), Kotlin HumanEval's language level and the card's
 * post-processing.
 */
import { describe, expect, it } from 'vitest';
import { kotlinHumanEval, mxeval } from '#core/benchmarks/mxeval.ts';
import { bindProtocol } from '#core/benchmarks/protocol.ts';
import { rocode } from '#core/benchmarks/rocode.ts';
import { protocolChoiceOfManifest } from '#core/run/manifest.ts';
import { cardCompletion } from '#core/prompts/kotlin.ts';
import type { IoTestsTask, UnitTestsTask } from '#core/types.ts';

const loc = { file: 'tasks.jsonl', line: 1 };
const rocodeRow = {
  task_id: 'ro/1',
  statement: 'Citiți N și afișați N.',
  input_spec: 'Fișierul ecou.in conține N.',
  output_spec: 'Fișierul ecou.out conține N.',
  tests: [{ input: '1\n', output: '1\n' }],
  time_limit: 1,
  memory_limit_kb: 16384,
  solutions: { python: 'print(input())\n' },
};

describe('RoCode limits', () => {
  it("runs every test with 4 s and the sandbox's default memory under the paper protocol, whatever the row says", () => {
    const [task] = rocode.parseRow(rocodeRow, loc) as IoTestsTask[];
    expect(task).toMatchObject({ timeLimitMs: 4000, memoryLimitMb: 512 });
  });

  it("takes the row's own time and memory limits under --protocol infoarena", () => {
    const [task] = bindProtocol(rocode, { protocol: 'infoarena' }).parseRow(rocodeRow, loc) as IoTestsTask[];
    expect(task).toMatchObject({ timeLimitMs: 1000, memoryLimitMb: 16 });
    const [bare] = bindProtocol(rocode, { protocol: 'infoarena' }).parseRow(
      { ...rocodeRow, time_limit: undefined, memory_limit_kb: undefined },
      loc,
    ) as IoTestsTask[];
    expect(bare).toMatchObject({ timeLimitMs: 4000, memoryLimitMb: 256 });
  });
});

describe('Kotlin HumanEval as the card ran it', () => {
  const task = {
    kind: 'unit-tests',
    id: 'HumanEval_kotlin/0',
    benchmark: 'kotlin-humaneval',
    split: 'test',
    slices: {},
    language: 'kotlin',
    prompt: '/**\n * Doubles x.\n */\nfun double(x: Int): Int {\n',
    entryPoint: 'double',
    test: '',
    canonicalSolution: '    return 2 * x\n}\n',
  } satisfies UnitTestsTask;

  it('compiles at Kotlin language level 2.0 by default, as mxeval: files do', () => {
    expect(kotlinHumanEval.defaults.kotlinLanguageVersion).toBe('2.0');
    expect(mxeval.defaults.kotlinLanguageVersion).toBe('2.0');
  });

  it("keeps the lines after the first column-0 `fun ` line of prompt + answer, comments included (the card's clean_asnwer)", () => {
    const answer = '    // twice\n    return 2 * x\n}\n\nfun main() {}\n}\n';
    expect(cardCompletion(task.prompt, answer)).toBe('    // twice\n    return 2 * x\n}\n\nfun main() {}\n}\n');
    // The stop cuts the answer at the function's closing brace first.
    expect(kotlinHumanEval.postprocess(answer, task)).toBe('    // twice\n    return 2 * x\n}\n');
  });

  it('leaves a repeated signature in place, as the card does; the lenient protocol drops it', () => {
    const repeated = 'fun double(x: Int): Int {\n    return 2 * x\n}\n';
    expect(kotlinHumanEval.postprocess(repeated, task)).toBe(repeated);
    expect(bindProtocol(kotlinHumanEval, { protocol: 'lenient' }).postprocess(repeated, task)).toBe('    return 2 * x\n}\n');
  });

  it('cleans a fenced chat answer leniently (the card ran completions only)', () => {
    const fenced = 'Here it is:\n```kotlin\nfun double(x: Int): Int {\n    return 2 * x\n}\n```\n';
    expect(kotlinHumanEval.postprocess(fenced, task)).toBe(bindProtocol(kotlinHumanEval, { protocol: 'lenient' }).postprocess(fenced, task));
  });

  it('resumes a run planned when mxeval meant the lenient cleaning with the lenient protocol', () => {
    const old = { name: 'mxeval', settings: { ...kotlinHumanEval.protocol.settings, knownDefects: undefined }, overrides: {} };
    expect(protocolChoiceOfManifest({ protocol: old, benchmark: { id: 'kotlin-humaneval' } })).toEqual({ protocol: 'lenient' });
    expect(protocolChoiceOfManifest({ protocol: kotlinHumanEval.protocol, benchmark: { id: 'kotlin-humaneval' } })).toEqual({ protocol: 'mxeval' });
  });
});
