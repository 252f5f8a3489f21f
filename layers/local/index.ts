/** Local adapters of the five ports (DESIGN §4). */
export { FsBlobStore } from './fs-blob-store.ts';
export { FileRunLedger } from './file-run-ledger.ts';
export { InProcessWorkQueue, type InProcessWorkQueueOptions } from './in-process-work-queue.ts';
export { DuckDbResultsQuery } from './duckdb-results-query.ts';
export { makeDirsSync } from './make-dirs.ts';
