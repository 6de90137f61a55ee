// Where the Run view stands, all in the URL so a link opens it: `#/run?run=ID&agent=0.1&turn=2`
// (and `&mode=replay` to step through a finished run). No run: the start form.
export type RunMode = 'live' | 'replay';

export interface RunLocation {
  runId: string | undefined;
  agentId: string | undefined;
  turn: number | undefined;
  mode: RunMode;
}

const agentPath = /^0(\.\d+)*$/;

const nonEmpty = (value: string | null) => (value === null || value === '' ? undefined : value);

export function readRunLocation(params: URLSearchParams): RunLocation {
  const agent = params.get('agent');
  const turn = params.get('turn');
  return {
    runId: nonEmpty(params.get('run')),
    agentId: agent !== null && agentPath.test(agent) ? agent : undefined,
    turn: turn !== null && /^\d+$/.test(turn) ? Number(turn) : undefined,
    mode: params.get('mode') === 'replay' ? 'replay' : 'live',
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
  }
  const search = params.toString();
  return search === '' ? '/run' : `/run?${search}`;
}
