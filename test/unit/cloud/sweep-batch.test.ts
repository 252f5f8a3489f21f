// A sweep's batch cells: the nightly configuration's `batch` (every cell, or the cells of the
// models it names), and the rule the CLI's --batch-model shares (layers/core/run/batch-cells.ts).
import { describe, expect, it } from 'vitest';
import { parseSweep, sweepSpecs } from '#app/cloud/sweep.ts';
import { markBatchCells } from '#core/run/batch-cells.ts';
import { InputError } from '#core/errors.ts';
import { parseRunSpec } from '#core/run/spec.ts';

const BEDROCK = 'bedrock:anthropic.claude-3-5-haiku-20241022-v1:0';
const OPENAI = 'openai:https://llm.internal/v1#my-finetune';
const sweep = (batch?: unknown) =>
  parseSweep({ benchmarks: ['rocode', 'abricot'], models: [BEDROCK, OPENAI, 'reference'], ...(batch === undefined ? {} : { batch }) });
const batchOf = (specs: { benchmark: string; model: string; batch?: boolean }[]) => specs.map((s) => `${s.benchmark}|${s.model}|${s.batch === true}`);

describe('a nightly sweep’s batch cells', () => {
  it('are none without `batch`, and only the named models’ cells with a list', () => {
    expect(sweepSpecs(sweep()).every((s) => s.batch === undefined)).toBe(true);
    expect(batchOf(sweepSpecs(sweep([OPENAI])))).toEqual([
      `rocode|${BEDROCK}|false`,
      `rocode|${OPENAI}|true`,
      'rocode|reference|false',
      `abricot|${BEDROCK}|false`,
      `abricot|${OPENAI}|true`,
      'abricot|reference|false',
    ]);
  });

  it('with `batch: true` are every cell, so a model without a batch API is refused naming it', () => {
    const withBatchApis = parseSweep({ benchmarks: ['rocode'], models: [BEDROCK, OPENAI], batch: true });
    expect(sweepSpecs(withBatchApis).map((s) => s.batch)).toEqual([true, true]);
    expect(() => sweepSpecs(sweep(true), 'SSM parameter /polyeval/nightly')).toThrow(
      /SSM parameter \/polyeval\/nightly.*batch: model "reference" cannot run as a batch: .*provider "reference" has no batch API/,
    );
  });

  it('refuses a listed model the sweep does not run, and a batch field of another type, naming batch', () => {
    expect(() => sweepSpecs(sweep(['openai:https://other/v1#x']))).toThrow(/batch "openai:https:\/\/other\/v1#x" is not one of the sweep's models/);
    expect(() => sweep('yes')).toThrow(InputError);
    expect(() => sweep('yes')).toThrow(/batch/);
    expect(() => sweep([])).toThrow(/batch/);
  });
});

describe('markBatchCells', () => {
  const specs = [OPENAI, 'reference'].map((model) => parseRunSpec({ benchmark: 'sample/abricot', model }, 'test'));

  it('marks the cells of a model named exactly as given, and asks the provider check about it only', () => {
    const asked: string[] = [];
    const marked = markBatchCells(specs, [` ${OPENAI} `], '--batch-model', (m) => void asked.push(m));
    expect(marked.map((s) => s.batch === true)).toEqual([true, false]);
    expect(asked).toEqual([OPENAI]);
    expect(
      markBatchCells(specs, false, '--batch-model', () => {
        throw new Error('not asked');
      }),
    ).toEqual(specs);
  });

  it('names the flag and the model when the provider check refuses it', () => {
    const refuse = (): never => {
      throw new InputError('--batch: provider "reference" has no batch API in polyeval', { field: 'batch' });
    };
    expect(() => markBatchCells(specs, ['reference'], '--batch-model', refuse)).toThrow(
      '--batch-model: model "reference" cannot run as a batch: --batch: provider "reference" has no batch API in polyeval',
    );
  });
});
