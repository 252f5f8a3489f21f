import { describe, expect, it } from 'vitest';
import { FunctionStates, notActiveError, REACTIVATION_MS } from '../../../sim/cloud/limits/function-state.ts';

describe('function states', () => {
  it('fails the invocation that finds a function Inactive, then the ones while it is Pending, then serves', () => {
    const states = new FunctionStates();
    states.markInactive('runner');
    expect(states.invoke('runner', 0)).toBe('Inactive');
    expect(states.invoke('runner', REACTIVATION_MS - 1)).toBe('Pending');
    expect(states.invoke('runner', REACTIVATION_MS)).toBe('Active');
    expect(states.invoke('other', 0)).toBe('Active');
  });

  it('answers Inactive with ResourceNotReadyException (502) and Pending with ResourceConflictException (409), as the Invoke API does', () => {
    expect(notActiveError('runner', 'Inactive')).toMatchObject({ name: 'ResourceNotReadyException', status: 502 });
    expect(notActiveError('runner', 'Pending')).toMatchObject({ name: 'ResourceConflictException', status: 409 });
    expect(notActiveError('runner', 'Pending').message).toMatch(/currently in the following state: Pending/);
  });
});
