import { describe, expect, it } from 'vitest';
import { readRunLocation, runHref } from './route.ts';

describe('run route', () => {
  it('round-trips a run, agent, turn and mode', () => {
    const href = runHref({ runId: 'r 1', agentId: '0.1.2', turn: 3, mode: 'replay' });
    expect(href).toBe('/run?run=r+1&agent=0.1.2&turn=3&mode=replay');
    const params = new URLSearchParams(href.slice(href.indexOf('?')));
    expect(readRunLocation(params)).toEqual({
      runId: 'r 1',
      agentId: '0.1.2',
      turn: 3,
      mode: 'replay',
    });
  });

  it('ignores malformed agents and turns, and no run means the start form', () => {
    expect(readRunLocation(new URLSearchParams('run=x&agent=1.2&turn=-1'))).toEqual({
      runId: 'x',
      agentId: undefined,
      turn: undefined,
      mode: 'live',
    });
    expect(runHref({})).toBe('/run');
  });

  it('carries the training job and step a rollout was opened from', () => {
    const href = runHref({ runId: 'r', agentId: '0.0', training: { jobId: 'job-1', step: 4 } });
    expect(href).toBe('/run?run=r&agent=0.0&job=job-1&step=4');
    const params = new URLSearchParams(href.slice(href.indexOf('?')));
    expect(readRunLocation(params).training).toEqual({ jobId: 'job-1', step: 4 });
    expect(readRunLocation(new URLSearchParams('run=r&job=j&step=0')).training).toEqual({
      jobId: 'j',
      step: undefined,
    });
    expect(readRunLocation(new URLSearchParams('run=r&step=2')).training).toBeUndefined();
  });
});
