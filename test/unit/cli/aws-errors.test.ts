/**
 * Which failures the CLI's top level names as an AWS setup problem (bin/cli/aws-errors.ts): the
 * SDK's own errors only — a socket error of anything else must keep its own message (and, as an
 * internal error, its stack), never be called "cannot reach AWS".
 */
import { describe, expect, it } from 'vitest';
import { awsSetupError } from '../../../bin/cli/aws-errors.ts';
import { HarnessError } from '#core/errors.ts';

/** A Node socket error as `net`/`http` raise it. */
const socketError = (code: string): Error => Object.assign(new Error(`connect ${code} 127.0.0.1:9`), { code });

describe('awsSetupError', () => {
  it('maps an AWS SDK call that could not reach its endpoint (the retry middleware set $metadata)', () => {
    const sdk = Object.assign(socketError('ECONNREFUSED'), { $metadata: { attempts: 3, totalRetryDelay: 120 } });
    const mapped = awsSetupError(sdk, 'Lambda GetAccountSettings in eu-west-1');
    expect(mapped).toBeInstanceOf(HarnessError);
    expect(mapped?.message).toContain('Lambda GetAccountSettings in eu-west-1: cannot reach AWS (ECONNREFUSED');
    expect(mapped?.cause).toBe(sdk);
  });

  it('leaves a socket error that is not the AWS SDK’s alone', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'ETIMEDOUT']) expect(awsSetupError(socketError(code))).toBeUndefined();
  });

  it('maps missing and refused credentials, and nothing else', () => {
    const missing = Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
    expect(awsSetupError(missing)?.message).toContain('no AWS credentials found');
    const expired = Object.assign(new Error('The security token included in the request is expired'), { name: 'ExpiredTokenException', $metadata: {} });
    expect(awsSetupError(expired)?.message).toContain('AWS refused the credentials (ExpiredTokenException');
    expect(awsSetupError(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBeUndefined();
    expect(awsSetupError(Object.assign(new Error('x'), { name: 'ExpiredTokenException' }))).toBeUndefined();
  });
});
