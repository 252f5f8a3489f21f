/**
 * A run's results read back: aggregation into the metrics table, the summary and the HTML
 * report (aggregate.ts), comparisons, and leaderboards.
 */
export {
  aggregateRun,
  documentFromRecord,
  metricKey,
  parseRunSummary,
  readItems,
  summariseRecords,
  type ExtraMetrics,
  type MetricValue,
  type RunSummaryDocument,
} from './aggregate.ts';
export { renderCompareHtml } from './compare-html.ts';
export { groupBoards, type Board, type BoardRun } from './leaderboard-boards.ts';
export { renderLeaderboardHtml } from './leaderboard-html.ts';
export { boardLabel, boardRunOfManifest, buildLeaderboard, type LeaderboardOptions, type LeaderboardRow, type LeaderboardRun } from './leaderboard.ts';
