/**
 * The run request, validated by one zod schema and one set of rules shared by the CLI, the
 * HTTP API and sweeps, all derived from the option declarations in run-options.ts.
 * A bad value is rejected with a message naming the field and the reason.
 */
import type { z } from 'zod';
import type { ProtocolChoice } from '../benchmarks/index.ts';
import { specParserOf, specSchemaOf } from './option-registry.ts';
import { RUN_OPTIONS, RUN_RULES } from './run-options.ts';

export { PriceSchema } from './run-options.ts';

/** The run spec's schema, derived from the option declarations (run-options.ts); its stored shape is flat. */
export const RunSpecSchema = specSchemaOf(RUN_OPTIONS);

export type RunSpec = z.output<typeof RunSpecSchema>;
export type RunSpecInput = z.input<typeof RunSpecSchema>;

const parse = specParserOf(RUN_OPTIONS, RUN_RULES);

/** Validates a run request (schema, then the rules between options); throws InputError naming the first bad field. */
export function parseRunSpec(input: unknown, origin = 'run request'): RunSpec {
  return parse(input, origin);
}

const parseRecorded = specParserOf(RUN_OPTIONS, []);

/**
 * Re-reads a spec an earlier run of polyeval recorded (a sweep document's cells): the schema
 * only. The rules between options refuse a request; a recorded cell they refuse (written before
 * they ran at validation) fails as its own cell when it is planned, as it did then, so the
 * sweep's other cells and their recorded runs still resume.
 */
export function parseRecordedRunSpec(input: unknown, origin: string): RunSpec {
  return parseRecorded(input, origin);
}

/** The protocol part of a run spec, as `bindProtocol` takes it. */
export function protocolChoiceOf(
  spec: Pick<RunSpec, 'protocol' | 'rowLimits' | 'promptStyle' | 'shots' | 'gold' | 'shotSeed' | 'chatTemplate' | 'promptLanguage' | 'timeClock'>,
): ProtocolChoice {
  return {
    ...(spec.protocol !== undefined ? { protocol: spec.protocol } : {}),
    ...(spec.rowLimits ? { rowLimits: true } : {}),
    ...(spec.promptStyle !== undefined ? { promptStyle: spec.promptStyle } : {}),
    ...(spec.shots !== undefined ? { shots: spec.shots } : {}),
    ...(spec.gold !== undefined ? { gold: spec.gold } : {}),
    ...(spec.shotSeed !== undefined ? { shotSeed: spec.shotSeed } : {}),
    ...(spec.chatTemplate !== undefined ? { chatTemplate: spec.chatTemplate } : {}),
    ...(spec.promptLanguage !== undefined ? { promptLanguage: spec.promptLanguage } : {}),
    ...(spec.timeClock !== undefined ? { timeClock: spec.timeClock } : {}),
  };
}
