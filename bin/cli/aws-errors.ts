/**
 * AWS failures of this machine's setup that a command can name, and how to fix them, instead
 * of an internal error with a stack: no credentials (the SDK's CredentialsProviderError from
 * @aws-sdk/credential-provider-node's default chain), credentials AWS refuses (expired, unknown,
 * not allowed the call), and an AWS endpoint that cannot be reached.
 */
import { HarnessError } from '#core/errors.ts';

/** How a user gives the AWS SDK credentials (its default chain's sources, in its order). */
export const AWS_CREDENTIAL_SOURCES =
  'set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones), or AWS_PROFILE naming a profile of ~/.aws/config or ~/.aws/credentials (`aws configure`; `aws sso login --profile <name>` for SSO)';

/** Service error codes that mean the credentials themselves were refused. */
const REFUSED_CREDENTIALS = new Set([
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
]);

/** Socket error codes of an endpoint that cannot be reached. */
const UNREACHABLE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

interface SdkError {
  name?: string;
  message?: string;
  code?: string;
  $metadata?: unknown;
}

/**
 * The failure as a diagnosed HarnessError (message only, exit 1) when it is one of the above;
 * undefined for anything else (left to the caller). `call` names the AWS call (`Lambda
 * GetAccountSettings in eu-west-1`).
 */
export function awsSetupError(error: unknown, call?: string): HarnessError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as SdkError;
  const name = e.name ?? '';
  const message = e.message ?? '';
  const what = call ? `${call}: ` : '';
  if (name === 'CredentialsProviderError') {
    return new HarnessError(`${what}no AWS credentials found (${message}): ${AWS_CREDENTIAL_SOURCES}`, { cause: error });
  }
  if (e.$metadata !== undefined && REFUSED_CREDENTIALS.has(name)) {
    return new HarnessError(`${what}AWS refused the credentials (${name}: ${message}): renew them or ${AWS_CREDENTIAL_SOURCES}`, { cause: error });
  }
  if (e.$metadata !== undefined && (name === 'AccessDeniedException' || name === 'AccessDenied')) {
    return new HarnessError(`${what}access denied (${message}): the credentials' identity needs permission for this call`, { cause: error });
  }
  // An AWS SDK error only ($metadata: the SDK's retry middleware sets it on a network failure it
  // gives up on): a socket error of anything else (a local server, a checker) is not AWS's.
  if (e.$metadata !== undefined && e.code !== undefined && UNREACHABLE.has(e.code)) {
    return new HarnessError(`${what}cannot reach AWS (${e.code}: ${message}): check the network and the Region`, { cause: error });
  }
  return undefined;
}
