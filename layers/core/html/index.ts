/** HTML and SVG building blocks of the self-contained pages (the run report, comparisons, leaderboards): escaping, charts, interval bars. */
export { likertCharts, verdictCharts } from './charts.ts';
export { clipField } from './clip.ts';
export { escapeHtml, fmtValue, metricCell, sliceLabel } from './escape.ts';
export { axisFor, intervalBar } from './interval-bar.ts';
export { likertAnalysesSection } from './likert-analyses.ts';
export { stackedBars } from './svg.ts';
