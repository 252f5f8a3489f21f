/**
 * Java in MXEval's format (MBJP, HumanEval-Java): the prompt is imports, a class and a
 * static method's Javadoc and signature, ending inside the method body; the completion
 * closes the method and the class; the test is a `class Main` whose `main(String[] args)`
 * throws on the first wrong result.
 */
import { closeBlocks, dropRepeatedSignature, openBraces } from './brace-blocks.ts';
import { C_KEYWORDS, cDeclarations } from './identifiers.ts';
import { BRACE_STOPS, type LanguageSpec } from './spec.ts';

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

/** Java's spec. */
export const javaSpec: LanguageSpec = {
  id: 'java',
  aliases: ['java', 'java8', 'java11', 'java17', 'java21', 'openjdk'],
  fenceTags: ['java'],
  codeStart:
    /^\s*(import\s|package\s|public\s|private\s|protected\s|static\s|final\s|class\s|interface\s|enum\s|record\s|int\s|long\s|double\s|boolean\s|String\s|List<|Map<|return\b|if\s*\(|for\s*\(|while\s*\(|@)/u,
  mxevalPrefixes: ['MBJP', 'HumanEval_java', 'HumanEval-java'],
  stops: BRACE_STOPS,
  cleanCompletion(code, task) {
    const name = escape(task.entryPoint);
    // `static int minCost(List<List<Integer>> cost, int m, int n) {` (modifiers, generics, arrays).
    const signature = new RegExp(
      `^\\s*(?!return\\b|throw\\b|new\\b)(?:(?:public|private|protected|static|final|synchronized)\\s+)*(?:<[^>]*>\\s*)?[\\w$<>,.?\\[\\]\\s]+\\s${name}\\s*\\(`,
      'u',
    );
    const before = /^\s*(import\s[^;]*;|package\s[^;]*;|@\w+.*|(?:(?:public|final|abstract)\s+)*class\s+\w+[^{]*\{)\s*$/u;
    const body = dropRepeatedSignature(
      code,
      (l) => signature.test(l),
      (l) => before.test(l),
    );
    return closeBlocks(body, openBraces(task.prompt));
  },
  declarations: cDeclarations,
  keywords: C_KEYWORDS,
  executor: { image: 'java', memoryMb: 3072 },
};
