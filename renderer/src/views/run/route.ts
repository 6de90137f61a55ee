// Where the Run view stands, all in the URL so a link opens it: `#/run?run=ID&agent=0.1&turn=2`
// (and `&mode=replay` to step through a finished run; `&job=JOB&step=N` for a training rollout
// opened from the Train view, whose cards then show how it was trained). No run: the start form.
export type RunMode = 'live' | 'replay';

/** The training job (and its step) a rollout was opened from. */
export interface TrainingRef {
  jobId: string;
  step?: number | undefined;
}

export interface RunLocation {
  runId: string | undefined;
  agentId: string | undefined;
  turn: number | undefined;
  mode: RunMode;
  training?: TrainingRef | undefined;
}

const agentPath = /^0(\.\d+)*$/;

const nonEmpty = (value: string | null) => (value === null || value === '' ? undefined : value);

export function readRunLocation(params: URLSearchParams): RunLocation {
  const agent = params.get('agent');
  const turn = params.get('turn');
  const job = nonEmpty(params.get('job'));
  const step = params.get('step');
  return {
    runId: nonEmpty(params.get('run')),
    agentId: agent !== null && agentPath.test(agent) ? agent : undefined,
    turn: turn !== null && /^\d+$/.test(turn) ? Number(turn) : undefined,
    mode: params.get('mode') === 'replay' ? 'replay' : 'live',
    training:
      job === undefined
        ? undefined
        : { jobId: job, step: step !== null && /^[1-9]\d*$/.test(step) ? Number(step) : undefined },
  };
}

export function runHref(target: Partial<RunLocation>): string {
  const params = new URLSearchParams();
  if (target.runId !== undefined) {
    params.set('run', target.runId);
    if (target.agentId !== undefined) {
      params.set('agent', target.agentId);
      if (target.turn !== undefined) params.set('turn', String(target.turn));
    }
    if (target.mode === 'replay') params.set('mode', 'replay');
    if (target.training) {
      params.set('job', target.training.jobId);
      if (target.training.step !== undefined) params.set('step', String(target.training.step));
    }
  }
  const search = params.toString();
  return search === '' ? '/run' : `/run?${search}`;
}
