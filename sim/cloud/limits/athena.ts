/**
 * Athena's concurrency: the "Active DML queries" quota, per account and Region. "A DML or DDL
 * query quota includes both running and queued queries. For example, if your DML query quota
 * is 25 and your total of running and queued queries is 26, query 26 will result in a
 * TooManyRequestsException error." The default "var[ies] by AWS Region": Service Quotas lists
 * 200 in us-east-1, 100 or 150 in other large Regions and 20 in the rest; this module takes
 * the smallest, 20, so a design that fits it fits every Region (adjustable quota: pass the
 * account's value).
 * Pages: "Service Quotas" (Athena), https://docs.aws.amazon.com/athena/latest/ug/service-limits.html;
 * "Amazon Athena endpoints and quotas", https://docs.aws.amazon.com/general/latest/gr/athena.html
 * Not used by the cloud-scale simulation: the pipeline it drives (plan → aggregate) runs no
 * Athena query; the leaderboard runs at most 4 board queries at once per command
 * (layers/app/cloud/leaderboard.ts BOARD_QUERIES), and its query strings stay under the
 * 262,144-byte limit (layers/aws/athena-sql.ts ATHENA_MAX_QUERY_BYTES).
 */

/** The smallest Regional default of Active DML queries. */
export const ATHENA_ACTIVE_DML_QUERIES = 20;

export class AthenaConcurrency {
  #active = 0;
  refused = 0;

  constructor(readonly limit = ATHENA_ACTIVE_DML_QUERIES) {}

  /** Starts a query; throws TooManyRequestsException when `limit` are active. Returns its release. */
  start(): () => void {
    if (this.#active >= this.limit) {
      this.refused += 1;
      throw Object.assign(new Error(`${this.limit} DML queries are active`), { name: 'TooManyRequestsException' });
    }
    this.#active += 1;
    let done = false;
    return () => {
      if (!done) this.#active -= 1;
      done = true;
    };
  }
}
