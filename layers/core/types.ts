/**
 * The domain vocabulary of polyeval (DESIGN §1): tasks, samples, verdicts, records, metrics.
 * Pure types: no I/O. Every other layer speaks in these.
 */
import { VERDICTS } from './columns.ts';

/** Outcome of scoring one sample (or one test of it). `SE` is the harness's own fault. */
export type Verdict = (typeof VERDICTS)[number];
export { VERDICTS };

/** How the prompt reaches the model: one plain text (base models) or chat messages. */
export const PROMPT_STYLES = ['completion', 'chat'] as const;
export type PromptStyle = (typeof PROMPT_STYLES)[number];

/**
 * io-tests: what a time limit measures. `cpu`: CPU time of the program's process group (fair
 * under load: a busy machine does not fail a program); `wall`: elapsed time (what a judge with a
 * stopwatch, and most readings of "timeout for solution run time", mean).
 */
export const TIME_CLOCKS = ['cpu', 'wall'] as const;
export type TimeClock = (typeof TIME_CLOCKS)[number];

/** io-tests: the language the problem statement is put to the model in (`en`: the RoCode paper's translation ablation). */
export const PROMPT_LANGUAGES = ['ro', 'en'] as const;
export type PromptLanguage = (typeof PROMPT_LANGUAGES)[number];

/**
 * How a likert answer is read from a model (DESIGN §6): the log-likelihood of each choice
 * after the prompt (`likelihood`), the next-token log-probabilities of the choices in one
 * chat call (`next-token`), or a digit parsed from generated text (`digit-parse`).
 */
export const LIKERT_MODES = ['likelihood', 'next-token', 'digit-parse'] as const;
export type LikertMode = (typeof LIKERT_MODES)[number];

/** A window of a text (judging/excerpt.ts cuts them). */
export interface Excerpt {
  /** The window's characters. */
  text: string;
  /** Offset of the window in the whole text (characters). */
  start: number;
  /** Size of the whole text in UTF-8 bytes. */
  bytes: number;
  /** Whether the window is the whole text. */
  complete: boolean;
  /** Offset within `text` of the marked position (the first difference), when it falls inside. */
  mark?: number;
}

/** How a sample becomes a verdict: the id of a scorer in layers/core/scorers/index.ts. */
export type ScorerKind = Task['kind'];

/** A language id with a runtime in layers/sandbox/languages (python, c, cpp, kotlin, …). */
export type LanguageId = string;

/** One input/output test of an io-tests task; large tests live beside the dataset as blobs. */
export interface IoTest {
  name?: string;
  input?: string;
  output?: string;
  /** Keys in the BlobStore (or paths relative to the dataset) when the test is not inline. */
  inputPath?: string;
  outputPath?: string;
}

export type OutputChecker = { kind: 'tokens' } | { kind: 'float'; abs?: number; rel?: number } | { kind: 'program'; language: LanguageId; source: string };

export interface TaskBase {
  /** Unique within its benchmark; may contain `/` (ABRICOT: `abstractness/<id>`). */
  id: string;
  benchmark: string;
  split: string;
  difficulty?: string;
  /** Extra slicing dimensions (subtask, domain, …). */
  slices: Record<string, string>;
}

export interface IoTestsTask extends TaskBase {
  kind: 'io-tests';
  /**
   * File stem: programs read `<name>.in` and write `<name>.out` (the input is also on stdin,
   * stdout counts when no `.out` was written). Absent: stdin/stdout only.
   */
  name?: string;
  statement: string;
  inputSpec: string;
  outputSpec: string;
  examples: { input: string; output: string }[];
  tests: IoTest[];
  timeLimitMs: number;
  /** What `timeLimitMs` measures: CPU time (default) or wall time (the protocol's `--time-clock`). */
  timeClock?: TimeClock;
  /** The statement and specifications in English, when the row gives them (RoCode's `--prompt-language en`). */
  english?: { statement: string; inputSpec: string; outputSpec: string };
  memoryLimitMb: number;
  checker: OutputChecker;
  /** Reference solutions by language; they feed the `reference` provider. */
  solutions: Partial<Record<LanguageId, string>>;
  /**
   * Every C and C++ solution of the row when it lists several per language (RoCode's human
   * submissions; its Python solutions are machine transpilations): the code-switching human baseline.
   */
  humanSolutions?: { code: string; language: string }[];
}

export interface UnitTestsTask extends TaskBase {
  kind: 'unit-tests';
  language: LanguageId;
  prompt: string;
  entryPoint: string;
  test: string;
  /** The first reference answer ('' when the row has none). */
  canonicalSolution: string;
  /** Every reference answer, when the row has more than one (a list column). */
  canonicalSolutions?: string[];
  description?: string;
}

export interface LikertTask extends TaskBase {
  kind: 'likert';
  /** The benchmark's subtask (ABRICOT's are declared in benchmarks/abricot.ts). */
  subtask: string;
  itemId: string;
  text: string;
  /** The word as it appears in the text, and its lemma. */
  target: string;
  lemma?: string;
  /** Human mean on [0, 1] and its std. */
  goldMean: number;
  goldStd?: number;
  /** The gold digit 1–5, by the protocol's rule (paper: min(5, 1 + floor(5 * mean))). */
  gold: number;
}

/** Any task; each member is the task shape of one scorer kind (layers/core/scorers/). */
export type Task = IoTestsTask | UnitTestsTask | LikertTask;

/** Token usage of one model call. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

/** Per-test detail of an execution. */
export interface TestOutcome {
  name: string;
  verdict: Verdict;
  runMs: number;
  cpuMs?: number;
  peakMemoryKb?: number;
  exitCode?: number | null;
  signal?: string | null;
  /** Short human-readable detail (first differing token, stderr head, …). */
  detail?: string;
  /**
   * For the first failing tests of an io-tests sample: windows of the input, the expected
   * and the actual output, the outputs' windows placed at their first difference.
   */
  io?: TestIo;
}

/** Bounded windows of one test's texts (see `excerpt`). */
export interface TestIo {
  input: Excerpt;
  expected?: Excerpt;
  actual?: Excerpt;
}

/** What scoring produced for one sample. */
export interface ScoreOutcome {
  verdict: Verdict;
  testsPassed: number;
  testsTotal: number;
  compileMs?: number;
  runMs?: number;
  cpuMs?: number;
  peakMemoryKb?: number;
  tests?: TestOutcome[];
  /** likert only */
  predicted?: number | null;
  gold?: number;
  goldMean?: number;
  /** likert: how the prediction was obtained. */
  mode?: LikertMode;
  choiceLogprobs?: number[];
  /** next-token: choices absent from the top-k log-probabilities, scored at `floor`. */
  flooredChoices?: number[];
  floor?: number;
  error?: string;
  /** Code tasks: the sandbox isolation the sample ran under, e.g. `rlimits+seccomp+landlock` (DESIGN §7). */
  isolation?: string;
}

export type { RunRecord, MetricRow } from './columns.ts';
