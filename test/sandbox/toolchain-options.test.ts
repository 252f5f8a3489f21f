// Toolchain options travel with each job (issue 14): two Kotlin jobs with different language
// versions run at once through one executor, and each compiles with its own. The source uses
// multi-dollar string interpolation (`$$"…"`), a Kotlin 2.2 feature: under
// `-language-version 2.0` it does not compile, under 2.2 it does. Both jobs carry the same
// source, so a compile cache that ignored the option would hand one job the other's build.
import { describe, expect, it } from 'vitest';
import type { ExecutionJob } from '#core/ports.ts';
import { sandboxSuite, unitTask } from './helpers.ts';

const suite = sandboxSuite('toolchain-options', { concurrency: 2 });

const test = 'fun main() {\n    if (price(3) != "$3") throw AssertionError(price(3))\n}\n';
const completion = 'fun price(n: Int): String = $$"$$$n"\n';

const job = (languageVersion: string): ExecutionJob => ({
  scorer: 'unit-tests',
  task: unitTask('kotlin', test, 'price'),
  language: 'kotlin',
  code: completion,
  toolchain: { languageVersion },
});

describe('toolchain options per job', () => {
  it('compiles two concurrent Kotlin jobs each with its own language version', async () => {
    const [old, current] = await Promise.all([suite.executor.execute(job('2.0')), suite.executor.execute(job('2.2'))]);

    expect(old.verdict).toBe('CE');
    expect(old.error).toMatch(/language version|2\.2/u);
    expect(current).toMatchObject({ verdict: 'OK', testsPassed: 1 });
  }, 600_000);

  it('keeps the option out of later jobs: the same source compiles again without it', async () => {
    await suite.executor.execute(job('2.0'));

    const plain = await suite.executor.execute({ ...job('2.0'), toolchain: {} });

    expect(plain.verdict).toBe('OK');
  }, 600_000);

  it('records the flags an option becomes only for the toolchains asked with it', async () => {
    const withVersion = await suite.executor.toolchains({ kotlin: { languageVersion: '2.0' } });
    const without = await suite.executor.toolchains();

    expect(withVersion.find((t) => t.language === 'kotlin')?.flags).toEqual(expect.arrayContaining(['-language-version', '2.0', '-api-version', '2.0']));
    expect(without.find((t) => t.language === 'kotlin')?.flags).not.toContain('-language-version');
  }, 600_000);
});
