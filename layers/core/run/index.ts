/**
 * A run (DESIGN §2): its options and spec, plan and manifest, the per-item engine, the
 * lifecycle rules every driver follows, the stored documents and keys, the ledger's rules,
 * batches, and the Parquet tables. Not here: `orchestrate.ts` and `run-ports.ts`, which drive a
 * run through the report and so sit in an outer ring (scripts/import-graph.ts): each is its own door.
 */
export { markBatchCells } from './batch-cells.ts';
export { batchKeys, describeJob, itemKeyOf, parseBatchJob, type BatchJobDocument } from './batch-jobs.ts';
export { finishJob, generateInBatches, loadJobs, pollJob, reservePlannedJob, saveJob, submitJob } from './batch-stage.ts';
export { SCHEMA_VERSION, parseStored, parseStoredLines, parseStoredValue, parseUserDocument, schemaVersionField, storedJson } from './documents.ts';
export {
  GeneratedItemSchema,
  costGuardOf,
  generateItem,
  newRunState,
  parseItemDocument,
  recordItem,
  scoreItem,
  type EngineDeps,
  type GeneratedItem,
  type ItemDocument,
  type RunContext,
  type RunDefinition,
} from './engine.ts';
export { itemId, keys, safeSegment } from './keys.ts';
export { FINAL_STATUS, spendLimit, statusMayChange, withinCap } from './ledger-policy.ts';
export {
  decideItem,
  itemToSend,
  readyToAggregate,
  recordSettings,
  recordsOf,
  resumeDecisions,
  stageErrorDecision,
  statusOfStageError,
  type RunSettings,
} from './lifecycle.ts';
export { loadTasks } from './load.ts';
export { readManifest, readManifestAt, type DocumentSource } from './manifest-store.ts';
export { ManifestSchema, parseManifest, protocolChoiceOfManifest, type Manifest } from './manifest.ts';
export {
  OPTION_GROUPS,
  aliasesOf,
  checkRules,
  groupHeading,
  longFlagOf,
  spellingsOf,
  type OptionRule,
  type RunOption,
  type RunOptions,
} from './option-registry.ts';
export { decodeRecords, encodeMetrics, encodeRecords } from './parquet.ts';
export type { ItemGate, PipelineOptions } from './pipeline.ts';
export { WorkItemSchema, planRun, replanItems, type LoadedBenchmark, type WorkItem } from './plan.ts';
export { RUN_OPTIONS } from './run-options.ts';
export { RunSpecSchema, parseRecordedRunSpec, parseRunSpec, protocolChoiceOf, type RunSpec } from './spec.ts';
export { TaskSchema } from './task-schema.ts';
