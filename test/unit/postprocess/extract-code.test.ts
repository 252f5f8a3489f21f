import { describe, expect, it } from 'vitest';
import { extractCode, truncateAtStop } from '../../../layers/core/benchmarks/postprocess.ts';

describe('extractCode', () => {
  it.each([
    ['py', 'python'],
    ['python3', 'python'],
    ['python', 'python'],
    ['c++', 'cpp'],
    ['cpp', 'cpp'],
    ['c', 'c'],
    ['kotlin', 'kotlin'],
    ['kt', 'kotlin'],
  ])('takes the block fenced as ```%s for %s', (tag, language) => {
    const answer = `Iată soluția:\n\n\`\`\`${tag}\nx = 1\n\`\`\`\n\nSucces!`;
    expect(extractCode(answer, language)).toBe('x = 1\n');
  });

  it('chooses the block in the requested language among several', () => {
    const answer = [
      'Varianta în C++:',
      '```cpp',
      'int main() { return 0; }',
      '```',
      'Varianta în Python:',
      '```python',
      'print(42)',
      '```',
      'Exemplu de rulare:',
      '```',
      '42',
      '```',
    ].join('\n');
    expect(extractCode(answer, 'python')).toBe('print(42)\n');
    expect(extractCode(answer, 'cpp')).toBe('int main() { return 0; }\n');
  });

  it('prefers the longest block when several are in the requested language', () => {
    const answer = '```py\nprint(1)\n```\nsau\n```py\nn = int(input())\nprint(n * 2)\n```';
    expect(extractCode(answer, 'python')).toBe('n = int(input())\nprint(n * 2)\n');
  });

  it('falls back to an untagged block, then to a block in another language', () => {
    expect(extractCode('Cod:\n```\nprint(3)\n```', 'python')).toBe('print(3)\n');
    expect(extractCode('```cpp\nint main() {}\n```', 'python')).toBe('int main() {}\n');
  });

  it('keeps an unclosed fence up to the end of the answer', () => {
    expect(extractCode('```python\nprint(5)\nprint(6)', 'python')).toBe('print(5)\nprint(6)\n');
  });

  it('returns an unfenced pure-code answer unchanged', () => {
    const code = 'import sys\n\nfor linie in sys.stdin:\n    print(linie.strip())\n';
    expect(extractCode(code, 'python')).toBe(code);
    const body = '    val total = x + 1\n    return total\n}\n';
    expect(extractCode(body, 'kotlin')).toBe(body);
  });

  it('drops a one-word lead-in and a closing remark around unfenced Python', () => {
    const answer = 'Soluția:\nn = int(input())\nprint(n * 2)\nComplexitate: O(1).';
    expect(extractCode(answer, 'python')).toBe('n = int(input())\nprint(n * 2)\n');
  });

  it('keeps Python compound statements that end with a colon', () => {
    const code = 'async def rezolva():\n    return 1\nfinally_ok = 1\n';
    expect(extractCode(code, 'python')).toBe(code);
  });

  it('drops prose before and after unfenced code', () => {
    const answer =
      'Iată codul care rezolvă problema:\n\n#include <stdio.h>\nint main(void) {\n    printf("1\\n");\n    return 0;\n}\n\nAcest program afișează rezultatul cerut.';
    expect(extractCode(answer, 'c')).toBe('#include <stdio.h>\nint main(void) {\n    printf("1\\n");\n    return 0;\n}\n');
  });
});

describe('truncateAtStop', () => {
  it('cuts at the stop that completes first and keeps the stop text', () => {
    expect(truncateAtStop('a\nSTOP\nb\nEND', ['END', 'STOP'])).toBe('a\nSTOP');
  });

  it('returns the text unchanged when no stop occurs or all stops are empty', () => {
    expect(truncateAtStop('abc', ['x'])).toBe('abc');
    expect(truncateAtStop('abc', [''])).toBe('abc');
  });
});
