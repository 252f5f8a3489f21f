// Java and JavaScript through the real sandbox on hand-made MXEval-shaped tasks
// (test/fixtures/mxeval): canonical solutions pass, wrong ones fail, early exits in every
// form fail, code that does not compile is CE, a heap bomb is MLE, and io-tests programs
// (stdin → stdout) run in both.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UnitTestsTask } from '#core/types.ts';
import { sandboxSuite, sumTask } from './helpers.ts';

const suite = sandboxSuite('java-js', { concurrency: 2 });
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'mxeval');

function tasks(file: string): UnitTestsTask[] {
  return readFileSync(join(FIXTURES, file), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const r = JSON.parse(line) as Record<string, string>;
      return {
        kind: 'unit-tests',
        id: r['task_id'] ?? '',
        benchmark: 'handmade',
        split: 'test',
        slices: {},
        language: r['language'] ?? '',
        prompt: r['prompt'] ?? '',
        entryPoint: r['entry_point'] ?? '',
        test: r['test'] ?? '',
        canonicalSolution: r['canonical_solution'] ?? '',
      };
    });
}

const java = tasks('java-tasks.jsonl');
const js = tasks('javascript-tasks.jsonl');

const run = (task: UnitTestsTask, code: string) => suite.executor.execute({ scorer: 'unit-tests', task, language: task.language, code });

describe.each([
  ['java', java],
  ['javascript', js],
] as const)('%s unit tests', (_language, set) => {
  it.each(set.map((t) => [t.id, t] as const))(
    'passes the canonical solution of %s',
    async (_id, task) => {
      const outcome = await run(task, task.canonicalSolution);
      expect(outcome.verdict, JSON.stringify(outcome)).toBe('OK');
    },
    120_000,
  );
});

describe('java', () => {
  const [sum] = java as [UnitTestsTask];
  it.each([
    ['a wrong answer', 'RE', '        return n % 10;\n    }\n}'],
    ['System.exit(0)', 'WA', '        System.exit(0);\n        return 0;\n    }\n}'],
    ['Runtime.getRuntime().halt(0)', 'WA', '        Runtime.getRuntime().halt(0);\n        return 0;\n    }\n}'],
    [
      'System.exit(0) from a daemon thread before the test ends',
      'WA',
      '        Thread t = new Thread(() -> System.exit(0));\n        t.start();\n        try { t.join(); } catch (InterruptedException e) { }\n        return 6;\n    }\n}',
    ],
    ['code that does not compile', 'CE', '        return n.length();\n    }\n}'],
    ['a heap bomb', 'MLE', '        List<long[]> keep = new ArrayList<>();\n        while (true) keep.add(new long[1 << 20]);\n    }\n}'],
  ])(
    'gives %s the verdict %s',
    async (_name, verdict, code) => {
      const outcome = await run(sum, code);
      expect(outcome.verdict, JSON.stringify(outcome)).toBe(verdict);
    },
    120_000,
  );

  it.each([
    [
      'main(String... args) in a public class Main',
      'public class Main {\n    public static void main(String... args) {\n        if (args.length != 0) throw new IllegalStateException("args");\n        CHECKS\n    }\n}\n',
    ],
    [
      'main(String args[]) in a class with another name',
      'class Teste {\n    static public void main(String args[]) throws Exception {\n        CHECKS\n    }\n}\n',
    ],
    [
      'main in a nested class, after a helper class',
      'class Teste {\n    static class Ajutor { static int f(int n) { return SumaCifrelor.sumaCifrelor(n); } }\n    static class Interne {\n        public static void main(String[] args) {\n            if (Ajutor.f(45) != 9) throw new RuntimeException("45");\n            CHECKS\n        }\n    }\n}\n',
    ],
  ])(
    'runs a test whose entry is %s, and fails it on a wrong answer',
    async (_form, template) => {
      const test = template.replace('CHECKS', 'if (SumaCifrelor.sumaCifrelor(123) != 6) throw new RuntimeException("123");');
      const task = { ...sum, test };
      expect((await run(task, sum.canonicalSolution)).verdict).toBe('OK');
      expect((await run(task, '        return 0;\n    }\n}')).verdict).toBe('RE');
    },
    120_000,
  );

  it('runs a whole program with a public class on stdin and stdout', async () => {
    const code =
      'import java.util.*;\n\npublic class Solutie {\n    public static void main(String[] args) {\n        Scanner in = new Scanner(System.in);\n        long a = in.nextLong(), b = in.nextLong();\n        System.out.println(a + b);\n    }\n}\n';
    const outcome = await suite.executor.execute({ scorer: 'io-tests', task: sumTask(), language: 'java', code });
    expect(outcome.verdict, JSON.stringify(outcome)).toBe('OK');
  }, 120_000);
});

describe('javascript', () => {
  const [vowels] = js as [UnitTestsTask];
  it.each([
    ['a wrong answer', 'RE', '  return cuvant.length;\n}'],
    ['process.exit(0)', 'WA', '  process.exit(0);\n}'],
    ['process.reallyExit(0)', 'WA', '  process.reallyExit(0);\n}'],
    ['process.kill(process.pid) with exit code 0 set', 'RE', '  process.exitCode = 0;\n  process.kill(process.pid, "SIGKILL");\n}'],
    ['a syntax error', 'CE', '  return cuvant.split("").filter((c) => "aeiou".includes(c).length;\n}'],
    ['a heap bomb', 'MLE', '  const keep = [];\n  for (;;) keep.push(new Array(1 << 20).fill(1.5));\n}'],
    ['a buffer bomb', 'MLE', '  const keep = [];\n  for (;;) keep.push(Buffer.alloc(1 << 24, 1));\n}'],
  ])(
    'gives %s the verdict %s',
    async (_name, verdict, code) => {
      const outcome = await run(vowels, code);
      expect(outcome.verdict, JSON.stringify(outcome)).toBe(verdict);
    },
    120_000,
  );

  it('runs a program on stdin and stdout', async () => {
    const code = "const [a, b] = require('node:fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(a + b);\n";
    const outcome = await suite.executor.execute({ scorer: 'io-tests', task: sumTask(), language: 'javascript', code });
    expect(outcome.verdict, JSON.stringify(outcome)).toBe('OK');
  }, 120_000);
});
