/**
 * RunLedger on DynamoDB (DESIGN §2 "record", §4). Exactly-once counting over at-least-once
 * queues: `recordItem` is ONE transaction that creates the item row only if it does not
 * exist and adds to its shard's counters, so a redelivered item changes nothing; `recordItems`
 * does the same for a batch with one counter update per transaction (dynamo-record-batch.ts), and
 * `addCosts` for a batch of cost bookings (dynamo-booking-batch.ts). A run's
 * items and counters are spread over LEDGER_SHARDS partition keys (dynamo-ledger-schema.ts).
 * Table layout and how runs are listed: see dynamo-ledger-schema.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CostBooking, ItemCount, RunLedger, RunStatus, RunSummary } from '../core/ports.ts';
import type { Verdict } from '../core/types.ts';
import { HarnessError } from '../core/errors.ts';
import { fullJitterMs } from '../core/backoff.ts';
import { FINAL_STATUS, spendLimit, statusMayChange } from '../core/run/index.ts';
import { awsErrorName } from './aws-errors.ts';
import { bookBatch } from './dynamo-booking-batch.ts';
import { cancellationCodes } from './dynamo-once-batch.ts';
import { recordBatch } from './dynamo-record-batch.ts';
import {
  ITEM_PREFIX,
  bookingPlace,
  LEDGER_SHARDS,
  RUNS_PK,
  costKey,
  countKeys,
  itemPlace,
  runKey,
  shardPk,
  toSummary,
  verdictAttribute,
  type Row,
} from './dynamo-ledger-schema.ts';

export interface DynamoRunLedgerOptions {
  client: DynamoDBClient;
  tableName: string;
  /** The clock for `updatedAt` (passed in so tests and runs reproduce). */
  now?: () => Date;
  /** Items per Query page (DynamoDB's default is 1 MB of items); small values exercise paging. */
  pageSize?: number;
  /** Waits between retries (default: a real timer; the cloud-scale simulation passes its virtual clock's). */
  sleep?: (ms: number) => Promise<void>;
}

const CONFLICT_RETRIES = 8;
const CONFLICT_BACKOFF = { baseMs: 20, capMs: 1_000 };
const UNPROCESSED_BACKOFF = { baseMs: 50, capMs: 2_000 };

/**
 * DynamoDB-backed {@link RunLedger}.
 * @example
 * const ledger = new DynamoRunLedger({ client: new DynamoDBClient({}), tableName: 'polyeval-ledger' });
 * if (await ledger.recordItem('r1', 'r1/t1/0', 'OK')) console.log('counted');
 */
export class DynamoRunLedger implements RunLedger {
  readonly #doc: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #now: () => Date;
  readonly #pageSize: number | undefined;
  readonly #sleep: (ms: number) => Promise<void>;
  /** Per run, its shard count (0: written before shards); a run's layout never changes. */
  readonly #shards = new Map<string, number>();

  constructor(options: DynamoRunLedgerOptions) {
    this.#doc = DynamoDBDocumentClient.from(options.client, { marshallOptions: { removeUndefinedValues: true } });
    this.#table = options.tableName;
    this.#now = options.now ?? (() => new Date());
    this.#pageSize = options.pageSize;
    this.#sleep = options.sleep ?? ((ms) => sleep(ms));
  }

  async createRun(summary: Omit<RunSummary, 'recorded' | 'verdicts' | 'costUsd' | 'updatedAt'>): Promise<void> {
    const item: Row = {
      ...runKey(summary.runId),
      runId: summary.runId,
      benchmark: summary.benchmark,
      model: summary.model,
      status: summary.status,
      items: summary.items,
      recorded: 0,
      createdAt: summary.createdAt,
      updatedAt: this.#now().toISOString(),
      reason: summary.reason,
      shards: LEDGER_SHARDS,
    };
    const registry: Row = { pk: RUNS_PK, sk: `${summary.createdAt}#${summary.runId}`, runId: summary.runId };
    const command = new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: this.#table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
        { Put: { TableName: this.#table, Item: registry } },
        { Put: { TableName: this.#table, Item: { ...costKey(summary.runId), costUsd: 0 }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ...countKeys(summary.runId).map((Item) => ({ Put: { TableName: this.#table, Item: { ...Item, recorded: 0 } } })),
      ],
    });
    try {
      await this.#doc.send(command);
    } catch (error) {
      // Creating a run that exists keeps the existing one (as the local ledger does): a retried
      // request never resets counters that executors already advanced.
      if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return;
      throw this.#fault('createRun', summary.runId, error);
    }
  }

  /** The run row, its cost row and its shards' count rows in one BatchGetItem (an unsharded run has none). */
  async getRun(runId: string): Promise<RunSummary | undefined> {
    return (await this.#summaries([runId], 'getRun'))[0];
  }

  /**
   * One GetItem of the run row's status (what every stage asks before its work: cancelled?),
   * where getRun reads 18 rows. Strongly consistent, as getRun: a cancel is seen at once.
   */
  async runStatus(runId: string): Promise<RunStatus | undefined> {
    const out = await this.#call('runStatus', runId, () =>
      this.#doc.send(
        new GetCommand({
          TableName: this.#table,
          Key: runKey(runId),
          ProjectionExpression: '#s',
          ExpressionAttributeNames: { '#s': 'status' },
          ConsistentRead: true,
        }),
      ),
    );
    return out.Item?.status as RunStatus | undefined;
  }

  async listRuns(): Promise<RunSummary[]> {
    const keys: Row[] = [];
    let start: Row | undefined;
    do {
      const page = await this.#call('listRuns', '*', () =>
        this.#doc.send(
          new QueryCommand({
            TableName: this.#table,
            KeyConditionExpression: 'pk = :runs',
            ExpressionAttributeValues: { ':runs': RUNS_PK },
            ProjectionExpression: 'runId',
            ConsistentRead: true,
            ExclusiveStartKey: start,
            Limit: this.#pageSize,
          }),
        ),
      );
      for (const item of page.Items ?? []) keys.push(runKey(String(item.runId)));
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return this.#summaries(
      keys.map((key) => String(key.pk).slice('RUN#'.length)),
      'listRuns',
    );
  }

  /** Summaries of the runs that exist, in the order asked. */
  async #summaries(runIds: readonly string[], operation: string): Promise<RunSummary[]> {
    const rows = await this.#batchGet(
      runIds.flatMap((runId) => [runKey(runId), costKey(runId), ...countKeys(runId)]),
      operation,
    );
    const byKey = new Map(rows.map((row) => [`${String(row.pk)}|${String(row.sk)}`, row]));
    const at = (key: { pk: string; sk: string }) => byKey.get(`${key.pk}|${key.sk}`);
    return runIds.flatMap((runId) => {
      const row = at(runKey(runId));
      if (row === undefined) return [];
      const counts = countKeys(runId)
        .map(at)
        .filter((row): row is Row => row !== undefined);
      return [toSummary(row, at(costKey(runId)), counts)];
    });
  }

  /** One transaction: the item row's verdict moves only if it is `from`, and the counters follow. */
  async reviseItem(runId: string, itemId: string, from: Verdict, to: Verdict): Promise<boolean> {
    const { itemKey, counterKey } = itemPlace(runId, itemId, await this.#shardsOf(runId, 'reviseItem', itemId));
    if (from === to) {
      const row = await this.#doc.send(new GetCommand({ TableName: this.#table, Key: itemKey, ConsistentRead: true }));
      return (row.Item as Row | undefined)?.verdict === from;
    }
    const now = this.#now().toISOString();
    const command = new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: this.#table,
            Key: itemKey,
            UpdateExpression: 'SET verdict = :to, revisedAt = :now',
            ConditionExpression: 'verdict = :from',
            ExpressionAttributeValues: { ':from': from, ':to': to, ':now': now },
          },
        },
        {
          Update: {
            TableName: this.#table,
            Key: counterKey,
            UpdateExpression: 'ADD #from :minus, #to :one SET updatedAt = :now',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#from': verdictAttribute(from), '#to': verdictAttribute(to) },
            ExpressionAttributeValues: { ':minus': -1, ':one': 1, ':now': now },
          },
        },
      ],
    });
    return this.#transact(command, 'reviseItem', runId, itemId);
  }

  async recordItem(runId: string, itemId: string, verdict: Verdict): Promise<boolean> {
    const { itemKey, counterKey } = itemPlace(runId, itemId, await this.#shardsOf(runId, 'recordItem', itemId));
    const now = this.#now().toISOString();
    const command = new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: this.#table,
            Item: { ...itemKey, verdict, recordedAt: now },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Update: {
            TableName: this.#table,
            Key: counterKey,
            UpdateExpression: 'ADD recorded :one, #v :one SET updatedAt = :now',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#v': verdictAttribute(verdict) },
            ExpressionAttributeValues: { ':one': 1, ':now': now },
          },
        },
      ],
    });
    return this.#transact(command, 'recordItem', runId, itemId);
  }

  /** The items' rows and one count row's totals, in as few transactions as DynamoDB allows (dynamo-record-batch.ts). */
  async recordItems(runId: string, items: readonly ItemCount[]): Promise<boolean[]> {
    if (items.length === 0) return [];
    const shards = await this.#shardsOf(runId, 'recordItems', (items[0] as ItemCount).itemId);
    const ctx = { doc: this.#doc, table: this.#table, runId, shards, now: this.#now().toISOString(), sleep: this.#sleep };
    return recordBatch({ ...ctx, fault: (operation, id, cause) => this.#fault(operation, id, cause) }, items);
  }

  /**
   * Sends a two-part record transaction (item row, then its counter row): true when it applied,
   * false when the item row's condition failed (a duplicate); a missing run row is a HarnessError.
   */
  #transact(command: TransactWriteCommand, op: string, runId: string, itemId: string): Promise<boolean> {
    return this.#sendTwoPart(command, op, runId, (part, error) => {
      if (part === 0) return Promise.resolve(false);
      throw new HarnessError(`cannot ${op} ${itemId}: run ${runId} is not in the ledger ${this.#table}`, { cause: error });
    });
  }

  /**
   * Sends a two-part transaction (a row written only once, then a counter row) until it applies
   * (true) or a part's condition fails, which `onConditionFailed` answers (part 0 or 1; `again`
   * sends it once more at once). Retried on TransactionConflict (often a duplicate touching the
   * same rows). The SDK's retry strategy does not cover the conflict: it arrives as a
   * TransactionCanceledException (HTTP 400, not retryable) whose reason is in the body, and the
   * rows of a run's counters are shared, so conflicts are common and get their own budget here.
   */
  async #sendTwoPart(
    command: TransactWriteCommand,
    op: string,
    runId: string,
    onConditionFailed: (part: 0 | 1, error: unknown, attempt: number) => Promise<boolean | 'again'>,
  ): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#doc.send(command);
        return true;
      } catch (error) {
        const reasons = cancellationCodes(error);
        if (reasons === undefined) throw this.#fault(op, runId, error);
        const failed = reasons[0] === 'ConditionalCheckFailed' ? 0 : reasons[1] === 'ConditionalCheckFailed' ? 1 : undefined;
        if (failed !== undefined) {
          const answer = await onConditionFailed(failed, error, attempt);
          if (answer === 'again') continue;
          return answer;
        }
        if (!reasons.includes('TransactionConflict') || attempt + 1 >= CONFLICT_RETRIES) throw this.#fault(op, runId, error);
        await this.#sleep(fullJitterMs(attempt + 1, CONFLICT_BACKOFF));
      }
    }
  }

  /**
   * One eventually consistent GetItem of the item row: half a read request unit (an item up to
   * 4 KB; DynamoDB developer guide, "DynamoDB read and write operations"), $0.0625 a million
   * against an S3 GET of the item's document's $0.40 a million: 6.4× cheaper ($0.125 per million
   * read units, $0.0004 per 1,000 GETs, layers/providers/aws-prices.ts). The run's shard count
   * is read once per run and container.
   */
  async countedVerdict(runId: string, itemId: string): Promise<Verdict | undefined> {
    const shards = await this.#layout(runId, 'countedVerdict');
    if (shards === undefined) return undefined;
    const { itemKey } = itemPlace(runId, itemId, shards);
    const out = await this.#call('countedVerdict', runId, () =>
      this.#doc.send(new GetCommand({ TableName: this.#table, Key: itemKey, ProjectionExpression: 'verdict', ConsistentRead: false })),
    );
    return out.Item === undefined ? undefined : (out.Item.verdict as Verdict);
  }

  async recordedItems(runId: string): Promise<Set<string>> {
    const ids = new Set<string>();
    const shards = await this.#layout(runId, 'recordedItems');
    if (shards === undefined) return ids;
    const pks = shards > 0 ? Array.from({ length: shards }, (_, shard) => shardPk(runId, shard)) : [runKey(runId).pk];
    for (const pk of pks) await this.#itemIdsIn(runId, pk, ids);
    return ids;
  }

  /** Adds the item ids of one partition (a shard, or an unsharded run's own) to `ids`. */
  async #itemIdsIn(runId: string, pk: string, ids: Set<string>): Promise<void> {
    let start: Row | undefined;
    do {
      const page = await this.#call('recordedItems', runId, () =>
        this.#doc.send(
          new QueryCommand({
            TableName: this.#table,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :item)',
            ExpressionAttributeValues: { ':pk': pk, ':item': ITEM_PREFIX },
            ProjectionExpression: 'sk',
            ConsistentRead: true,
            ExclusiveStartKey: start,
            Limit: this.#pageSize,
          }),
        ),
      );
      for (const item of page.Items ?? []) ids.add(String(item.sk).slice(ITEM_PREFIX.length));
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
  }

  /**
   * The run's shard count, read once per run and container (its `shards`, absent in runs
   * written before shards: 0); undefined for a run that is not in the ledger.
   */
  async #layout(runId: string, operation: string): Promise<number | undefined> {
    const known = this.#shards.get(runId);
    if (known !== undefined) return known;
    const out = await this.#call(operation, runId, () =>
      this.#doc.send(new GetCommand({ TableName: this.#table, Key: runKey(runId), ProjectionExpression: 'shards', ConsistentRead: true })),
    );
    if (out.Item === undefined) return undefined;
    const shards = Number(out.Item.shards ?? 0);
    this.#shards.set(runId, shards);
    return shards;
  }

  /** @throws HarnessError when the run is not in the ledger */
  async #shardsOf(runId: string, operation: string, itemId: string): Promise<number> {
    const shards = await this.#layout(runId, operation);
    if (shards === undefined) throw new HarnessError(`cannot ${operation} ${itemId}: run ${runId} is not in the ledger ${this.#table}`);
    return shards;
  }

  /**
   * Without a booking id: the cost row, as trySpend. With one: a booking row and the booking's
   * shard count row in one transaction (dynamo-ledger-schema.ts), so an uncapped run's spend is spread
   * like its records and a repeated booking changes nothing.
   */
  async addCost(runId: string, usd: number, bookingId?: string): Promise<void> {
    if (bookingId === undefined) {
      await this.#spend('addCost', runId, usd, null);
      return;
    }
    const shards = await this.#shardsOf(runId, 'addCost', bookingId);
    const { bookingKey, counterKey } = bookingPlace(runId, bookingId, shards);
    await this.#book('addCost', runId, bookingId, bookingKey, counterKey, usd, null);
  }

  /**
   * Several uncapped settlements of one run: their booking rows and ONE count row's sum per
   * transaction (dynamo-booking-batch.ts), each booking id booked once. A run written before
   * shards keeps its bookings on its cost row, one `addCost` each.
   */
  async addCosts(runId: string, bookings: readonly CostBooking[]): Promise<void> {
    if (bookings.length === 0) return;
    const shards = await this.#shardsOf(runId, 'addCosts', (bookings[0] as CostBooking).bookingId);
    if (shards === 0) {
      for (const { bookingId, usd } of bookings) await this.addCost(runId, usd, bookingId);
      return;
    }
    const ctx = { doc: this.#doc, table: this.#table, runId, shards, now: this.#now().toISOString(), sleep: this.#sleep };
    await bookBatch({ ...ctx, fault: (operation, id, cause) => this.#fault(operation, id, cause) }, bookings);
  }

  /**
   * The cost guard's one shared counter: adds `usd` to the run's spend only if the new total
   * stays within `capUsd` (always when null, and for refunds), in ONE conditional UpdateItem on
   * the run's cost row, so every container of every stage draws from the same budget and no
   * record transaction ever holds the row. A condition expression cannot add, so the limit is
   * `capUsd - usd` (with a tolerance for sums of binary fractions).
   */
  async trySpend(runId: string, usd: number, capUsd: number | null, bookingId?: string): Promise<boolean> {
    if (bookingId === undefined) return this.#spend('trySpend', runId, usd, spendLimit(usd, capUsd));
    const shards = await this.#shardsOf(runId, 'trySpend', bookingId);
    const { bookingKey } = bookingPlace(runId, bookingId, shards);
    return this.#book('trySpend', runId, bookingId, bookingKey, costKey(runId), usd, spendLimit(usd, capUsd));
  }

  /**
   * One booking: its row (only if it is not there) and `usd` added to `counterKey` (within
   * `limit` when not null), in one transaction. True when booked now or before (the booking row
   * exists: a redelivery, a retried request), false when the limit refused it. Conflicts are
   * retried as records' are; a run created before cost rows gets its cost row first.
   */
  async #book(
    op: string,
    runId: string,
    bookingId: string,
    bookingKey: { pk: string; sk: string },
    counterKey: { pk: string; sk: string },
    usd: number,
    limit: number | null,
  ): Promise<boolean> {
    const condition = limit === null ? 'attribute_exists(pk)' : 'attribute_exists(pk) AND costUsd <= :limit';
    const values: Row = limit === null ? { ':usd': usd } : { ':usd': usd, ':limit': limit };
    const command = new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: this.#table, Item: { ...bookingKey, usd, at: this.#now().toISOString() }, ConditionExpression: 'attribute_not_exists(pk)' } },
        {
          Update: {
            TableName: this.#table,
            Key: counterKey,
            UpdateExpression: 'ADD costUsd :usd',
            ConditionExpression: condition,
            ExpressionAttributeValues: values,
          },
        },
      ],
    });
    return this.#sendTwoPart(command, op, runId, async (part, error, attempt) => {
      // The booking row exists: booked before (a redelivery, a retried request).
      if (part === 0) return true;
      // A run created before cost rows existed: create its row (once), then book again.
      if (counterKey.sk === costKey(runId).sk && attempt === 0 && (await this.#createCostRow(runId))) return 'again';
      if (limit !== null) return false;
      throw new HarnessError(`cannot ${op} ${bookingId}: run ${runId} is not in the ledger ${this.#table}`, { cause: error });
    });
  }

  async #spend(operation: string, runId: string, usd: number, limit: number | null): Promise<boolean> {
    const condition = limit === null ? 'attribute_exists(pk)' : 'attribute_exists(pk) AND costUsd <= :limit';
    const values: Row = limit === null ? { ':usd': usd } : { ':usd': usd, ':limit': limit };
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#doc.send(
          new UpdateCommand({
            TableName: this.#table,
            Key: costKey(runId),
            UpdateExpression: 'ADD costUsd :usd',
            ConditionExpression: condition,
            ExpressionAttributeValues: values,
          }),
        );
        return true;
      } catch (error) {
        if (awsErrorName(error) !== 'ConditionalCheckFailedException') throw this.#fault(operation, runId, error);
        if ((await this.getRun(runId)) === undefined)
          throw new HarnessError(`${operation}: run ${runId} is not in the ledger ${this.#table}`, { cause: error });
        // A run created before cost rows existed: create its row (once), then spend again.
        if (attempt === 0 && (await this.#createCostRow(runId))) continue;
        if (limit === null) throw this.#fault(operation, runId, error);
        return false;
      }
    }
  }

  /** Creates the cost row of a run that has none; false when it exists already. */
  async #createCostRow(runId: string): Promise<boolean> {
    try {
      await this.#doc.send(
        new PutCommand({ TableName: this.#table, Item: { ...costKey(runId), costUsd: 0 }, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
      return true;
    } catch (error) {
      if (awsErrorName(error) === 'ConditionalCheckFailedException') return false;
      throw this.#fault('createCostRow', runId, error);
    }
  }

  async setStatus(runId: string, status: RunStatus, reason?: string): Promise<void> {
    const { expression, values } = statusUpdate(status, reason);
    try {
      // A cancel is final: no stage that read the run before the cancel landed may undo it.
      await this.#updateRun(
        'setStatus',
        runId,
        expression,
        { ...values, ':cancelled': FINAL_STATUS },
        { '#s': 'status' },
        'attribute_exists(pk) AND #s <> :cancelled',
      );
    } catch (error) {
      const conditionFailed = error instanceof HarnessError && awsErrorName(error.cause) === 'ConditionalCheckFailedException';
      if (conditionFailed && !statusMayChange((await this.getRun(runId))?.status)) return;
      throw error;
    }
  }

  async claimStatus(runId: string, from: readonly RunStatus[], status: RunStatus, reason?: string): Promise<boolean> {
    if (from.length === 0) return false;
    const { expression, values } = statusUpdate(status, reason);
    const fromValues = Object.fromEntries(from.map((s, i) => [`:from${i}`, s]));
    try {
      await this.#sendRunUpdate(
        runId,
        expression,
        { ...values, ...fromValues },
        { '#s': 'status' },
        `attribute_exists(pk) AND #s IN (${Object.keys(fromValues).join(', ')})`,
      );
      return true;
    } catch (error) {
      if (awsErrorName(error) === 'ConditionalCheckFailedException') return false;
      throw this.#fault('claimStatus', runId, error);
    }
  }

  /**
   * Sets the planned item count. Not (yet) on the RunLedger port: the api creates a run before
   * its dataset is loaded and plan fills the count in (see layers/app/cloud/ledger.ts).
   */
  async setItems(runId: string, items: number): Promise<void> {
    await this.#updateRun('setItems', runId, 'SET #items = :items, updatedAt = :now', { ':items': items }, { '#items': 'items' });
  }

  async #updateRun(
    operation: string,
    runId: string,
    expression: string,
    values: Row,
    names?: Record<string, string>,
    condition = 'attribute_exists(pk)',
  ): Promise<void> {
    try {
      await this.#sendRunUpdate(runId, expression, values, names, condition);
    } catch (error) {
      if (awsErrorName(error) === 'ConditionalCheckFailedException') {
        throw new HarnessError(`${operation}: run ${runId} is not in the ledger ${this.#table}`, { cause: error });
      }
      throw this.#fault(operation, runId, error);
    }
  }

  /** One conditional UpdateItem on the run's row (`:now` added to the values). */
  async #sendRunUpdate(runId: string, expression: string, values: Row, names: Record<string, string> | undefined, condition: string): Promise<void> {
    await this.#doc.send(
      new UpdateCommand({
        TableName: this.#table,
        Key: runKey(runId),
        UpdateExpression: expression,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ...values, ':now': this.#now().toISOString() },
      }),
    );
  }

  async #batchGet(keys: Row[], operation: string): Promise<Row[]> {
    const rows: Row[] = [];
    for (let start = 0; start < keys.length; start += 100) {
      // UnprocessedKeys come in a successful answer, which the SDK's retry strategy never sees.
      let pending: Row[] = keys.slice(start, start + 100);
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await this.#sleep(fullJitterMs(attempt + 1, UNPROCESSED_BACKOFF));
        const request = { [this.#table]: { Keys: pending, ConsistentRead: true } };
        const out = await this.#call(operation, '*', () => this.#doc.send(new BatchGetCommand({ RequestItems: request })));
        rows.push(...(out.Responses?.[this.#table] ?? []));
        pending = (out.UnprocessedKeys?.[this.#table]?.Keys as Row[] | undefined) ?? [];
      }
    }
    return rows;
  }

  async #call<R>(operation: string, runId: string, send: () => Promise<R>): Promise<R> {
    try {
      return await send();
    } catch (error) {
      throw this.#fault(operation, runId, error);
    }
  }

  #fault(operation: string, runId: string, cause: unknown): HarnessError {
    return new HarnessError(`DynamoDB ${operation} failed for run ${runId} in ${this.#table}: ${awsErrorName(cause)}`, { cause });
  }
}

/** The update that sets a run's status: a status without a reason clears the previous one (a resumed run is no longer "failed: …"). */
function statusUpdate(status: RunStatus, reason: string | undefined): { expression: string; values: Row } {
  return reason === undefined
    ? { expression: 'SET #s = :s, updatedAt = :now REMOVE reason', values: { ':s': status } }
    : { expression: 'SET #s = :s, updatedAt = :now, reason = :r', values: { ':s': status, ':r': reason } };
}
