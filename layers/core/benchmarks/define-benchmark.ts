/**
 * A benchmark as the registry holds it: any task in, its own task shape checked at the door.
 * Each benchmark is written against its own task type (`Benchmark<LikertTask>`); the registry
 * holds benchmarks of any task. Rather than erase the type (a cast would let RoCode's prompt
 * builder be handed a likert task unnoticed), {@link defineBenchmark} wraps every member that
 * takes a task: its `kind` is checked against the benchmark's scorer before the benchmark's own
 * code sees it (a prompt's few-shot pool keeps the benchmark's own tasks), and a bound protocol
 * is wrapped alike.
 *
 * @example
 * createBenchmarkRegistry([defineBenchmark(abricot), defineBenchmark(rocode)]);
 */
import { HarnessError } from '../errors.ts';
import type { Task } from '../types.ts';
import type { AnyBenchmark, Benchmark, PromptContext } from './benchmark.ts';
import type { ExtraMetrics } from './description.ts';

/**
 * `benchmark` as a benchmark of any task. `T` is the member of the {@link Task} union whose
 * `kind` is the benchmark's `scorer`, so a task of that kind is a `T`. Members the interface
 * does not list (none today) are kept as they are.
 * @throws HarnessError (from the returned benchmark's methods) for a task of another kind.
 */
export function defineBenchmark<T extends Task>(benchmark: Benchmark<T>): AnyBenchmark {
  const owns = (task: Task): task is T => task.kind === benchmark.scorer;
  const own = (task: Task): T => {
    if (!owns(task)) throw new HarnessError(`the ${benchmark.id} benchmark (${benchmark.scorer}) was given a ${task.kind} task (${task.id})`);
    return task;
  };
  const pools = new WeakMap<readonly Task[], readonly T[]>();
  const pool = (tasks: readonly Task[]): readonly T[] => pools.get(tasks) ?? pools.set(tasks, tasks.filter(owns)).get(tasks) ?? [];
  const ownContext = (ctx: PromptContext<Task>): PromptContext<T> => ({ ...ctx, pool: pool(ctx.pool) });
  const { extraMetrics, referenceCount, promptNotes, renamedProtocol } = benchmark;
  const extra: ExtraMetrics<Task> | undefined = extraMetrics && {
    ids: extraMetrics.ids,
    needs: extraMetrics.needs,
    compute: (input, resources) => extraMetrics.compute({ ...input, tasks: input.tasks.filter(owns) }, resources),
    ...(extraMetrics.report && { report: extraMetrics.report }),
    ...(extraMetrics.reportIds && { reportIds: extraMetrics.reportIds }),
  };
  return {
    ...benchmark,
    parseRow: (row, loc) => benchmark.parseRow(row, loc),
    buildPrompt: (task, ctx) => benchmark.buildPrompt(own(task), ownContext(ctx)),
    reference: (task, language, sample) => benchmark.reference(own(task), language, sample),
    ...(referenceCount && {
      referenceCount: (task: Task, language?: Parameters<typeof referenceCount>[1]) => referenceCount.call(benchmark, own(task), language),
    }),
    postprocess: (raw, task, language) => benchmark.postprocess(raw, own(task), language),
    languageOf: (task, requested) => benchmark.languageOf(own(task), requested),
    ...(promptNotes && { promptNotes: (mode: Parameters<typeof promptNotes>[0]) => promptNotes.call(benchmark, mode) }),
    ...(renamedProtocol && { renamedProtocol: (recorded: Parameters<typeof renamedProtocol>[0]) => renamedProtocol.call(benchmark, recorded) }),
    ...(extra && { extraMetrics: extra }),
    bind: (protocol) => defineBenchmark(benchmark.bind(protocol)),
  };
}
