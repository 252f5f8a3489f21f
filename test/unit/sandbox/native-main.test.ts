import { describe, expect, it } from 'vitest';
import { findNativeMain, maskNative } from '#sandbox/languages/native-main.ts';

// Hand-written test programs in each `main` form real C/C++ test files use.
const forms: [string, string, 0 | 2 | 3][] = [
  ['int main()', 'int main() {\n  return 0;\n}\n', 0],
  ['int main(void)', 'int main(void) { return 0; }\n', 0],
  ['int main(int argc, char* argv[])', 'int main(int argc, char* argv[]) {\n  return 0;\n}', 2],
  ['int main(int argc, char** argv)', 'int main(int argc, char **argv) { return 0; }', 2],
  ['main with envp', 'int main(int argc, char *argv[], char *envp[]) { return 0; }', 3],
  ['signed main()', 'signed main() { return 0; }', 0],
  ['auto main() -> int', 'auto main() -> int { return 0; }', 0],
  [
    'main after helper templates',
    'template <typename T> bool same(T a, T b) { return a == b; }\nstruct P { int main() { return 1; } };\nint main(int argc, char* argv[]) { return same(1, 1) ? 0 : 1; }\n',
    2,
  ],
];

describe('findNativeMain', () => {
  it.each(forms)('finds %s, its parameters and the brace closing its body', (_name, source, params) => {
    const found = findNativeMain(source);
    expect(found?.params).toBe(params);
    expect(source[found?.bodyEnd ?? -1]).toBe('}');
    expect(source.slice((found?.bodyEnd ?? 0) + 1).trim()).toBe('');
  });

  it('ignores braces and main inside comments, strings, characters and preprocessor lines', () => {
    const source = [
      '#define OPEN {',
      '// int main() { return 1; }',
      '/* int main() { */',
      'const char *s = "int main() { }";',
      "char c = '{';",
      "int x = 1'000;",
      'int main() {',
      '  const char *r = R"x(} main() {)x";',
      '  return 0;',
      '}',
      '',
    ].join('\n');
    const found = findNativeMain(source);
    expect(found?.params).toBe(0);
    expect(source.slice(found?.bodyEnd)).toBe('}\n');
  });

  it('skips declarations and calls of main before its definition', () => {
    const source = 'int main(int, char**);\nint helper() { return main(0, 0); }\nint main(int argc, char** argv) { return helper(); }';
    const found = findNativeMain(source);
    expect(found?.params).toBe(2);
    expect(found?.bodyEnd).toBe(source.length - 1);
  });

  it('finds nothing in a test without main', () => {
    expect(findNativeMain('int helper() { return 0; }')).toBeUndefined();
  });

  it('keeps offsets and newlines when masking', () => {
    const source = 'a /* b\n c */ "d" // e\nf';
    const masked = maskNative(source);
    expect(masked).toHaveLength(source.length);
    expect(masked.split('\n')).toHaveLength(3);
    expect(masked.replace(/\s/gu, '')).toBe('af');
  });
});
