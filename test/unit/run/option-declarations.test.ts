/**
 * Adding a run option is one declaration: a toy option added to a registry (the shipped
 * declarations plus one entry, with one rule) appears in the CLI's `--help` under its group,
 * parses from its flag, is accepted by the spec validator the HTTP API uses and by a sweep grid,
 * and a sweep file may use its alias; its rule refuses alike on the CLI and the API validator.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InputError } from '#core/errors.ts';
import { RunSpecSchema, parseRunSpec } from '#core/run/spec.ts';
import { RUN_OPTIONS, RUN_RULES } from '#core/run/run-options.ts';
import { aliasesOf, groupHeading, runOption, specParserOf, type OptionRule } from '#core/run/option-registry.ts';
import { addSpecOptions, gridFromFlags, type SpecFlags } from '../../../bin/cli/spec-options.ts';

const TOY_OPTIONS = {
  ...RUN_OPTIONS,
  toyKnob: runOption({
    schema: z.number().int().min(0).max(9).optional(),
    group: 'sampling',
    help: 'a toy knob (0–9)',
    cli: { flags: '--toy-knob <k>', parse: { kind: 'int', min: 0 } },
    aliases: ['toy_knob'],
  }),
};
const TOY_RULES: OptionRule<Readonly<Record<string, unknown>>>[] = [
  ...RUN_RULES,
  { id: 'toy-knob-requires-n', field: 'toyKnob', check: (v) => (v.toyKnob !== undefined && v.n === undefined ? '--toy-knob needs -n' : undefined) },
];
const parseToy = specParserOf(TOY_OPTIONS, TOY_RULES);

function cli(argv: string[]): { command: Command; flags: SpecFlags } {
  const command = addSpecOptions(new Command('run').exitOverride(), { benchmark: '<benchmark>', model: '<provider>' }, TOY_OPTIONS);
  command.parse(argv, { from: 'user' });
  return { command, flags: command.opts<SpecFlags>() };
}

function refusal(action: () => unknown): InputError {
  try {
    action();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('a run option is one declaration', () => {
  it('the shipped spec schema is the declarations, field for field', () => {
    expect(Object.keys(RunSpecSchema.shape)).toEqual(Object.keys(RUN_OPTIONS));
  });

  it('a toy option shows in --help under its group, parses, and is validated alike by the CLI, the API validator and a sweep grid', () => {
    const help = cli([]).command.helpInformation();
    const sampling = help.slice(help.indexOf(groupHeading('sampling')));
    expect(sampling.slice(0, sampling.indexOf('\n\n'))).toMatch(/--toy-knob <k>\s+a toy knob \(0–9\)/);

    const [spec] = gridFromFlags(cli(['-b', 'sample/abricot', '-n', '2', '--toy-knob', '3']).flags, TOY_OPTIONS, parseToy);
    expect(spec).toMatchObject({ benchmark: 'sample/abricot', model: 'reference', n: 2, toyKnob: 3 });
    // The API's body, validated as POST /runs validates (schema, then rules), with the toy registry.
    expect(parseToy({ benchmark: 'sample/abricot', model: 'reference', n: 2, toyKnob: 3 }, 'request body')).toMatchObject({ toyKnob: 3 });
    // The shipped validator never heard of it.
    expect(refusal(() => parseRunSpec({ benchmark: 'sample/abricot', model: 'reference', toyKnob: 3 })).location.field).toBeUndefined();

    // A sweep grid: every cell carries it; a sweep file may call it by its alias.
    const grid = gridFromFlags(
      cli(['-b', 'sample/abricot', '-m', 'reference', '-m', 'replay:x.jsonl', '-n', '1', '--toy-knob', '4']).flags,
      TOY_OPTIONS,
      parseToy,
    );
    expect(grid.map((s) => s.toyKnob)).toEqual([4, 4]);
    expect(aliasesOf(TOY_OPTIONS).toy_knob).toBe('toyKnob');

    // Its rule: the same refusal from the flags and from a request body.
    const fromFlags = refusal(() => gridFromFlags(cli(['-b', 'sample/abricot', '--toy-knob', '3']).flags, TOY_OPTIONS, parseToy));
    const fromBody = refusal(() => parseToy({ benchmark: 'sample/abricot', model: 'reference', toyKnob: 3 }, 'request body'));
    expect([fromFlags.detail, fromFlags.location.field]).toEqual(['--toy-knob needs -n', 'toyKnob']);
    expect([fromBody.detail, fromBody.location.field]).toEqual([fromFlags.detail, fromFlags.location.field]);

    // Its flag's own parser refuses a bad value naming the flag.
    expect(refusal(() => cli(['-b', 'sample/abricot', '--toy-knob', '-1'])).location.field).toBe('--toy-knob');
  });
});
