/**
 * The simulation's process settings, imported first by simulate.ts so they hold before any
 * stage module loads:
 * - AWS_XRAY_MANUAL_MODE: aws-xray-sdk-core (loaded by Powertools' tracer) otherwise creates
 *   its cls-hooked namespace at import, an async hook with init/before/after/destroy on every
 *   promise ("automatic mode", aws-xray-sdk-core 3.12.0 dist/lib/context_utils.js); the
 *   simulation traces nothing, and that hook was a third of its CPU and most of its garbage.
 * - Powertools: no tracing, no metrics, logs only when SIM_LOG asks for them.
 */
process.env.AWS_XRAY_MANUAL_MODE ??= 'true';
process.env.POWERTOOLS_TRACE_ENABLED = 'false';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = process.env.SIM_LOG ?? 'SILENT';

export {};
