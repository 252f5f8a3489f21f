/**
 * The middy chain of every SQS-triggered function: observability, then partial batch
 * responses (`ReportBatchItemFailures`): each record is handled on its own, a failed one is
 * reported by message id and comes back after the visibility timeout (then the DLQ), the others
 * are deleted. A body that is not a valid message fails only its own record.
 */
import middy from '@middy/core';
import sqsPartialBatchFailure from '@middy/sqs-partial-batch-failure';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { parseJsonBody } from '#app/cloud/messages.ts';
import { observabilityMiddlewares, type Observability } from './observability.ts';

export interface SqsHandlerOptions<T> {
  obs: Observability;
  /** Names the message kind in errors (`plan`, `work item`, …). */
  what: string;
  parse: (body: unknown) => T;
  /** Handles one message; the resolved value is logged (e.g. `{ status: 'recorded' }`). */
  handle: (message: T, record: SQSRecord) => Promise<{ status: string }>;
}

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export function sqsHandler<T>(options: SqsHandlerOptions<T>): SqsHandler {
  const { obs } = options;
  const processRecord = async (record: SQSRecord): Promise<void> => {
    const message = options.parse(parseJsonBody(record.body, options.what));
    const result = await options.handle(message, record);
    obs.metrics.addMetric(`messages_${result.status}`, MetricUnit.Count, 1);
    obs.logger.debug('message handled', { messageId: record.messageId, ...result });
  };
  const chain = middy<SQSEvent, SQSBatchResponse>();
  for (const middleware of observabilityMiddlewares(obs)) chain.use(middleware);
  chain.use(
    sqsPartialBatchFailure({
      logger: (reason: unknown, record: SQSRecord) => {
        obs.metrics.addMetric('messages_failed', MetricUnit.Count, 1);
        obs.logger.error('message failed', { messageId: record.messageId, receiveCount: record.attributes.ApproximateReceiveCount, error: reason as Error });
      },
    }),
  );
  // The partial-batch middleware turns the settled results into `{ batchItemFailures }`.
  const handler = chain.handler((async (event: SQSEvent) => Promise.allSettled(event.Records.map(processRecord))) as never);
  return handler as unknown as SqsHandler;
}
