/**
 * Run lifecycle events on EventBridge: `RunCompleted` after aggregation, for whoever subscribes
 * (notifications, dashboards, the next stage of a sweep). The publisher is a small interface so
 * tests can pass a fake; the EventBridge one is what the aggregate function uses.
 */
import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { HarnessError } from '#core/errors.ts';

/** The `source` of every polyeval event (rules match on it). */
export const EVENT_SOURCE = 'polyeval';

export interface EventPublisher {
  publish(detailType: string, detail: Record<string, unknown>): Promise<void>;
}

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
