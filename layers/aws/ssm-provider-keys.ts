/**
 * The model providers' API keys of a deployment, kept as SSM parameters under one path
 * (`/polyeval/provider-keys/OPENAI_API_KEY`, `…/ANTHROPIC_API_KEY`, …; SecureString or String):
 * each parameter's last name segment is the environment variable the provider reads its key from.
 * One `GetParametersByPath` (paged), authorised against the path itself (AWS Systems Manager
 * User Guide, "How Parameter Store authorizes parameter retrieval"), so a function's policy names
 * that one path and no parameter beyond it.
 */
import { GetParametersByPathCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { HarnessError } from '#core/errors.ts';

/** What the name of an environment variable may be (POSIX: letters, digits, underscores; no leading digit). */
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The keys under `path` as variable → value. @throws HarnessError naming a parameter that is no variable name. */
export async function readProviderKeys(client: SSMClient, path: string): Promise<Record<string, string>> {
  const prefix = path.replace(/\/+$/, '');
  const keys: Record<string, string> = {};
  let token: string | undefined;
  do {
    const page = await client.send(new GetParametersByPathCommand({ Path: prefix, WithDecryption: true, Recursive: false, NextToken: token }));
    for (const parameter of page.Parameters ?? []) {
      const name = parameter.Name ?? '';
      const variable = name.slice(name.lastIndexOf('/') + 1);
      if (!VARIABLE.test(variable))
        throw new HarnessError(`SSM parameter ${name}: its last segment "${variable}" is not an environment variable name (e.g. ${prefix}/OPENAI_API_KEY)`);
      if (parameter.Value !== undefined) keys[variable] = parameter.Value;
    }
    token = page.NextToken;
  } while (token);
  return keys;
}
