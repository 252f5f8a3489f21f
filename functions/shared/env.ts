/**
 * Environment variables of the cloud functions, read at the edge (each function's `deps.ts`)
 * through one helper that names the missing variable.
 */
import { HarnessError } from '#core/errors.ts';

/** A function is deployed without a variable its code needs: a deployment fault, never the caller's. */
export class MissingEnvironmentError extends HarnessError {
  override name = 'MissingEnvironmentError';
  constructor(readonly variable: string) {
    super(`environment variable ${variable} is not set`);
  }
}

/** The value of `name`, or MissingEnvironmentError naming it. */
export function requireEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name]?.trim();
  if (value === undefined || value === '') throw new MissingEnvironmentError(name);
  return value;
}

/** The language → queue URL map of every `<PREFIX><LANGUAGE>` variable (e.g. EXECUTE_QUEUE_URL_PYTHON). */
export function queueUrlsByLanguage(prefix: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith(prefix) && value) out[name.slice(prefix.length).toLowerCase()] = value;
  }
  return out;
}
