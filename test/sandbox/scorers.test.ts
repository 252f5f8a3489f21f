import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sandboxSuite, sumTask, unitTask } from './helpers.ts';

const suite = sandboxSuite('scorers', { concurrency: 2 });

const programs = {
  python: {
    correct: 'a, b = map(int, open("sum.in").read().split())\nopen("sum.out", "w").write(str(a + b) + "\\n")\n',
    stdout: 'a, b = map(int, input().split())\nprint(a + b)\n',
    wrong: 'a, b = map(int, input().split())\nprint(a - b)\n',
    slow: 'while True:\n    pass\n',
    crash: 'raise SystemExit(3)\n',
    broken: 'def f(:\n  pass\n',
  },
  c: {
    correct:
      '#include <stdio.h>\nint main(void){int a,b;FILE*f=fopen("sum.in","r");fscanf(f,"%d %d",&a,&b);FILE*o=fopen("sum.out","w");fprintf(o,"%d\\n",a+b);return 0;}\n',
    stdout: '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);return 0;}\n',
    wrong: '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a*b);return 0;}\n',
    slow: 'int main(void){volatile unsigned long x=0;for(;;)x++;}\n',
    crash: '#include <stddef.h>\nint main(void){volatile int *p=NULL;*p=1;return 0;}\n',
    broken: 'int main(void){ return undefined_thing; }\n',
  },
  cpp: {
    correct: '#include <bits/stdc++.h>\nint main(){std::ifstream in("sum.in");std::ofstream out("sum.out");long long a,b;in>>a>>b;out<<a+b<<"\\n";}\n',
    stdout: '#include <bits/stdc++.h>\nusing namespace std;\nint main(){long long a,b;cin>>a>>b;cout<<a+b<<endl;}\n',
    wrong: '#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b+1<<"\\n";}\n',
    slow: '#include <bits/stdc++.h>\nint main(){volatile unsigned long x=0;for(;;)x++;}\n',
    crash: '#include <bits/stdc++.h>\nint main(){std::vector<int> v;return v.at(5);}\n',
    broken: '#include <bits/stdc++.h>\nint main(){ std::vector<int> v = 3 }\n',
  },
} as const;

const languages = Object.keys(programs) as (keyof typeof programs)[];

describe.each(languages)('io-tests in %s', (language) => {
  const p = programs[language];
  const run = (code: string) => suite.executor.execute({ scorer: 'io-tests', task: sumTask(), language, code });

  it('accepts a correct program that writes <name>.out', async () => {
    const outcome = await run(p.correct);
    expect(outcome).toMatchObject({ verdict: 'OK', testsPassed: 3, testsTotal: 3 });
    expect(outcome.compileMs).toBeGreaterThanOrEqual(0);
    expect(outcome.peakMemoryKb).toBeGreaterThan(0);
  });

  it('accepts a correct program that reads stdin and writes stdout', async () => {
    expect(await run(p.stdout)).toMatchObject({ verdict: 'OK', testsPassed: 3 });
  });

  it('gives WA to a wrong program and counts the tests it passes', async () => {
    const outcome = await run(p.wrong);
    expect(outcome.verdict).toBe('WA');
    expect(outcome.testsPassed).toBeLessThan(3);
  });

  it('gives TLE to an endless loop', async () => {
    const outcome = await run(p.slow);
    expect(outcome.verdict).toBe('TLE');
    expect(outcome.tests?.every((t) => t.verdict === 'TLE')).toBe(true);
  });

  it('gives RE with the exit status to a crashing program', async () => {
    const outcome = await run(p.crash);
    expect(outcome.verdict).toBe('RE');
    expect(outcome.tests?.[0]?.detail).toMatch(/exit code|signal/u);
  });

  it('gives CE with the compiler output to a program that does not compile', async () => {
    const outcome = await run(p.broken);
    expect(outcome.verdict).toBe('CE');
    expect(outcome.testsPassed).toBe(0);
    expect(outcome.error ?? '').not.toBe('');
  });
});

describe('io-tests checkers', () => {
  it('accepts outputs within the task float tolerance', async () => {
    const task = sumTask({ tests: [{ input: '1 3\n', output: '0.333333\n' }], checker: { kind: 'float', abs: 1e-4 } });
    const outcome = await suite.executor.execute({ scorer: 'io-tests', task, language: 'python', code: 'a, b = map(int, input().split())\nprint(a / b)\n' });
    expect(outcome.verdict).toBe('OK');
  });

  it('runs a checker program given input, expected and actual files', async () => {
    const checker =
      'import sys\nexp = open(sys.argv[2]).read().split()\nact = open(sys.argv[3]).read().split()\nsys.exit(0 if sorted(exp) == sorted(act) else 1)\n';
    const task = sumTask({ tests: [{ input: '', output: '1 2 3\n' }], checker: { kind: 'program', language: 'python', source: checker } });
    const shuffled = await suite.executor.execute({ scorer: 'io-tests', task, language: 'python', code: 'print(3, 1, 2)\n' });
    const wrong = await suite.executor.execute({ scorer: 'io-tests', task, language: 'python', code: 'print(3, 1, 1)\n' });
    expect([shuffled.verdict, wrong.verdict]).toEqual(['OK', 'WA']);
  });
});

describe('compile cache', () => {
  it('compiles identical samples once', async () => {
    const code = '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);return 0;} /* cache probe */\n';
    const before = readdirSync(`${suite.dirs.cacheDir}/builds`).length;
    const outcomes = await Promise.all([1, 2, 3].map(() => suite.executor.execute({ scorer: 'io-tests', task: sumTask(), language: 'c', code })));
    expect(outcomes.map((o) => o.verdict)).toEqual(['OK', 'OK', 'OK']);
    expect(readdirSync(`${suite.dirs.cacheDir}/builds`).length).toBe(before + 1);
  });
});

const unitPrograms = {
  python: {
    test: 'def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(-1, 1) == 0\n',
    good: 'def add(a, b):\n    return a + b\n',
    bad: 'def add(a, b):\n    return a * b\n',
    early: 'import sys\ndef add(a, b):\n    sys.exit(0)\n',
  },
  c: {
    test: '#include <assert.h>\nint main(void){ assert(add(2,3)==5); assert(add(-1,1)==0); return 0; }\n',
    good: 'int add(int a, int b){ return a + b; }\n',
    bad: 'int add(int a, int b){ return a * b; }\n',
    early: '#include <stdlib.h>\nint add(int a, int b){ exit(0); }\n',
  },
  cpp: {
    test: '#include <cassert>\nint main(){ assert(add(2,3)==5); assert(add(-1,1)==0); return 0; }\n',
    good: 'int add(int a, int b){ return a + b; }\n',
    bad: 'int add(int a, int b){ return a * b; }\n',
    early: '#include <cstdlib>\nint add(int a, int b){ std::exit(0); }\n',
  },
  kotlin: {
    test: 'fun main() {\n    if (add(2, 3) != 5) throw AssertionError("2+3")\n    if (add(-1, 1) != 0) throw AssertionError("-1+1")\n}\n',
    good: 'fun add(a: Int, b: Int): Int = a + b\n',
    bad: 'fun add(a: Int, b: Int): Int = a * b\n',
    early: 'fun add(a: Int, b: Int): Int { kotlin.system.exitProcess(0) }\n',
  },
} as const;

describe.each(Object.keys(unitPrograms) as (keyof typeof unitPrograms)[])('unit-tests in %s', (language) => {
  const p = unitPrograms[language];
  const run = (code: string) => suite.executor.execute({ scorer: 'unit-tests', task: unitTask(language, p.test), language, code });

  it('passes a correct completion', async () => {
    expect(await run(p.good)).toMatchObject({ verdict: 'OK', testsPassed: 1, testsTotal: 1 });
  }, 300_000);

  it('fails a wrong completion', async () => {
    expect((await run(p.bad)).verdict).toBe('RE');
  }, 300_000);

  it('fails a completion that exits 0 before the test ends', async () => {
    expect((await run(p.early)).verdict).toBe('WA');
  }, 300_000);

  it('gives CE to a completion that does not compile', async () => {
    expect((await run(`${p.good}\n@@@ not code @@@\n`)).verdict).toBe('CE');
  }, 300_000);
});
