/**
 * Athena's concurrency: the "Active DML queries" quota (queries running or queued at once per
 * account and Region; 20 in most Regions by default, adjustable). A query beyond it fails
 * with `TooManyRequestsException` ("Rate exceeded" / too many queued queries).
 * Page: "Service Quotas" (Athena), https://docs.aws.amazon.com/athena/latest/ug/service-limits.html
 */

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
