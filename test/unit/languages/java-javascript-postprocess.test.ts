// How Java and JavaScript answers become the completion that follows an MXEval prompt:
// fence tags and aliases, stop sequences, a restated signature dropped, the prompt's open
// blocks closed (braces a server's stop removed) or the run-on after them cut.
import { describe, expect, it } from 'vitest';
import { mxeval } from '../../../layers/core/benchmarks/mxeval.ts';
import { normaliseLanguage } from '../../../layers/core/benchmarks/rocode.ts';
import { closeBlocks, maskCFamily, openBraces } from '../../../layers/core/languages/brace-blocks.ts';
import { extractCode } from '../../../layers/core/benchmarks/postprocess.ts';
import type { UnitTestsTask } from '../../../layers/core/types.ts';

const JAVA_PROMPT =
  'import java.util.*;\n\n\nclass Dublu {\n    /**\n     * Întoarce dublul lui n. { nu e bloc }\n     */\n    public static int dublu(int n) {\n';
const JS_PROMPT = '/**\n * Întoarce dublul lui n. {\n */\nfunction dublu(n) {\n';
const task = (language: string, prompt: string): UnitTestsTask => ({
  kind: 'unit-tests',
  id: 'x/0',
  benchmark: 'mxeval',
  split: 'test',
  slices: {},
  language,
  prompt,
  entryPoint: 'dublu',
  test: '',
  canonicalSolution: '',
});
const java = task('java', JAVA_PROMPT);
const js = task('javascript', JS_PROMPT);
const post = (raw: string, t: UnitTestsTask) => mxeval.postprocess(raw, t, t.language);

describe('language names', () => {
  it.each([
    ['Java', 'java'],
    ['java17', 'java'],
    ['JavaScript', 'javascript'],
    ['js', 'javascript'],
    ['node', 'javascript'],
    ['Node.js', 'javascript'],
  ])('reads %s as %s', (name, id) => {
    expect(normaliseLanguage(name)).toBe(id);
  });

  it.each([
    ['MBJP/4', 'java'],
    ['HumanEval_java/2', 'java'],
    ['MBJSP/3', 'javascript'],
    ['HumanEval_javascript/2', 'javascript'],
  ])('takes the language of a row without one from its task id %s', (id, language) => {
    const [parsed] = mxeval.parseRow({ task_id: id, prompt: 'p', entry_point: 'f', test: 't' }, { file: 'x.jsonl', line: 1 });
    expect(parsed?.language).toBe(language);
  });
});

describe('fences', () => {
  it.each(['java'])('takes the ```%s block of a Java answer over other blocks', (tag) => {
    expect(extractCode(`\`\`\`text\nnu\n\`\`\`\n\`\`\`${tag}\nint x = 1;\n\`\`\``, 'java')).toBe('int x = 1;\n');
  });

  it.each(['js', 'javascript', 'node', 'JS'])('takes the ```%s block of a JavaScript answer', (tag) => {
    expect(extractCode(`\`\`\`python\nx = 1\n\`\`\`\n\`\`\`${tag}\nconst x = 1;\n\`\`\``, 'javascript')).toBe('const x = 1;\n');
  });

  it('drops the prose around an unfenced JavaScript answer and keeps its code lines', () => {
    expect(extractCode('Iată soluția completă pentru problemă:\nconst x = dublu(2);\nreturn x;\nSper că ajută.', 'javascript')).toBe(
      'const x = dublu(2);\nreturn x;\n',
    );
  });
});

describe('brace lexing', () => {
  it('ignores braces in comments, strings, chars, text blocks and template literals', () => {
    expect(openBraces('a { "}" \'}\' // }\n /* } */ `${"}"}` """\n}\n""" {')).toBe(2);
    expect(maskCFamily('f("{") // }')).toHaveLength('f("{") // }'.length);
  });

  it('counts what a Java prompt leaves open: the class and the method', () => {
    expect(openBraces(JAVA_PROMPT)).toBe(2);
    expect(openBraces(JS_PROMPT)).toBe(1);
  });

  it('closes what a stop removed and cuts what runs on after the last brace', () => {
    expect(closeBlocks('  return 1;\n', 2)).toBe('  return 1;\n}\n}\n');
    expect(closeBlocks('  return 1;\n}\nconsole.log(f())\n', 1)).toBe('  return 1;\n}\n');
  });
});

describe('Java completions', () => {
  it('keeps a completion that closes the method and the class', () => {
    expect(post('        return 2 * n;\n    }\n}', java)).toBe('        return 2 * n;\n    }\n}\n');
  });

  it('stops at the class brace and drops a model-written Main after it', () => {
    expect(post('        return 2 * n;\n    }\n}\n\nclass Main {\n    public static void main(String[] a) {}\n}\n', java)).toBe(
      '        return 2 * n;\n    }\n}\n',
    );
  });

  it('adds the closing braces a server dropped with the stop text', () => {
    expect(post('        return 2 * n;\n    ', java)).toBe('        return 2 * n;\n}\n}\n');
  });

  it('drops a restated class and signature from a fenced chat answer, keeping helper methods in the class', () => {
    const raw =
      'Soluția:\n```java\nimport java.util.*;\n\nclass Dublu {\n    public static int dublu(int n) {\n        return ajutor(n);\n    }\n\n    static int ajutor(int n) { return n + n; }\n}\n```';
    expect(post(raw, java)).toBe('        return ajutor(n);\n    }\n\n    static int ajutor(int n) { return n + n; }\n}\n');
  });

  it('keeps a body whose first statement calls the entry point', () => {
    expect(post('        return n <= 0 ? 0 : 2 + dublu(n - 1);\n    }\n}', java)).toBe('        return n <= 0 ? 0 : 2 + dublu(n - 1);\n    }\n}\n');
  });
});

describe('JavaScript completions', () => {
  it('stops at the function brace and drops what runs on after it', () => {
    expect(post('  return 2 * n;\n}\n\nconsole.log(dublu(3));\n', js)).toBe('  return 2 * n;\n}\n');
  });

  it.each([
    ['function', '```js\nfunction dublu(n) {\n  return 2 * n;\n}\n```'],
    ['async-free const arrow', '```javascript\nconst dublu = (n) => {\n  return 2 * n;\n};\n```'],
    ['use strict and a require', "```node\n'use strict';\nconst _ = require('lodash');\nfunction dublu(n) {\n  return 2 * n;\n}\n```"],
  ])('drops a restated %s signature', (_form, raw) => {
    expect(post(raw, js)).toBe('  return 2 * n;\n}\n');
  });

  it('drops no signature that code other than a preamble precedes', () => {
    const raw = 'const f = 2;\nfunction dublu(n) {\n  return f * n;\n}\n';
    expect(post(raw, js).startsWith(raw)).toBe(true);
  });

  it('keeps a body whose first line declares a variable named like the function', () => {
    const body = '  let dublu = 0;\n  for (let i = 0; i < 2; i++) {\n    dublu += n;\n  }\n  return dublu;\n}';
    expect(post(body, js)).toBe(`${body}\n`);
  });

  it('does not count a brace inside a template literal or a string', () => {
    expect(post('  return `${n}}` + "}";\n}\nfoo();\n', js)).toBe('  return `${n}}` + "}";\n}\n');
  });
});
