import { describe, expect, it } from 'vitest';
import { buildRocodePrompt, ROCODE_OPENING, rocodeRequest, type RocodeLanguage } from '../../../layers/core/prompts/rocode.ts';
import type { IoTestsTask } from '../../../layers/core/types.ts';

function task(overrides: Partial<IoTestsTask> = {}): IoTestsTask {
  return {
    kind: 'io-tests', id: 'demo/1', benchmark: 'rocode', split: 'test', slices: {},
    name: 'dublu',
    statement: 'Se dă un număr natural N. Afișați dublul său.',
    inputSpec: 'Fișierul de intrare dublu.in conține numărul N.',
    outputSpec: 'Fișierul de ieșire dublu.out va conține numărul 2·N.',
    examples: [{ input: '21\n', output: '42\n' }],
    tests: [], timeLimitMs: 1000, memoryLimitMb: 64, checker: { kind: 'tokens' }, solutions: {},
    ...overrides,
  };
}

describe('buildRocodePrompt', () => {
  it('opens with the paper\'s Romanian line and places statement, specification and example in order', () => {
    const prompt = buildRocodePrompt(task(), 'python');
    const order = [ROCODE_OPENING, 'Afișați dublul său', 'Date de intrare', 'dublu.in conține', 'Date de ieșire',
      'va conține numărul 2·N', 'Exemplu', 'dublu.in\n21\ndublu.out\n42', 'Codul în Python3'];
    const positions = order.map((part) => prompt.indexOf(part));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(prompt.startsWith('Se dă următoarea problemă de programare:\n')).toBe(true);
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

  it('numbers several examples and labels each with the task\'s file names', () => {
    const prompt = buildRocodePrompt(task({ examples: [{ input: '1', output: '2' }, { input: '5', output: '10' }] }), 'c');
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
