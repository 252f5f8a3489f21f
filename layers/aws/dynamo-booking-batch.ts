/**
 * A generate invocation's cost bookings in as few TransactWriteItems as DynamoDB allows (issue 35:
 * ledger writes per item). `addCost` with a booking id is a 2-action transaction per model call —
 * the booking row `BOOK#<id>` put-if-absent and its shard's count row (`ADD costUsd`) — 4 write
 * units a call. A batch writes every booking row put-if-absent in its own shard and ONE update of
 * the first booking's shard's count row adding the batch's sum: 2 units a call and 2 a transaction
 * (a generate batch of 12: 48 units → 26). The transactions, their limits and what a cancelled one
 * answers (a booking made before is taken out, the rest sent again) are dynamo-once-batch.ts's,
 * shared with the judge's records, so a redelivered call is still booked at most once and a
 * failure books nothing of its transaction.
 *
 * Only an uncapped run's settlements come here (layers/app/cloud/booking-batch.ts): a capped
 * run's reservations and settlements are checked against its cap on the cost row, one call at a
 * time (dynamo-run-ledger.ts trySpend), and stay so.
 *
 * The sum is exact: DynamoDB adds numbers in decimal (38 significant digits, "Data types",
 * Number, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html),
 * each booking as the shortest decimal of its double (what the document client sends, util-dynamodb
 * convertToAttr: `num.toString()`). The batch's sum is that same decimal sum, sent as a string
 * (NumberValue), so a counter holds what one `ADD` per booking would have left there — not a
 * double sum's rounding (0.1 + 0.2 books 0.3).
 */
import { NumberValue, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { CostBooking } from '../core/ports.ts';
import { HarnessError } from '../core/errors.ts';
import { bookingPlace } from './dynamo-ledger-schema.ts';
import { writeOnceEach, type OnceBatchContext } from './dynamo-once-batch.ts';

export interface BookingBatchContext extends OnceBatchContext {
  /** The run's shard count (> 0: a run written before shards books one call at a time). */
  shards: number;
  now: string;
}

/** Books `bookings` of one run: per booking, true when booked now, false when booked before (or earlier in the batch). */
export function bookBatch(ctx: BookingBatchContext, bookings: readonly CostBooking[]): Promise<boolean[]> {
  return writeOnceEach(ctx, { operation: 'addCosts', idOf: (b) => b.bookingId, transaction: (batch) => transaction(ctx, batch) }, bookings);
}

/** The booking rows (put if absent) and one update of the first booking's count row by their exact sum. */
function transaction(ctx: BookingBatchContext, bookings: readonly CostBooking[]): TransactWriteCommand {
  const { counterKey } = bookingPlace(ctx.runId, (bookings[0] as CostBooking).bookingId, ctx.shards);
  return new TransactWriteCommand({
    TransactItems: [
      ...bookings.map(({ bookingId, usd }) => ({
        Put: {
          TableName: ctx.table,
          Item: { ...bookingPlace(ctx.runId, bookingId, ctx.shards).bookingKey, usd, at: ctx.now },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      })),
      {
        Update: {
          TableName: ctx.table,
          Key: counterKey,
          UpdateExpression: 'ADD costUsd :usd',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':usd': NumberValue.from(decimalSum(bookings.map((b) => b.usd))) },
        },
      },
    ],
  });
}

/** DynamoDB's limit on a number's significant digits. */
const MAX_DIGITS = 38;

/**
 * The exact decimal sum of `values`, each taken as its shortest decimal (`String(n)`), as a
 * decimal string; the double sum's when the exact one needs more than DynamoDB's 38 digits.
 * @throws HarnessError for a value that is not a finite number
 */
export function decimalSum(values: readonly number[]): string {
  const parts = values.map(decimalOf);
  const scale = Math.max(0, ...parts.map((p) => p.scale));
  const total = parts.reduce((sum, p) => sum + p.digits * 10n ** BigInt(scale - p.scale), 0n);
  const text = formatDecimal(total, scale);
  return text
    .replace(/^-?0*\.?0*/, '')
    .replace(/\./, '')
    .replace(/0+$/, '').length > MAX_DIGITS
    ? String(values.reduce((a, b) => a + b, 0))
    : text;
}

function decimalOf(value: number): { digits: bigint; scale: number } {
  const match = Number.isFinite(value) ? /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value)) : null;
  if (match === null) throw new HarnessError(`cannot book ${value} USD: not a finite number`);
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const scale = fraction.length - Number(exponent);
  const digits = BigInt(`${sign}${whole}${fraction}`);
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

function formatDecimal(total: bigint, scale: number): string {
  const negative = total < 0n;
  const padded = (negative ? -total : total).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? padded : `${padded.slice(0, -scale)}.${padded.slice(-scale)}`.replace(/\.?0+$/, '');
  return negative ? `-${text}` : text;
}
