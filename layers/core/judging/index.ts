/**
 * How an answer is judged (DESIGN §6–7): programs compiled and run against tests (io-tests,
 * unit-tests) through the runner port, a Likert answer read from its choice scores, and the
 * verdict logic they share.
 */
export { TerminationSchema, type Termination } from './compare.ts';
export type { Excerpt } from './excerpt.ts';
export {
  scoreIoTests,
  type Preparation,
  type ProgramHost,
  type ProgramRun,
  type RunRequest,
  type TestFileLoader,
  type UnitTestSource,
} from './io-tests-judge.ts';
export { scoreLikert, type LikertEvidence } from './likert-judge.ts';
export { countTies, tieWarningOf, type TieCount } from './likert-ties.ts';
export { hostRunner, type ProgramRunner, type RunnerJob, type RunnerProgram, type RunnerResult } from './program-runner.ts';
export { scoreUnitTests, UNIT_TEST_LIMITS } from './unit-tests-judge.ts';
