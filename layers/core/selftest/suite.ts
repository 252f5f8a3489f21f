/**
 * The deployed self-test's suites (`polyeval remote selftest`): which bundled reference
 * suites reach which executor image, and the hostile suite as RoCode rows — one file per
 * language, each probe's program as that row's reference solution — so the `reference`
 * model submits every probe through the deployed judge and runner like any answer.
 * Only io-tests probes of RoCode's languages (Python, C, C++) travel this way: RoCode is the
 * one io-tests benchmark, and it asks for those three.
 */
import type { Verdict } from '../types.ts';
import { HOSTILE_CASES, type HostileCase, type Probe } from './hostile-programs.ts';

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

/** The languages whose hostile probes the self-test sends (RoCode's). */
export const SELFTEST_HOSTILE_LANGUAGES = ['python', 'c', 'cpp'] as const;
export type SelftestHostileLanguage = (typeof SELFTEST_HOSTILE_LANGUAGES)[number];

/** The bundled reference suite that reaches each language's image with the `reference` model. */
export const SELFTEST_REFERENCE_SUITES: readonly { benchmark: string; language: string }[] = [
  { benchmark: 'sample/rocode', language: 'python' },
  { benchmark: 'sample/rocode', language: 'c' },
  { benchmark: 'sample/rocode', language: 'cpp' },
  { benchmark: 'sample/kotlin-humaneval', language: 'kotlin' },
];

/** One hostile probe as the self-test judges it: its row's task id and the verdicts that mean "held". */
export interface HostileProbe {
  taskId: string;
  language: string;
  attack: string;
  held: readonly Verdict[];
}

const slug = (attack: string): string =>
  attack
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Row task id of an attack in a language, e.g. `selftest-hostile/c/fork-bomb`. */
export const probeTaskId = (language: string, attack: string): string => `selftest-hostile/${language}/${slug(attack)}`;

function ioCases(language: SelftestHostileLanguage): HostileCase[] {
  return HOSTILE_CASES.filter((c) => c.language === language && c.scorer === undefined);
}

/** The hostile probes the self-test sends, with what "held" means for each. */
export const HOSTILE_PROBES: readonly HostileProbe[] = SELFTEST_HOSTILE_LANGUAGES.flatMap((language) =>
  ioCases(language).map((c) => ({ taskId: probeTaskId(language, c.attack), language, attack: c.attack, held: c.verdicts })),
);

/**
 * The hostile suite of one language as RoCode JSONL rows: one `1 2` → `3` test (the expected
 * output of the read-the-expected-output probe is its marker), 128 MB, the probe as solution.
 * @example
 * hostileRocodeJsonl('python').split('\n')[0] // {"task_id":"selftest-hostile/python/fork-bomb",…}
 */
export function hostileRocodeJsonl(language: SelftestHostileLanguage, probe: Probe = DEPLOYED_PROBE): string {
  return ioCases(language)
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
