/**
 * SigV4 signing for API Gateway (service `execute-api`) with the standard credential chain
 * (environment, profile, SSO, instance role…), as the polyeval API's IAM authoriser requires.
 * The caller builds the request; this returns the headers to send it with. The SDK's
 * modules load with the first signature, so a CLI that signs nothing never loads them.
 */
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

export type ApiCredentials = AwsCredentialIdentity | AwsCredentialIdentityProvider;

/** One HTTP request before signing. */
export interface UnsignedRequest {
  method: string;
  /** `https:` or `http:`. */
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: string;
}

/** Signs a request; resolves with its headers, `authorization` and `x-amz-date` added. Rejects without credentials. */
export type SignRequest = (request: UnsignedRequest) => Promise<Record<string, string>>;

export function executeApiSigner(options: { region: string; credentials?: ApiCredentials }): SignRequest {
  let ready: Promise<{ sign: (request: UnsignedRequest) => Promise<Record<string, string>> }> | undefined;
  const load = async () => {
    const [{ Sha256 }, { fromNodeProviderChain }, { HttpRequest }, { SignatureV4 }] = await Promise.all([
      import('@aws-crypto/sha256-js'),
      import('@aws-sdk/credential-providers'),
      import('@smithy/protocol-http'),
      import('@smithy/signature-v4'),
    ]);
    const signer = new SignatureV4({
      service: 'execute-api',
      region: options.region,
      credentials: options.credentials ?? fromNodeProviderChain(),
      sha256: Sha256,
    });
    return { sign: async (request: UnsignedRequest) => ((await signer.sign(new HttpRequest(request))) as InstanceType<typeof HttpRequest>).headers };
  };
  return async (request) => (await (ready ??= load())).sign(request);
}
