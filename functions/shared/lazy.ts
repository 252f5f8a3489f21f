/**
 * The exported Lambda `handler`: built on the first invocation from the function's
 * environment (clients once per container, as at module scope), so importing a handler module
 * in a test — which calls `makeHandler(deps)` itself — needs no environment.
 */
import type { Context } from 'aws-lambda';

export function lazyHandler<E, R>(build: () => (event: E, context: Context) => Promise<R>): (event: E, context: Context) => Promise<R> {
  let built: ((event: E, context: Context) => Promise<R>) | undefined;
  return (event, context) => {
    built ??= build();
    return built(event, context);
  };
}
