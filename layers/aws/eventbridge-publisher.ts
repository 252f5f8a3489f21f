/**
 * The EventBridge adapter of the EventPublisher port (layers/core/ports.ts): run lifecycle
 * events such as `RunCompleted` on the deployment's bus, what the aggregate function uses.
 */
import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { HarnessError } from '#core/errors.ts';
import type { EventPublisher } from '#core/ports.ts';

/** The `source` of every polyeval event (rules match on it). */
export const EVENT_SOURCE = 'polyeval';

export class EventBridgePublisher implements EventPublisher {
  readonly #client: EventBridgeClient;
  readonly #busName: string;

  constructor(options: { client: EventBridgeClient; busName: string }) {
    this.#client = options.client;
    this.#busName = options.busName;
  }

  async publish(detailType: string, detail: Record<string, unknown>): Promise<void> {
    const out = await this.#client.send(
      new PutEventsCommand({
        Entries: [{ EventBusName: this.#busName, Source: EVENT_SOURCE, DetailType: detailType, Detail: JSON.stringify(detail) }],
      }),
    );
    if ((out.FailedEntryCount ?? 0) > 0) {
      const entry = out.Entries?.find((e) => e.ErrorCode !== undefined);
      throw new HarnessError(`EventBridge rejected ${detailType} on ${this.#busName}: ${entry?.ErrorCode ?? ''} ${entry?.ErrorMessage ?? ''}`.trim());
    }
  }
}
