/**
 * Generates RoCode-style io-tests tasks and replay samples for the scale bench: Python and
 * C++ answers, 5 tests per task, with a fixed mix of verdicts (OK, WA, RE, TLE) whose
 * expected counts are returned, so the bench also checks that nothing came out as SE.
 *
 * Every task is "suma" (N numbers on stdin, print their sum) with its own tests; answers come
 * from eight programs (language × kind), so after eight compilations the run is
 * execution-bound: 5 sandboxed processes per item. TLE answers loop forever only on the
 * fifth test (N = 50), so they pass four tests first, as real slow answers do.
 */

export type AnswerKind = 'OK' | 'WA' | 'RE' | 'TLE';
export type BenchLanguage = 'python' | 'cpp';

const PROGRAMS: Record<BenchLanguage, Record<AnswerKind, string>> = {
  python: {
    OK: 'import sys\nd = sys.stdin.read().split()\nn = int(d[0])\nprint(sum(int(x) for x in d[1:1 + n]))\n',
    WA: 'import sys\nd = sys.stdin.read().split()\nn = int(d[0])\nprint(sum(int(x) for x in d[1:1 + n]) + 1)\n',
    RE: 'import sys\nd = sys.stdin.read().split()\nn = int(d[0])\nprint(int(d[n + 5]))\n',
    TLE: 'import sys\nd = sys.stdin.read().split()\nn = int(d[0])\nwhile n >= 50:\n    n += 1\nprint(sum(int(x) for x in d[1:1 + n]))\n',
  },
  cpp: {
    OK: '#include <bits/stdc++.h>\nint main(){long long n,s=0,x;std::cin>>n;for(long long i=0;i<n;i++){std::cin>>x;s+=x;}std::cout<<s<<"\\n";}\n',
    WA: '#include <bits/stdc++.h>\nint main(){long long n,s=0,x;std::cin>>n;for(long long i=0;i<n;i++){std::cin>>x;s+=x;}std::cout<<s+1<<"\\n";}\n',
    RE: '#include <bits/stdc++.h>\nint main(){long long n;std::cin>>n;std::vector<long long> v;std::cout<<v.at(n)<<"\\n";}\n',
    TLE: '#include <bits/stdc++.h>\nint main(){long long n,x;volatile long long s=0;std::cin>>n;while(n>=50){s=s+1;}for(long long i=0;i<n;i++){std::cin>>x;s=s+x;}std::cout<<s<<"\\n";}\n',
  },
};

/** Per 40 items: 22 OK, 8 WA, 8 RE, 2 TLE (5 %), half in each language. */
const MIX: [BenchLanguage, AnswerKind, number][] = [
  ['python', 'OK', 11],
  ['cpp', 'OK', 11],
  ['python', 'WA', 4],
  ['cpp', 'WA', 4],
  ['python', 'RE', 4],
  ['cpp', 'RE', 4],
  ['python', 'TLE', 1],
  ['cpp', 'TLE', 1],
];
const CYCLE = MIX.flatMap(([language, kind, count]) => Array.from({ length: count }, () => ({ language, kind })));

/** A small deterministic generator (mulberry32), so every bench run judges the same items. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface GeneratedBench {
  /** io-tests task rows (polyeval's format), one line each. */
  tasks: string[];
  /** replay sample rows, one per item. */
  samples: string[];
  /** Expected sample verdicts. */
  expected: Record<AnswerKind, number>;
  /** Per item, what it is (for bare re-runs). */
  items: { language: BenchLanguage; kind: AnswerKind; tests: { input: string; output: string }[] }[];
}

export const BENCH_LANGUAGES: readonly BenchLanguage[] = ['python', 'cpp'];

/**
 * The languages a bench's items are in, from a comma-separated list (`BENCH_ROCODE_LANGUAGES`:
 * `python`, `cpp` or `python,cpp`; unset or empty: both, the default mix).
 * @throws Error naming `what` and the bad value when a name is not a bench language.
 */
export function parseBenchLanguages(value: string | undefined, what = 'BENCH_ROCODE_LANGUAGES'): BenchLanguage[] {
  if (value === undefined || value.trim() === '') return [...BENCH_LANGUAGES];
  const names = value.split(',').map((n) => n.trim());
  const bad = names.filter((n) => !BENCH_LANGUAGES.includes(n as BenchLanguage));
  if (bad.length > 0)
    throw new Error(
      `${what} must be a comma-separated list of ${BENCH_LANGUAGES.join(', ')}, got ${JSON.stringify(value)} (unknown: ${bad.map((b) => JSON.stringify(b)).join(', ')})`,
    );
  return BENCH_LANGUAGES.filter((l) => names.includes(l));
}

/**
 * `items` samples over `items / samplesPerTask` tasks, in the fixed mix; `languages` keeps only
 * those languages' answers (each language's own mix: 11 OK, 4 WA, 4 RE, 1 TLE in 20).
 */
export function generateRocodeBench(
  items: number,
  opts: { samplesPerTask?: number; seed?: number; timeLimitMs?: number; languages?: readonly BenchLanguage[] } = {},
): GeneratedBench {
  const perTask = opts.samplesPerTask ?? 4;
  const languages = opts.languages ?? BENCH_LANGUAGES;
  if (languages.length === 0) throw new Error('languages must name at least one bench language');
  const cycle = CYCLE.filter((c) => languages.includes(c.language));
  const next = random(opts.seed ?? 7);
  const tasks: string[] = [];
  const samples: string[] = [];
  const out: GeneratedBench['items'] = [];
  const expected: Record<AnswerKind, number> = { OK: 0, WA: 0, RE: 0, TLE: 0 };
  for (let t = 0; t * perTask < items; t++) {
    const id = `bench/suma-${String(t).padStart(5, '0')}`;
    const tests = [1, 2, 5, 10, 50].map((n) => {
      const xs = Array.from({ length: n }, () => Math.floor(next() * 2_000_001) - 1_000_000);
      return { input: `${n}\n${xs.join(' ')}\n`, output: `${xs.reduce((a, b) => a + b, 0)}\n` };
    });
    tasks.push(
      JSON.stringify({
        task_id: id,
        name: 'suma',
        statement: 'Se dau N numere întregi. Calculați suma lor.',
        input_spec: 'N, apoi N numere.',
        output_spec: 'Suma.',
        examples: [tests[0]],
        tests,
        time_limit_ms: opts.timeLimitMs ?? 1000,
        memory_limit_mb: 64,
        difficulty: 'easy',
        split: 'test',
        checker: null,
        solutions: { python: PROGRAMS.python.OK, cpp: PROGRAMS.cpp.OK },
      }),
    );
    for (let s = 0; s < perTask && t * perTask + s < items; s++) {
      const { language, kind } = cycle[(t * perTask + s) % cycle.length] as (typeof CYCLE)[number];
      samples.push(JSON.stringify({ task_id: id, completion: PROGRAMS[language][kind], language, sample: s }));
      expected[kind] += 1;
      out.push({ language, kind, tests });
    }
  }
  return { tasks, samples, expected, items: out };
}

/** The program of one language and kind (the bench runs them bare for comparison). */
export function benchProgram(language: BenchLanguage, kind: AnswerKind): string {
  return PROGRAMS[language][kind];
}
