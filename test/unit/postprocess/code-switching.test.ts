import { describe, expect, it } from 'vitest';
import { codeSwitchingByKind, codeSwitchingShare, declarationsOf, identifiersOf, splitIdentifier } from '../../../layers/core/benchmarks/code-switching.ts';
import { CODE_SWITCHING_METRICS, codeSwitchingRows, humanCodeSwitchingRows } from '../../../layers/core/benchmarks/code-switching-rows.ts';

describe('splitIdentifier', () => {
  it.each([
    ['descompunereNumar', ['descompunere', 'numar']],
    ['RezolvareDistantaMinima', ['rezolvare', 'distanta', 'minima']],
    ['deja_castigat', ['deja', 'castigat']],
    ['MAX_VALOARE', ['max', 'valoare']],
    ['parseHTTPRequest', ['parse', 'http', 'request']],
    ['dist2d', ['dist', '2', 'd']],
    ['_privat', ['privat']],
  ])('splits %s', (id, parts) => {
    expect(splitIdentifier(id)).toEqual(parts);
  });
});

describe('identifiersOf', () => {
  it('finds Python functions, parameters, assignment, loop and with targets', () => {
    const code = [
      'import heapq as hq',
      'from math import sqrt',
      'def rezolva(numere, limita=10):',
      '    suma, maxim = 0, 0',
      '    for idx, val in enumerate(numere):',
      '        suma += val',
      '    return suma',
      'with open("a.in") as fin:',
      '    date = fin.read()  # total = 3',
      'mesaj = "x = 1"',
      'hq.heappush([], 1)',
      'print(rezolva([1]))',
    ].join('\n');
    expect(identifiersOf(code, 'python')).toEqual(['rezolva', 'numere', 'limita', 'idx', 'val', 'fin', 'suma', 'maxim', 'date', 'mesaj']);
  });

  it('finds C and C++ declarations and skips calls, keywords and library names', () => {
    const code = [
      '#include <bits/stdc++.h>',
      'using namespace std;',
      'struct Punct { int x, y; };',
      'long long calculeaza(const vector<int> &valori, int n) {',
      '    long long total = 0, *p = nullptr;',
      '    for (auto &v : valori) total += v;',
      '    auto [a, b] = make_pair(1, 2);',
      '    return total; // int ascuns;',
      '}',
      'int main() {',
      '    Punct origine{0, 0};',
      '    printf("%d", calculeaza({}, 0));',
      '    size_t poz = string::npos;',
      '}',
    ].join('\n');
    expect(identifiersOf(code, 'cpp')).toEqual(['x', 'y', 'calculeaza', 'valori', 'n', 'total', 'p', 'v', 'a', 'b', 'origine', 'poz']);
  });

  it('finds Kotlin functions, parameters, val/var, loop variables and lambda parameters', () => {
    const code = [
      'fun numaraVocale(text: String, extra: Int = 0): Int {',
      '    var total = extra',
      '    val (prima, ultima) = Pair(1, 2)',
      '    for (litera in text) { if (litera in "aeiou") total++ }',
      '    text.forEach { ch -> println(ch) }',
      '    val s = "val ascuns = 1" // var tot = 2',
      '    return total',
      '}',
    ].join('\n');
    expect(identifiersOf(code, 'kotlin')).toEqual(['numaraVocale', 'text', 'extra', 'total', 'prima', 'ultima', 's', 'litera', 'ch']);
  });
});

describe('codeSwitchingShare', () => {
  const romanian = new Set(['suma', 'numar', 'rezultat', 'citeste']);
  const isRomanian = (w: string): boolean => romanian.has(w);

  it('counts distinct identifiers per program with a Romanian part of at least 3 letters', () => {
    const programs = ['suma = 0\nnumarCurent = 1\ntotal = 2\nsuma = 3\n', 'def citeste_date():\n    x = 1\n    return x\n'];
    expect(codeSwitchingShare(programs, 'python', isRomanian)).toEqual({ share: 3 / 5, identifiers: 5, romanian: 3 });
  });

  it('ignores parts shorter than three letters', () => {
    const shortWords = (w: string): boolean => w === 'nr' || w === 'i';
    expect(codeSwitchingShare(['nr_i = 1\n'], 'python', shortWords)).toEqual({ share: 0, identifiers: 1, romanian: 0 });
  });

  it('reports the share as absent when no identifier is declared', () => {
    expect(codeSwitchingShare(['print(1)\n'], 'python', isRomanian)).toEqual({ share: null, identifiers: 0, romanian: 0 });
  });
});

describe('function names and variable names apart (RoCode paper, Figure 2)', () => {
  const romanian = new Set(['suma', 'numar', 'rezolva', 'citeste', 'valori', 'total', 'rezultat']);
  const isRomanian = (w: string): boolean => romanian.has(w);

  it.each([
    ['python', 'def rezolva(valori):\n    total = 0\n    return total\ndef helper(x):\n    return x\n', ['rezolva', 'helper'], ['valori', 'x', 'total']],
    [
      'cpp',
      'int citeste(int n);\nlong long suma(const vector<int>& v) { long long total = 0; vector<int> rezultat(5); return total; }\nint main() { int k = citeste(3); }\n',
      ['citeste', 'suma'],
      ['n', 'v', 'total', 'rezultat', 'k'],
    ],
    ['kotlin', 'fun numarPar(n: Int): Boolean {\n    val rest = n % 2\n    return rest == 0\n}\n', ['numarPar'], ['n', 'rest']],
  ])('tells %s function declarations from variables and parameters', (language, code, functions, variables) => {
    const declared = declarationsOf(code, language);
    expect(declared.filter((d) => d.kind === 'function').map((d) => d.name)).toEqual(functions);
    expect(declared.filter((d) => d.kind === 'variable').map((d) => d.name)).toEqual(variables);
  });

  it('gives a share per kind whose pooled counts equal codeSwitchingShare', () => {
    const programs = ['def rezolva(valori):\n    total = 0\n    return total\ndef helper(x):\n    return x\n'];
    const byKind = codeSwitchingByKind(programs, 'python', isRomanian);
    expect(byKind.functions).toEqual({ share: 1 / 2, identifiers: 2, romanian: 1 });
    expect(byKind.variables).toEqual({ share: 2 / 3, identifiers: 3, romanian: 2 });
    expect(byKind.all).toEqual(codeSwitchingShare(programs, 'python', isRomanian));
  });

  it('reports code_switching_functions and code_switching_variables beside the pooled share, for generated and reference code', () => {
    const record = { verdict: 'OK', answer: 'def rezolva(a):\n    b = a\n    return b\n' } as never;
    const rows = codeSwitchingRows({
      records: [record],
      references: ['x = 1\n'],
      language: 'python',
      isRomanian,
      head: { run_id: 'r', benchmark: 'rocode', model: 'm' },
      seed: 1,
      iterations: 50,
    });
    const byMetric = Object.fromEntries(rows.map((r) => [r.metric, r]));
    expect(Object.keys(byMetric)).toEqual([
      'code_switching',
      'code_switching_functions',
      'code_switching_variables',
      'code_switching_reference',
      'code_switching_functions_reference',
      'code_switching_variables_reference',
    ]);
    expect(byMetric.code_switching?.value).toBeCloseTo(1 / 3, 12);
    expect(byMetric.code_switching_functions?.value).toBe(1);
    expect(byMetric.code_switching_variables?.value).toBe(0);
    expect(byMetric.code_switching_functions_reference).toMatchObject({ value: null, reason: 'no declared functions' });
    expect(byMetric.code_switching_variables_reference?.value).toBe(0);
  });

  it('takes the human baseline from C and C++ solutions only, never the machine-transpiled Python, per difficulty too', () => {
    const rows = humanCodeSwitchingRows({
      programs: [
        { code: 'int suma(int a) { int total = a; return total; }\n', language: 'c', difficulty: 'easy' },
        { code: 'int f(int x) { return x; }\n', language: 'cpp', difficulty: 'hard' },
        { code: 'def rezolva(valori):\n    return valori\n', language: 'python', difficulty: 'easy' },
      ],
      isRomanian,
      head: { run_id: 'r', benchmark: 'rocode', model: 'm' },
      seed: 1,
      iterations: 50,
    });
    const get = (metric: string, slice: string) => rows.find((r) => r.metric === metric && r.slice === slice);
    // c: suma (function, Romanian), a, total (variables; total is Romanian); cpp: f, x. Python left out.
    expect(get('code_switching_human', 'language=c+cpp')).toMatchObject({ value: 2 / 5, n: 2 });
    expect(get('code_switching_functions_human', 'language=c+cpp')?.value).toBe(1 / 2);
    expect(get('code_switching_variables_human', 'language=c+cpp')?.value).toBeCloseTo(1 / 3, 12);
    expect(get('code_switching_human', 'language=c+cpp,difficulty=easy')).toMatchObject({ value: 2 / 3, n: 1 });
    expect(get('code_switching_human', 'language=c+cpp,difficulty=hard')).toMatchObject({ value: 0, n: 1 });
  });

  it("draws every interval with the run's bootstrap iterations, generated and human alike", () => {
    const tasks = [{ id: 't', difficulty: 'easy', solutions: { c: 'int suma;\n', cpp: 'int x;\n' } }] as never;
    const records = [
      { verdict: 'OK', answer: 'numar = 1\n', language: 'python', difficulty: 'easy' },
      { verdict: 'WA', answer: 'y = 1\n', language: 'python', difficulty: 'easy' },
    ] as never;

    const rows = CODE_SWITCHING_METRICS.compute(
      { records, tasks, head: { run_id: 'r', benchmark: 'rocode', model: 'm' }, seed: 1, iterations: 1 },
      { 'romanian-lexicon': { isRomanian } },
    );

    // One resample: its value is both ends of the interval (1,000 resamples of {1, 0} would span [0, 1]).
    const drawn = rows.filter((r) => r.value !== null);
    expect(drawn.map((r) => r.metric)).toEqual(expect.arrayContaining(['code_switching', 'code_switching_human']));
    for (const row of drawn) expect(row.ci_low).toBe(row.ci_high);
  });

  it('declares every id it computes, generated per difficulty beside the human baseline', () => {
    const task = { id: 't', difficulty: 'easy', solutions: { c: 'int suma;\n', python: 'suma = 0\n' } } as never;
    const record = { verdict: 'OK', answer: 'numar = 1\n', language: 'python', difficulty: 'easy' } as never;
    const rows = CODE_SWITCHING_METRICS.compute(
      { records: [record], tasks: [task], head: { run_id: 'r', benchmark: 'rocode', model: 'm' }, seed: 1 },
      { 'romanian-lexicon': { isRomanian } },
    );
    expect(rows.every((r) => CODE_SWITCHING_METRICS.ids.includes(r.metric))).toBe(true);
    expect(rows.find((r) => r.metric === 'code_switching' && r.slice === 'language=python,difficulty=easy')?.value).toBe(1);
    expect(rows.find((r) => r.metric === 'code_switching_human' && r.slice === 'language=c+cpp')?.value).toBe(1);
  });
});
