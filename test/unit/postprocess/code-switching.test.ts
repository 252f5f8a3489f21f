import { describe, expect, it } from 'vitest';
import { codeSwitchingShare, identifiersOf, splitIdentifier } from '../../../layers/core/benchmarks/code-switching.ts';

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
      'import heapq as hq', 'from math import sqrt',
      'def rezolva(numere, limita=10):', '    suma, maxim = 0, 0',
      '    for idx, val in enumerate(numere):', '        suma += val', '    return suma',
      'with open("a.in") as fin:', '    date = fin.read()  # total = 3',
      'mesaj = "x = 1"', 'hq.heappush([], 1)', 'print(rezolva([1]))',
    ].join('\n');
    expect(identifiersOf(code, 'python')).toEqual(['rezolva', 'numere', 'limita', 'idx', 'val', 'fin', 'suma', 'maxim', 'date', 'mesaj']);
  });

  it('finds C and C++ declarations and skips calls, keywords and library names', () => {
    const code = [
      '#include <bits/stdc++.h>', 'using namespace std;', 'struct Punct { int x, y; };',
      'long long calculeaza(const vector<int> &valori, int n) {', '    long long total = 0, *p = nullptr;',
      '    for (auto &v : valori) total += v;', '    auto [a, b] = make_pair(1, 2);', '    return total; // int ascuns;',
      '}', 'int main() {', '    Punct origine{0, 0};', '    printf("%d", calculeaza({}, 0));', '    size_t poz = string::npos;', '}',
    ].join('\n');
    expect(identifiersOf(code, 'cpp')).toEqual(['x', 'y', 'calculeaza', 'valori', 'n', 'total', 'p', 'v', 'a', 'b', 'origine', 'poz']);
  });

  it('finds Kotlin functions, parameters, val/var, loop variables and lambda parameters', () => {
    const code = [
      'fun numaraVocale(text: String, extra: Int = 0): Int {', '    var total = extra',
      '    val (prima, ultima) = Pair(1, 2)', '    for (litera in text) { if (litera in "aeiou") total++ }',
      '    text.forEach { ch -> println(ch) }', '    val s = "val ascuns = 1" // var tot = 2', '    return total', '}',
    ].join('\n');
    expect(identifiersOf(code, 'kotlin')).toEqual(['numaraVocale', 'text', 'extra', 'total', 'prima', 'ultima', 's', 'litera', 'ch']);
  });
});

describe('codeSwitchingShare', () => {
  const romanian = new Set(['suma', 'numar', 'rezultat', 'citeste']);
  const isRomanian = (w: string): boolean => romanian.has(w);

  it('counts distinct identifiers per program with a Romanian part of at least 3 letters', () => {
    const programs = [
      'suma = 0\nnumarCurent = 1\ntotal = 2\nsuma = 3\n',
      'def citeste_date():\n    x = 1\n    return x\n',
    ];
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
