// The toolchains a judge records for a cloud run (layers/app/cloud/toolchain-record.ts) are its
// runner's: an execute container built as a judge (its programs go to the runner function,
// functions/execute/deps.ts) reports, language by language and with the run's options, what the
// same image built as a runner (functions/runner/main.ts) compiles and runs with — Kotlin's
// compiler mode and -language-version, g++'s flags and precompiled header, Python's interpreter, javac's version.
import { describe, expect, it } from 'vitest';
import type { ProgramRunner } from '#core/judging/index.ts';
import { ContainerSandbox } from '../../functions/execute/container-sandbox.ts';

/** The judge's runner: never reached here (toolchains are probed, no program runs). */
const unreachableRunner: ProgramRunner = { run: () => Promise.reject(new Error('no program runs in this test')) };

describe('a judge container’s toolchains', () => {
  it.each(['python', 'cpp', 'java', 'javascript', 'kotlin'])(
    'are its runner’s for %s, with the run’s options',
    async (language) => {
      const options = { kotlin: { languageVersion: '2.0' } };
      const runner = await new ContainerSandbox({ env: {} }).get();
      const judge = await new ContainerSandbox({ env: {}, runner: { runner: unreachableRunner, isolation: 'lambda-runner' } }).get();

      const [judged] = await judge.toolchains(options, new Set([language]));
      const [ran] = await runner.toolchains(options, new Set([language]));
      await Promise.all([judge.close(), runner.close()]);

      expect(judged).toEqual(ran);
      expect(judged).toMatchObject({ language, available: true });
      if (language === 'kotlin') expect(judged?.flags).toEqual(expect.arrayContaining(['-language-version', '2.0', '-api-version', '2.0']));
    },
    300_000,
  );
});
