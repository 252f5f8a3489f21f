/**
 * SigV4 signing for API Gateway (service `execute-api`) with the standard credential chain
 * (environment, profile, SSO, instance role…), as the polyeval API's IAM authoriser requires.
 * The caller builds the request; this returns the headers to send it with.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
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
  const signer = new SignatureV4({ service: 'execute-api', region: options.region, credentials: options.credentials ?? fromNodeProviderChain(), sha256: Sha256 });
  return async (request) => ((await signer.sign(new HttpRequest(request))) as HttpRequest).headers;
}
