/**
 * The account's Lambda concurrency in a Region, as GetAccountSettings answers it
 * (`GET /2016-08-19/account-settings`: `AccountLimit.ConcurrentExecutions`, the Regional quota,
 * and `AccountLimit.UnreservedConcurrentExecutions`, the quota less every function's reserved
 * concurrency; Lambda API reference, "GetAccountSettings"). Takes its client as an option, so
 * tests point it at a local server speaking the same REST API.
 */
import type { LambdaClient } from '@aws-sdk/client-lambda';
import { HarnessError } from '#core/errors.ts';

/** The account's concurrent executions in the Region: the quota, and what no function reserves. */
export interface AccountConcurrency {
  limit: number;
  unreserved: number;
}

/** Reads the account's concurrency quota and what is left unreserved. */
export async function readAccountConcurrency(client: Pick<LambdaClient, 'send'>): Promise<AccountConcurrency> {
  // Loaded here, not at the top: `polyeval remote doctor` imports this module, and the CLI's start loads no AWS SDK (test/e2e/cli-start.test.ts).
  const { GetAccountSettingsCommand } = await import('@aws-sdk/client-lambda');
  const settings = await client.send(new GetAccountSettingsCommand({}));
  const limit = settings.AccountLimit?.ConcurrentExecutions;
  const unreserved = settings.AccountLimit?.UnreservedConcurrentExecutions;
  if (limit === undefined || unreserved === undefined)
    throw new HarnessError('GetAccountSettings answered without AccountLimit.ConcurrentExecutions and UnreservedConcurrentExecutions');
  return { limit, unreserved };
}
