/**
 * Reading the model providers' API keys: the functions that call providers (generate, the
 * batch stage) get the SSM path in PROVIDER_KEYS_PATH and `ssm:GetParametersByPath` on that
 * one path — Parameter Store authorises the call against the path asked for, not the
 * parameters returned (AWS Systems Manager User Guide, "How Parameter Store authorizes
 * parameter retrieval"), so no wildcard is needed. SecureString parameters under the AWS
 * managed key `aws/ssm` need no KMS grant (its key policy allows decryption through SSM to
 * every principal of the account); a customer managed key needs `kms:Decrypt` on the key
 * for these roles (docs/aws.md).
 */
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { PolyevalFunction } from './node-function.ts';

/** The ARN IAM checks a GetParametersByPath of `path` against. */
export function providerKeysPathArn(stack: Stack, path: string): string {
  return `arn:${stack.partition}:ssm:${stack.region}:${stack.account}:parameter${path}`;
}

/** Gives `fn` the keys under `path`: its environment names the path, its role may read that path only. */
export function grantProviderKeys(fn: PolyevalFunction, path: string): void {
  fn.function.addEnvironment('PROVIDER_KEYS_PATH', path);
  fn.role.addToPrincipalPolicy(
    new iam.PolicyStatement({ sid: 'ProviderKeys', actions: ['ssm:GetParametersByPath'], resources: [providerKeysPathArn(Stack.of(fn), path)] }),
  );
}

/**
 * Tells `fn` which hosts beyond each provider's own a stored key may go to (`-c providerKeyHosts`,
 * layers/providers/key-hosts.ts): plan refuses a run naming another host, generate and the batch
 * stage never attach a key to one.
 */
export function bindKeyHosts(fn: PolyevalFunction, hosts: string): void {
  if (hosts !== '') fn.function.addEnvironment('PROVIDER_KEY_HOSTS', hosts);
}
