// How the Java and JavaScript runtimes assemble a unit-test program: prompt + completion +
// test, then an epilogue that runs the test to its end and only then prints the token
// (argv's last element). Every entry form a Java test can declare is found.
import { describe, expect, it } from 'vitest';
import { javaFileName, javaMainClass, javaMainPath, javaRuntime } from '#sandbox/languages/java.ts';
import { javascriptRuntime } from '#sandbox/languages/javascript.ts';

const source = (test: string) => ({
  language: 'java',
  prompt: 'class Dublu {\n    static int dublu(int n) {\n',
  completion: '        return 2 * n;\n    }\n}',
  test,
  entryPoint: 'dublu',
});

describe('Java entry forms', () => {
  it.each([
    ['public static void main(String[] args)', 'class Main {\n    public static void main(String[] args) throws Exception { }\n}', ['Main']],
    ['String... args', 'class Main {\n    public static void main(String... args) { }\n}', ['Main']],
    ['String args[]', 'class Main {\n    public static void main(String args[]) { }\n}', ['Main']],
    ['static public final', 'class Main {\n    static public void main(final String[] args) { }\n}', ['Main']],
    ['a test class with another name', 'public class Teste {\n    public static void main(String[] args) { }\n}', ['Teste']],
    [
      'a nested helper class before main',
      'class Main {\n    static class Pereche { int a; }\n    public static void main(String[] args) { new Pereche(); }\n}',
      ['Main'],
    ],
    ['main in a nested class', 'class Teste {\n    static class Interne {\n        public static void main(String[] args) { }\n    }\n}', ['Teste', 'Interne']],
    [
      'a main mentioned in a comment and a string first',
      'class Main {\n    // static void main(String[] a) in Fals\n    static String s = "class Fals { static void main(";\n    public static void main(String[] args) { }\n}',
      ['Main'],
    ],
  ])('finds the test class of %s', (_form, test, path) => {
    expect(javaMainPath(test)).toEqual(path);
  });

  it('calls the test main without arguments, then prints the token, after the test', () => {
    const program = javaRuntime.unitTestProgram(
      source(
        '\n\nclass Main {\n    public static void main(String[] args) throws Exception {\n        if (Dublu.dublu(2) != 4) throw new Exception("2");\n    }\n}\n',
      ),
    );
    expect(program.startsWith('class Dublu {\n    static int dublu(int n) {\n        return 2 * n;\n    }\n}\n\n\nclass Main {')).toBe(true);
    const entry = program.slice(program.indexOf('final class PolyevalEntry'));
    expect(entry).toContain('Main.main(new String[0]);\n        System.out.println(args[args.length - 1]);');
    expect(program.indexOf('PolyevalEntry')).toBeGreaterThan(program.indexOf('throw new Exception("2")'));
    expect(javaMainClass(program)).toBe('PolyevalEntry');
  });

  it('calls a nested test class by its source name', () => {
    const program = javaRuntime.unitTestProgram(
      source('class Teste {\n    static class Interne {\n        public static void main(String[] args) { }\n    }\n}\n'),
    );
    expect(program).toContain('Teste.Interne.main(new String[0]);');
  });

  it('runs a whole program by the binary name of the class declaring main', () => {
    expect(javaMainClass('import java.util.*;\n\npublic class Solutie {\n    public static void main(String[] args) { }\n}\n')).toBe('Solutie');
    expect(javaMainClass('class A {\n    static class B {\n        public static void main(String[] args) { }\n    }\n}\n')).toBe('A$B');
  });

  it('compiles a top-level public class under its own file name, and anything else as Main.java', () => {
    expect(javaFileName('public class Solutie {\n}\n')).toBe('Solutie.java');
    expect(javaFileName('public final class Solutie {\n}\n')).toBe('Solutie.java');
    expect(javaFileName('class Dublu {\n    public class Interna { }\n}\nclass Main { }\n')).toBe('Main.java');
    expect(javaFileName('// public class Comentariu\nclass Main { }\n')).toBe('Main.java');
  });
});

describe('JavaScript assembly', () => {
  it("prints the token after the test's last statement", () => {
    const program = javascriptRuntime.unitTestProgram({
      language: 'javascript',
      prompt: 'function dublu(n) {\n',
      completion: '  return 2 * n;\n}',
      test: '\nif (dublu(2) !== 4) throw "2"\n',
      entryPoint: 'dublu',
    });
    expect(program).toBe(
      'function dublu(n) {\n  return 2 * n;\n}\n\nif (dublu(2) !== 4) throw "2"\n\n;\nconsole.log(process.argv[process.argv.length - 1]);\n',
    );
  });
});
