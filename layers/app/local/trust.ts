/**
 * The local rule for model-written code (DESIGN §7): where the sandbox cannot keep
 * credentials, files and network from a program, polyeval refuses to execute code a model
 * wrote unless the user trusts it (`--trust-generated-code`, human-eval's precedent).
 * The `reference` provider's answers are the dataset's own canonical solutions — the same
 * trust as the dataset's tests and checkers, which polyeval runs anyway — so they run;
 * `replay:` files and every model provider are model-written.
 */
import { InputError } from '#core/errors.ts';
import type { Provider } from '#core/models/index.ts';
import { PROVIDER_REGISTRY } from '#providers/index.ts';
import type { SandboxExecutor } from '#sandbox/index.ts';
import { EXPOSURE_REASONS } from '#sandbox/isolation.ts';

/** Whether a provider's answers are written by a model (untrusted) rather than the dataset. */
export function writesUntrustedCode(provider: Pick<Provider, 'kind'>): boolean {
  return PROVIDER_REGISTRY.byScheme(provider.kind)?.answersWithReference !== true;
}

/**
 * Throws an InputError (exit 2) naming what is exposed when model-written code would run
 * in a sandbox that exposes anything and the user has not said they trust it.
 */
export function assertMayExecute(
  executor: Pick<SandboxExecutor, 'isolationReport'> | undefined,
  provider: Pick<Provider, 'kind' | 'model'>,
  trusted: boolean,
): void {
  if (!executor || trusted || !writesUntrustedCode(provider)) return;
  const { exposures, label } = executor.isolationReport;
  if (exposures.length === 0) return;
  throw new InputError(
    `refusing to execute code written by ${provider.model}: the sandbox on this machine (${label}) cannot keep it from\n` +
      exposures.map((e) => `  - ${EXPOSURE_REASONS[e]}`).join('\n') +
      '\nInstall bubblewrap with unprivileged user namespaces (or run on a Linux kernel with Landlock and seccomp), run as root so programs drop to uid 65534, ' +
      'or pass --trust-generated-code if you trust this code to run with your uid (see `polyeval doctor`).',
    { field: 'trust-generated-code' },
  );
}
