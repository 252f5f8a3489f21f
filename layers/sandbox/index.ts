/**
 * layers/sandbox: running untrusted code (DESIGN §7). Public surface.
 * @example
 * const executor = await createSandboxExecutor();
 * console.log(await executor.toolchains(), (await detectIsolation()).details);
 */
export { createSandboxExecutor, defaultSandboxCacheDir, type SandboxExecutor, type SandboxExecutorOptions } from './executor.ts';
export { detectIsolation, type IsolationLevel, type IsolationReport } from './isolation.ts';
export { LANGUAGE_RUNTIMES } from './languages/index.ts';
export type { LanguageRuntime, RunCommand, RuntimeContext, CompileResult } from './runtime.ts';
export { pruneBuilds, type PruneReport } from './compile-cache-gc.ts';
