/** The deployed self-test (`polyeval remote selftest`): its suites of reference and hostile programs, and its verdict per executor image. */
export { RUNNER_VPC_CIDR } from './hostile-programs.ts';
export { selftestReport, type ImageReport, type ProbeReport, type SelftestReport, type SelftestRun } from './report.ts';
export { HOSTILE_PROBES, SELFTEST_LANGUAGES, selftestSuites } from './suite.ts';
