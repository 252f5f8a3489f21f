// Issue 35: `BENCH_ROCODE_LANGUAGES=python npm run bench rocode-scale` measures the local CLI on one
// language's answers (the rate sim/cloud/cost-line.ts prices a one-language simulated run against),
// in the same verdict mix as the default half-Python, half-C++ set.
import { describe, expect, it } from 'vitest';
import { generateRocodeBench, parseBenchLanguages } from '../../../sim/rocode-generator.ts';

describe('the rocode-scale bench’s language choice', () => {
  it('is both languages unless BENCH_ROCODE_LANGUAGES names some', () => {
    expect(parseBenchLanguages(undefined)).toEqual(['python', 'cpp']);
    expect(parseBenchLanguages('')).toEqual(['python', 'cpp']);
    expect(parseBenchLanguages('python')).toEqual(['python']);
    expect(parseBenchLanguages(' cpp ')).toEqual(['cpp']);
    expect(parseBenchLanguages('cpp,python')).toEqual(['python', 'cpp']);
  });

  it('refuses a name that is not a bench language, naming the variable and the bad name', () => {
    expect(() => parseBenchLanguages('kotlin')).toThrow(
      /BENCH_ROCODE_LANGUAGES must be a comma-separated list of python, cpp, got "kotlin" \(unknown: "kotlin"\)/,
    );
    expect(() => parseBenchLanguages('python,c++')).toThrow(/unknown: "c\+\+"/);
    expect(() => parseBenchLanguages('python,')).toThrow(/unknown: ""/);
  });

  it('generates one language’s answers in the default set’s verdict mix (5 % TLE)', () => {
    const both = generateRocodeBench(2000);
    const python = generateRocodeBench(2000, { languages: ['python'] });

    expect(new Set(python.items.map((i) => i.language))).toEqual(new Set(['python']));
    expect(python.samples.every((s) => (JSON.parse(s) as { language: string }).language === 'python')).toBe(true);
    expect(python.expected).toEqual(both.expected);
    expect(python.expected).toEqual({ OK: 1100, WA: 400, RE: 400, TLE: 100 });
    // The default is unchanged: half of each language.
    expect(both.items.filter((i) => i.language === 'python')).toHaveLength(1000);
  });
});
