// Every entry-point form real unit-test files use (MBCPP and HumanEval-C++ declare
// `int main(int argc, char* argv[])`; MBKP `fun main()`; MBPP `check(candidate)`), run
// through the real sandbox on a hand-made task: `dublu(n)` returns 2n. In every form the
// token comes only after the test's last statement, so an early exit with status 0 fails.
import { describe, expect, it } from 'vitest';
import { sandboxSuite, unitTask } from './helpers.ts';

const suite = sandboxSuite('entry-points', { concurrency: 2 });

const run = (language: string, test: string, code: string) =>
  suite.executor.execute({ scorer: 'unit-tests', task: unitTask(language, test, 'dublu'), language, code });

const CHECKS_C = 'if (dublu(2) != 4) return 1;\n  if (dublu(-3) != -6) return 2;';
const THROWS_CPP = 'if (dublu(2) != 4) throw std::runtime_error("dublu(2)");\n  if (dublu(-3) != -6) throw std::runtime_error("dublu(-3)");';

const cTests: [string, string][] = [
  ['int main()', `int main() {\n  ${CHECKS_C}\n  return 0;\n}\n`],
  ['int main(void)', `int main(void) {\n  ${CHECKS_C}\n  return 0;\n}\n`],
  ['int main(int argc, char* argv[])', `int main(int argc, char* argv[]) {\n  if (argc != 1 || argv[1] != 0) return 3;\n  ${CHECKS_C}\n  return 0;\n}\n`],
  ['int main(int argc, char** argv)', `int main(int argc, char **argv) {\n  (void)argv;\n  ${CHECKS_C}\n  return argc == 1 ? 0 : 3;\n}\n`],
  ['main with envp', `int main(int argc, char *argv[], char *envp[]) {\n  (void)argc; (void)argv; (void)envp;\n  ${CHECKS_C}\n  return 0;\n}\n`],
  ['main falling off its end', `#include <assert.h>\nint main(void) {\n  assert(dublu(2) == 4);\n  assert(dublu(-3) == -6);\n}\n`],
];

const cppTests: [string, string][] = [
  [
    'int main(int argc, char* argv[]) after a helper template',
    `#include <stdexcept>\ntemplate <typename T> bool egal(T a, T b) { return a == b; }\n\nint main(int argc, char* argv[]) {\n  if (!egal(dublu(2), 4)) throw std::runtime_error("dublu(2)");\n  if (argc != 1) return 3;\n  return 0;\n}\n`,
  ],
  ['signed main()', `#include <stdexcept>\nsigned main() {\n  ${THROWS_CPP}\n  return 0;\n}\n`],
  ['auto main() -> int', `#include <stdexcept>\nauto main() -> int {\n  ${THROWS_CPP}\n  return 0;\n}\n`],
  [
    'int main(int argc, char **argv, char **envp)',
    `#include <stdexcept>\nint main(int argc, char **argv, char **envp) {\n  (void)argv; (void)envp;\n  ${THROWS_CPP}\n  return argc == 1 ? 0 : 3;\n}\n`,
  ],
  ['main without a return statement', `#include <cassert>\nint main() {\n  assert(dublu(2) == 4);\n  assert(dublu(-3) == -6);\n}\n`],
];

const cGood = 'int dublu(int n) { return 2 * n; }\n';
const cBad = 'int dublu(int n) { return 3 * n; }\n';
const cEarly: [string, string][] = [
  ['exit(0)', '#include <stdlib.h>\nint dublu(int n) { exit(0); return n; }\n'],
  ['_Exit(0)', '#include <stdlib.h>\nint dublu(int n) { _Exit(0); return n; }\n'],
];
const cppEarly: [string, string][] = [
  ['exit(0)', '#include <cstdlib>\nint dublu(int n) { exit(0); return n; }\n'],
  ['std::quick_exit(0)', '#include <cstdlib>\nint dublu(int n) { std::quick_exit(0); return n; }\n'],
  ['_Exit(0)', '#include <cstdlib>\nint dublu(int n) { _Exit(0); return n; }\n'],
];

describe.each([
  ['c', cTests, cEarly],
  ['cpp', cppTests, cppEarly],
] as const)('%s unit tests', (language, tests, early) => {
  it.each(tests)(
    'passes a correct completion under %s',
    async (_form, test) => {
      expect(await run(language, test, cGood)).toMatchObject({ verdict: 'OK', testsPassed: 1 });
    },
    300_000,
  );

  it.each(tests)(
    'fails a wrong completion under %s',
    async (_form, test) => {
      expect((await run(language, test, cBad)).verdict).toBe('RE');
    },
    300_000,
  );

  it.each(early)(
    'fails a completion that calls %s before the test ends, in every main form',
    async (_exit, code) => {
      const verdicts = [];
      for (const [, test] of tests) verdicts.push((await run(language, test, code)).verdict);
      expect(verdicts).toEqual(tests.map(() => 'WA'));
    },
    300_000,
  );
});

const kotlinTests: [string, string][] = [
  ['fun main()', 'fun main() {\n    if (dublu(2) != 4) throw Exception("dublu(2)")\n    if (dublu(-3) != -6) throw Exception("dublu(-3)")\n}\n'],
  [
    'fun main(args: Array<String>)',
    'fun main(args: Array<String>) {\n    if (args.isNotEmpty()) throw Exception("arguments")\n    if (dublu(2) != 4) throw Exception("dublu(2)")\n}\n',
  ],
  [
    'fun main(vararg args: String)',
    'fun main(vararg args: String) {\n    if (args.isNotEmpty()) throw Exception("arguments")\n    if (dublu(-3) != -6) throw Exception("dublu(-3)")\n}\n',
  ],
];

describe('kotlin unit tests', () => {
  it.each(kotlinTests)(
    'passes a correct completion and fails wrong and exiting ones under %s',
    async (_form, test) => {
      const good = await run('kotlin', test, 'fun dublu(n: Int): Int = 2 * n\n');
      const bad = await run('kotlin', test, 'fun dublu(n: Int): Int = 3 * n\n');
      const exits = await run('kotlin', test, 'fun dublu(n: Int): Int { kotlin.system.exitProcess(0) }\n');
      const systemExit = await run('kotlin', test, 'fun dublu(n: Int): Int { System.exit(0); return n }\n');
      expect([good.verdict, bad.verdict, exits.verdict, systemExit.verdict]).toEqual(['OK', 'RE', 'WA', 'WA']);
    },
    600_000,
  );
});

const pythonTests: [string, string][] = [
  ['check(candidate)', 'def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(-3) == -6\n'],
  [
    'an if __name__ == "__main__": block',
    'def test_dublu():\n    assert dublu(2) == 4\n    assert dublu(-3) == -6\n\nif __name__ == "__main__":\n    test_dublu()\n',
  ],
  [
    'check(candidate) called in the __main__ block',
    'calls = []\n\ndef check(candidate):\n    calls.append(1)\n    assert candidate(2) == 4\n    assert len(calls) == 1\n\nif __name__ == "__main__":\n    check(dublu)\n',
  ],
];
const pythonEarly: [string, string][] = [
  ['os._exit(0)', 'import os\ndef dublu(n):\n    os._exit(0)\n'],
  ['sys.exit(0)', 'import sys\ndef dublu(n):\n    sys.exit(0)\n'],
  ['exit(0)', 'def dublu(n):\n    exit(0)\n'],
];

describe('python unit tests', () => {
  it.each(pythonTests)(
    'passes a correct completion and fails a wrong one under %s',
    async (_form, test) => {
      expect((await run('python', test, 'def dublu(n):\n    return 2 * n\n')).verdict).toBe('OK');
      expect((await run('python', test, 'def dublu(n):\n    return 3 * n\n')).verdict).toBe('RE');
    },
    300_000,
  );

  it.each(pythonEarly)(
    'fails a completion that calls %s before the test ends, in every form',
    async (_exit, code) => {
      const verdicts = [];
      for (const [, test] of pythonTests) verdicts.push((await run('python', test, code)).verdict);
      expect(verdicts.every((v) => v !== 'OK')).toBe(true);
    },
    300_000,
  );
});

// MBPP's shape: the prompt is the `def` line and a docstring, the completion the body. An
// early exit written inside the body runs and fails; one indented unlike the prompt's
// docstring (a 4-space body under a 2-space or tab-indented prompt, as 16 of the fidelity
// set's MBPP early exits are) is not a program at all: Python and MXEval both reject it
// with an IndentationError, so it is CE and never reaches the test.
describe('python completions that are a function body', () => {
  const prompt = 'def dublu(n):\n  """Returneaza dublul lui n.\n  >>> dublu(2)\n  4\n  """\n';
  const body = (code: string) =>
    suite.executor.execute({ scorer: 'unit-tests', task: { ...unitTask('python', pythonTests[0]![1], 'dublu'), prompt }, language: 'python', code });

  it('run an `import os` inside the body, and an early exit there fails at run time', async () => {
    expect((await body('  return 2 * n\n')).verdict).toBe('OK');
    const early = await body('  import os\n  os._exit(0)\n');
    expect(early.verdict).toBe('WA');
    expect(early.error).toMatch(/exited before the end/u);
  }, 300_000);

  it('are CE with the IndentationError when indented unlike the prompt', async () => {
    const fourSpaces = await body('    import os\n    os._exit(0)\n');
    expect(fourSpaces.verdict).toBe('CE');
    expect(fourSpaces.error).toMatch(/IndentationError: unexpected indent/u);
  }, 300_000);
});

describe('c++ unit-test builds', () => {
  it("compile with MXEval's g++ defaults: no optimisation, gnu++17", async () => {
    const test = [
      'int main(int argc, char* argv[]) {',
      '#ifdef __OPTIMIZE__',
      '  return 1;',
      '#endif',
      '#ifdef __STRICT_ANSI__',
      '  return 2;',
      '#endif',
      '  return __cplusplus == 201703L && dublu(2) == 4 ? 0 : 3;',
      '}',
    ].join('\n');
    expect(await run('cpp', test, cGood)).toMatchObject({ verdict: 'OK' });
  }, 300_000);
});
