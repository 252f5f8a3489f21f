/**
 * The deployed self-test's suites (`polyeval remote selftest`): one reference suite and the
 * hostile suite for every executor image, all answered by the `reference` model so each
 * program passes through its language's deployed judge and runner like any answer.
 *
 * - Reference: the bundled `sample/rocode` (Python, C, C++) and `sample/kotlin-humaneval`
 *   (Kotlin); for Java and JavaScript, hand-made MXEval rows built here (reference-rows.ts).
 * - Hostile: a probe's program is the reference answer of a row whose test tells whether it
 *   was held. io probes of RoCode's languages (Python, C, C++) ride on RoCode rows (io-tests
 *   judge); those of Kotlin, Java and JavaScript, and every language's early exit, on MXEval
 *   rows (unit-tests judge, unit-probes.ts).
 */
import { EXECUTOR_IMAGES } from '../languages/index.ts';
import type { Verdict } from '../types.ts';
import { HOSTILE_CASES, type HostileCase, type HostileLanguage, type Probe } from './hostile-programs.ts';
import { JAVASCRIPT_REFERENCE_ROWS, JAVA_REFERENCE_ROWS } from './reference-rows.ts';
import { travelsAsUnitTest, unitProbeRows } from './unit-probes.ts';

/**
 * What a probe reaches for inside a deployed runner: the Lambda Runtime API on loopback
 * (127.0.0.1:9001, the address Lambda sets in AWS_LAMBDA_RUNTIME_API: Lambda docs, "Using
 * the Lambda runtime API for custom runtimes"), the credential variable Lambda sets in every
 * function's environment ("Defined runtime environment variables"), and paths outside the
 * item's directory (/tmp is shared with the runner; /var/task and /opt are the image's).
 */
export const DEPLOYED_PROBE: Probe = {
  port: 9001,
  secretName: 'AWS_SECRET_ACCESS_KEY',
  outside: ['/tmp/pe_selftest_evil', '/var/task/pe_selftest_evil', '/opt/pe_selftest_evil'],
};

/** The languages whose io probes ride on RoCode rows (the languages RoCode asks for). */
export const ROCODE_PROBE_LANGUAGES = ['python', 'c', 'cpp'] as const;
export type RocodeProbeLanguage = (typeof ROCODE_PROBE_LANGUAGES)[number];

/** Every language the hostile suite has probes in, in the language registry's order. */
const HOSTILE_LANGUAGES: readonly HostileLanguage[] = EXECUTOR_IMAGES.flatMap((image) =>
  image.languages.filter((l): l is HostileLanguage => HOSTILE_CASES.some((c) => c.language === l)),
);

/**
 * One hostile probe as the self-test judges it: its row's task id, the judge it goes through
 * (`io-tests`: a RoCode row; `unit-tests`: an MXEval row) and the verdicts that mean "held" —
 * the same as the local sandbox tests expect of the program, since an MXEval row's test passes
 * exactly when the program would have printed the io test's `3` (probe-harness.ts).
 */
export interface HostileProbe {
  taskId: string;
  language: string;
  attack: string;
  held: readonly Verdict[];
  scorer: 'io-tests' | 'unit-tests';
}

/** One run of the self-test: a suite in one language, bundled or built here as JSONL rows. */
export interface SelftestSuite {
  role: 'reference' | 'hostile';
  language: string;
  /** A bundled suite (`sample/<name>`), or the benchmark id `rows` are read as. */
  benchmark: string;
  /** Rows built in code: stored under `file` and run as `<benchmark>:<location>`. */
  rows?: { file: string; text: string };
  /** Each row's own limits (the RoCode probes' 1 s, 4 s for memory bombs), not the protocol's. */
  rowLimits?: boolean;
}

const slug = (attack: string): string =>
  attack
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Row task id of an attack in a language, e.g. `selftest-hostile/c/fork-bomb`. */
export const probeTaskId = (language: string, attack: string): string => `selftest-hostile/${language}/${slug(attack)}`;

const isRocodeLanguage = (language: string): language is RocodeProbeLanguage => (ROCODE_PROBE_LANGUAGES as readonly string[]).includes(language);

/** The io probes of a RoCode language (its early exit needs a unit test: it travels as an MXEval row). */
function rocodeCases(language: RocodeProbeLanguage): HostileCase[] {
  return HOSTILE_CASES.filter((c) => c.language === language && c.scorer === undefined);
}

/** The hostile probes the self-test sends, with the judge each goes through and what "held" means for it. */
export const HOSTILE_PROBES: readonly HostileProbe[] = HOSTILE_LANGUAGES.flatMap((language) => {
  const probe = (c: HostileCase, scorer: HostileProbe['scorer']): HostileProbe => ({
    taskId: probeTaskId(language, c.attack),
    language,
    attack: c.attack,
    held: c.verdicts,
    scorer,
  });
  const io = isRocodeLanguage(language) ? rocodeCases(language).map((c) => probe(c, 'io-tests')) : [];
  const unit = HOSTILE_CASES.filter((c) => c.language === language && travelsAsUnitTest(c)).map((c) => probe(c, 'unit-tests'));
  return [...io, ...unit];
});

/**
 * The hostile suite of one RoCode language as RoCode JSONL rows: one `1 2` → `3` test (the expected
 * output of the read-the-expected-output probe is its marker), 128 MB, the probe as solution.
 * @example
 * hostileRocodeJsonl('python').split('\n')[0] // {"task_id":"selftest-hostile/python/fork-bomb",…}
 */
export function hostileRocodeJsonl(language: RocodeProbeLanguage, probe: Probe = DEPLOYED_PROBE): string {
  return rocodeCases(language)
    .map((c) =>
      JSON.stringify({
        task_id: probeTaskId(language, c.attack),
        name: slug(c.attack).replaceAll('-', '_'),
        statement: `Self-test probe: ${c.attack}. Read two integers and print their sum.`,
        input_spec: 'Two integers a and b on one line.',
        output_spec: 'Their sum.',
        tests: [{ input: '1 2\n', output: c.attack === 'reading the expected output' ? 'EXPECTED_SECRET\n' : '3\n' }],
        time_limit_ms: c.timeLimitMs ?? 1000,
        memory_limit_mb: 128,
        solutions: { [language]: c.code(probe) },
      }),
    )
    .join('\n')
    .concat('\n');
}

/**
 * The probes of one language that travel as MXEval JSONL rows (none: an empty string).
 * @example
 * hostileMxevalJsonl('kotlin').split('\n')[0] // {"task_id":"selftest-hostile/kotlin/infinite-loop",…}
 */
export function hostileMxevalJsonl(language: HostileLanguage, probe: Probe = DEPLOYED_PROBE): string {
  return unitProbeRows(language, probe, (attack) => probeTaskId(language, attack))
    .map((r) => `${JSON.stringify(r.row)}\n`)
    .join('');
}

const jsonl = (rows: readonly object[]): string => rows.map((r) => `${JSON.stringify(r)}\n`).join('');

/** The reference suite that reaches each language's image with the `reference` model. */
const REFERENCE_SUITES: readonly SelftestSuite[] = [
  { role: 'reference', language: 'python', benchmark: 'sample/rocode' },
  { role: 'reference', language: 'c', benchmark: 'sample/rocode' },
  { role: 'reference', language: 'cpp', benchmark: 'sample/rocode' },
  { role: 'reference', language: 'kotlin', benchmark: 'sample/kotlin-humaneval' },
  { role: 'reference', language: 'java', benchmark: 'mxeval', rows: { file: 'reference-java.jsonl', text: jsonl(JAVA_REFERENCE_ROWS) } },
  { role: 'reference', language: 'javascript', benchmark: 'mxeval', rows: { file: 'reference-javascript.jsonl', text: jsonl(JAVASCRIPT_REFERENCE_ROWS) } },
];

/**
 * Every run of a self-test, references first, then per language its RoCode probes and its
 * MXEval probes.
 * @example
 * selftestSuites().filter((s) => s.language === 'java').map((s) => `${s.role} ${s.benchmark}`) // ['reference mxeval', 'hostile mxeval']
 */
export function selftestSuites(probe: Probe = DEPLOYED_PROBE): SelftestSuite[] {
  const hostile = HOSTILE_LANGUAGES.flatMap((language): SelftestSuite[] => {
    const rocodeRows: SelftestSuite[] = isRocodeLanguage(language)
      ? [
          {
            role: 'hostile',
            language,
            benchmark: 'rocode',
            rows: { file: `hostile-${language}.jsonl`, text: hostileRocodeJsonl(language, probe) },
            rowLimits: true,
          },
        ]
      : [];
    const text = hostileMxevalJsonl(language, probe);
    const mxevalRows: SelftestSuite[] =
      text === '' ? [] : [{ role: 'hostile', language, benchmark: 'mxeval', rows: { file: `hostile-mxeval-${language}.jsonl`, text } }];
    return [...rocodeRows, ...mxevalRows];
  });
  return [...REFERENCE_SUITES, ...hostile];
}

/** The languages a self-test can be asked for: every one some suite reaches. */
export const SELFTEST_LANGUAGES: readonly string[] = [...new Set(selftestSuites().map((s) => s.language))];
