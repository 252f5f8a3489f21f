import { describe, expect, it } from 'vitest';
import { buildRocodePrompt, ROCODE_OPENING, rocodeRequest, type RocodeLanguage } from '../../../layers/core/prompts/rocode-prompt.ts';
import type { IoTestsTask } from '../../../layers/core/types.ts';

function task(overrides: Partial<IoTestsTask> = {}): IoTestsTask {
  return {
    kind: 'io-tests',
    id: 'demo/1',
    benchmark: 'rocode',
    split: 'test',
    slices: {},
    name: 'dublu',
    statement: 'Se dă un număr natural N. Afișați dublul său.',
    inputSpec: 'Fișierul de intrare dublu.in conține numărul N.',
    outputSpec: 'Fișierul de ieșire dublu.out va conține numărul 2·N.',
    examples: [{ input: '21\n', output: '42\n' }],
    tests: [],
    timeLimitMs: 1000,
    memoryLimitMb: 64,
    checker: { kind: 'tokens' },
    solutions: {},
    ...overrides,
  };
}

describe('buildRocodePrompt', () => {
  it("opens with the paper's Romanian line and places statement, specification and example in order", () => {
    const prompt = buildRocodePrompt(task(), 'python');
    const order = [
      ROCODE_OPENING,
      'Afișați dublul său',
      'Date de intrare',
      'dublu.in conține',
      'Date de ieșire',
      'va conține numărul 2·N',
      'Exemplu',
      'dublu.in\n21\ndublu.out\n42',
      'Codul în Python3',
    ];
    const positions = order.map((part) => prompt.indexOf(part));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(prompt.startsWith('Se dă urmatoarea problemă de programare:\n')).toBe(true);
  });

  it.each<[RocodeLanguage, string]>([
    ['python', 'Codul în Python3 care rezolvă problema, fără comentarii sau explicații, este:'],
    ['c', 'Codul în C care rezolvă problema, fără comentarii sau explicații, este:'],
    ['cpp', 'Codul în C++ care rezolvă problema, fără comentarii sau explicații, este:'],
  ])('ends with the request for %s code in Romanian', (language, request) => {
    const prompt = buildRocodePrompt(task(), language);
    expect(prompt.endsWith(request)).toBe(true);
    expect(rocodeRequest(language)).toBe(request);
  });

  it("numbers several examples and labels each with the task's file names", () => {
    const prompt = buildRocodePrompt(
      task({
        examples: [
          { input: '1', output: '2' },
          { input: '5', output: '10' },
        ],
      }),
      'c',
    );
    expect(prompt).toContain('Exemple\ndublu.in 1\n1\ndublu.out 1\n2\n\ndublu.in 2\n5\ndublu.out 2\n10');
  });

  it('leaves out empty specifications and a missing example section', () => {
    const prompt = buildRocodePrompt(task({ inputSpec: '', outputSpec: '  ', examples: [] }), 'python');
    expect(prompt).not.toContain('Date de intrare');
    expect(prompt).not.toContain('Date de ieșire');
    expect(prompt).not.toContain('Exemplu');
    expect(prompt.split('\n\n')).toHaveLength(3);
  });
});

describe('RoCode prompt against the paper (§4.1) and its English ablation (§4.4)', () => {
  it("pins the paper's fixed opening and closing lines byte for byte, its spelling included", () => {
    // Written out from the paper: "Se dă urmatoarea problemă de programare:" … "Codul în Python3 care rezolvă problema, fără comentarii sau explicații, este:".
    const prompt = buildRocodePrompt(task(), 'python');
    expect(prompt.split('\n')[0]).toBe('Se dă urmatoarea problemă de programare:');
    expect(prompt.split('\n').at(-1)).toBe('Codul în Python3 care rezolvă problema, fără comentarii sau explicații, este:');
  });

  it('asks in English with the English statement and specifications for --prompt-language en', () => {
    const english = {
      statement: 'Given a natural number N, print its double.',
      inputSpec: 'The input file dublu.in contains N.',
      outputSpec: 'The output file dublu.out will contain 2·N.',
    };
    const prompt = buildRocodePrompt(task({ english }), 'python', 'en');
    expect(prompt).toBe(
      'The following programming problem is given:\n\nGiven a natural number N, print its double.\n\nInput data\nThe input file dublu.in contains N.\n\n' +
        'Output data\nThe output file dublu.out will contain 2·N.\n\nExample\ndublu.in\n21\ndublu.out\n42\n\n' +
        'The code in Python3 that solves the problem, without comments or explanations, is:',
    );
  });
});
