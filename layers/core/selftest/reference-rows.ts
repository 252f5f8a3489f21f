/**
 * The self-test's reference suites for the images no bundled suite reaches (Java, JavaScript):
 * a few hand-made tasks in MXEval's format (a class and a static method's Javadoc and
 * signature, MBJP's shape; a JSDoc comment and `function name(…) {`, MBJSP's, with lodash in
 * the test as MBJSP's tests use it), read by the `mxeval` benchmark. The `reference` model
 * must pass every one: a failure is the image's toolchain, not a model.
 */

/** One MXEval row (the published columns). */
export interface ReferenceRow {
  task_id: string;
  language: string;
  prompt: string;
  entry_point: string;
  canonical_solution: string;
  test: string;
  description: string;
}

const javaRow = (name: string, doc: string, signature: string, body: string, checks: string[]): ReferenceRow => ({
  task_id: `selftest-reference/java/${name}`,
  language: 'java',
  prompt: `import java.util.*;\n\nclass Problem {\n    /**\n     * ${doc}\n     */\n    public static ${signature} {\n`,
  entry_point: name,
  canonical_solution: `${body}\n    }\n}\n`,
  test: `class Main {\n    public static void main(String[] args) throws Exception {\n${checks.map((c) => `        if (!(${c})) throw new Exception(${JSON.stringify(c)});`).join('\n')}\n    }\n}\n`,
  description: doc,
});

const jsRow = (name: string, doc: string, signature: string, body: string, checks: string[]): ReferenceRow => ({
  task_id: `selftest-reference/javascript/${name}`,
  language: 'javascript',
  prompt: `/**\n * ${doc}\n */\nfunction ${signature} {\n`,
  entry_point: name,
  canonical_solution: `${body}\n}\n`,
  test: `const _ = require("lodash");\n${checks.map((c) => `if (!(${c})) throw new Error(${JSON.stringify(c)});`).join('\n')}\n`,
  description: doc,
});

/** Java: digit sums, Romanian vowels, a word list reversed. */
export const JAVA_REFERENCE_ROWS: readonly ReferenceRow[] = [
  javaRow(
    'sumaCifrelor',
    'Suma cifrelor numarului natural n (0 pentru n = 0).',
    'int sumaCifrelor(int n)',
    '        int s = 0;\n        while (n > 0) { s += n % 10; n /= 10; }\n        return s;',
    ['Problem.sumaCifrelor(0) == 0', 'Problem.sumaCifrelor(2026) == 10', 'Problem.sumaCifrelor(99999) == 45'],
  ),
  javaRow(
    'numaraVocale',
    'Cate vocale (a, e, i, o, u, ă, â, î) are textul, fara sa conteze majusculele.',
    'int numaraVocale(String text)',
    '        int count = 0;\n        for (char c : text.toLowerCase().toCharArray()) if ("aeiouăâî".indexOf(c) >= 0) count++;\n        return count;',
    ['Problem.numaraVocale("") == 0', 'Problem.numaraVocale("Ană are mere") == 6', 'Problem.numaraVocale("Înger") == 2'],
  ),
  javaRow(
    'inverseazaCuvintele',
    'Cuvintele textului (separate prin spatii) in ordine inversa.',
    'List<String> inverseazaCuvintele(String text)',
    '        List<String> words = new ArrayList<>();\n        for (String w : text.trim().split("\\\\s+")) if (!w.isEmpty()) words.add(w);\n        Collections.reverse(words);\n        return words;',
    ['Problem.inverseazaCuvintele("  ").isEmpty()', 'Problem.inverseazaCuvintele("la multi ani").equals(Arrays.asList("ani", "multi", "la"))'],
  ),
];

/** JavaScript: even sums, Italian words counted, initials grouped with lodash. */
export const JAVASCRIPT_REFERENCE_ROWS: readonly ReferenceRow[] = [
  jsRow(
    'sommaPari',
    'La somma dei numeri pari della lista (0 se non ce ne sono).',
    'sommaPari(numeri)',
    '  return numeri.filter((x) => x % 2 === 0).reduce((a, b) => a + b, 0);',
    ['sommaPari([]) === 0', 'sommaPari([1, 2, 3, 4]) === 6', 'sommaPari([-2, 7]) === -2'],
  ),
  jsRow(
    'contaParole',
    'Quante volte compare ogni parola della frase, senza distinguere maiuscole e minuscole.',
    'contaParole(frase)',
    '  const conta = {};\n  for (const parola of frase.toLowerCase().split(/\\s+/).filter(Boolean)) conta[parola] = (conta[parola] || 0) + 1;\n  return conta;',
    ['_.isEqual(contaParole(""), {})', '_.isEqual(contaParole("Ciao ciao bella"), { ciao: 2, bella: 1 })'],
  ),
  jsRow(
    'perIniziale',
    'Le parole raggruppate per iniziale minuscola, in ordine di apparizione.',
    'perIniziale(parole)',
    '  const gruppi = {};\n  for (const p of parole) (gruppi[p[0].toLowerCase()] ??= []).push(p);\n  return gruppi;',
    ['_.isEqual(perIniziale(["Roma", "rana", "Milano"]), { r: ["Roma", "rana"], m: ["Milano"] })', '_.isEqual(perIniziale([]), {})'],
  ),
];
