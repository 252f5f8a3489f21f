/**
 * The scorer registry holds each kind as a scorer of any task without erasing its type: a task
 * of another kind is refused at the door (a cast would hand it to the kind's code unnoticed).
 */
import { describe, expect, it } from 'vitest';
import { HarnessError } from '#core/errors.ts';
import { scorerByKind, SCORERS } from '#core/scorers/index.ts';
import { TaskSchema } from '#core/run/task-schema.ts';
import { likertTask as makeLikertTask } from '../../support/tasks.ts';

const likertTask = makeLikertTask();

describe('the scorer registry', () => {
  it('holds one scorer per kind, each answering for its own tasks', () => {
    expect(SCORERS.map((s) => s.id)).toEqual(['io-tests', 'unit-tests', 'likert']);
    expect(scorerByKind('likert').viewFields(likertTask).length).toBeGreaterThan(0);
    expect(scorerByKind('likert').testsTotal(likertTask)).toBeGreaterThanOrEqual(0);
  });

  it.each(['io-tests', 'unit-tests'])('refuses a likert task given to the %s scorer, naming both kinds', (kind) => {
    const scorer = scorerByKind(kind);
    expect(() => scorer.testsTotal(likertTask)).toThrow(HarnessError);
    expect(() => scorer.viewFields(likertTask)).toThrow(`the ${kind} scorer was given a likert task (abricot-1-abstractness)`);
  });

  it('refuses an execution job whose task is of another kind', () => {
    const execute = scorerByKind('io-tests').execute;
    expect(execute).toBeDefined();
    expect(() => execute?.({ scorer: 'io-tests', task: likertTask, language: 'python', code: '' }, {} as never, { token: () => 't' })).toThrow(HarnessError);
  });
});

describe('the stored task schema (run/task-schema.ts), one discriminated union of the kinds’ schemas', () => {
  it('reads a task of each kind back, and names the field a task of that kind lacks', () => {
    expect(TaskSchema.parse(likertTask)).toEqual(likertTask);
    const { gold: _gold, ...noGold } = likertTask;
    const result = TaskSchema.safeParse(noGold);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['gold']);
    expect(TaskSchema.safeParse({ ...likertTask, kind: 'essay' }).success).toBe(false);
  });
});
