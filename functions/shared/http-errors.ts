/**
 * Maps polyeval's errors onto HTTP for @middy/http-error-handler: the caller's mistakes say
 * what was wrong (400 bad input naming the field, 404 unknown run or self-test, 409 not completed yet,
 * 415 a body that is not JSON); everything else is a 500 that says nothing — the detail goes to
 * the log, never to the client.
 */
import type { MiddlewareObj } from '@middy/core';
import { InputError } from '#core/errors.ts';
import { RunNotCompletedError, RunNotFoundError } from '#app/cloud/queries.ts';
import { RunNotActiveError } from '#app/cloud/run-control.ts';
import { ReportNotWrittenError } from '#app/cloud/report-link.ts';
import { SelftestNotFoundError } from '#app/cloud/selftest.ts';
import type { Logger } from '@aws-lambda-powertools/logger';

interface HttpError extends Error {
  statusCode: number;
  expose: boolean;
}

function httpError(statusCode: number, message: string, cause: unknown): HttpError {
  const error = new Error(JSON.stringify({ message }), { cause }) as HttpError;
  error.statusCode = statusCode;
  error.expose = true;
  return error;
}

/** The body of every 500: nothing about the failure. */
export const INTERNAL_ERROR_BODY = JSON.stringify({ message: 'internal error' });

function statusOf(error: unknown): number | undefined {
  if (error instanceof InputError) return 400;
  if (error instanceof RunNotFoundError || error instanceof SelftestNotFoundError) return 404;
  if (error instanceof RunNotCompletedError || error instanceof RunNotActiveError || error instanceof ReportNotWrittenError) return 409;
  // middy's own client errors (e.g. the JSON body parser's 415) keep their status.
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/** Put AFTER `httpErrorHandler()` in the chain, so its onError runs first (middy runs onError in reverse). */
export function domainErrorsToHttp(logger: Logger): MiddlewareObj {
  return {
    name: 'domainErrorsToHttp',
    onError: (request) => {
      const error = request.error;
      const status = statusOf(error);
      if (status === undefined) {
        logger.error('request failed', { error: error as Error });
        request.error = Object.assign(new Error('internal error', { cause: error }), { statusCode: 500, expose: false });
        return;
      }
      logger.info('request rejected', { status, reason: (error as Error).message });
      request.error = httpError(status, (error as Error).message, error);
    },
  };
}
