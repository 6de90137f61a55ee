// One run as the UI holds it: its event log and the tree folded from it (app/api's pure fold, the
// same for live runs, replays and stored runs). Events are queued and applied once per frame, so a
// burst of hundreds of events costs one render; each agent carries a revision that changes only when
// one of its own events is applied, so the tree re-renders only the nodes that changed.
import { type RunEvent } from '../../../../app/api/index.ts';
import { applyRunEvent, emptyRunView, type RunView } from '../../../../app/run-log/index.ts';

export interface RunSnapshot {
  view: RunView;
  /** Events applied so far (the log's length for a live run; the replay cursor for a replay). */
  applied: number;
  /** Bumped on every flush that applied something. */
  version: number;
  /** Bumped when an agent was added (the tree's shape, and so its layout, changed). */
  structure: number;
  /** Per agent: bumped whenever one of its events is applied. */
  revisions: ReadonlyMap<string, number>;
}

/** Schedules one flush; the browser passes requestAnimationFrame, tests a manual queue. */
export type FrameScheduler = (flush: () => void) => void;

const agentOf = (event: RunEvent): string | null => {
  switch (event.kind) {
    case 'run.started':
    case 'run.finished':
      return null;
    default:
      return event.agentId.replace(/:llm$/, '');
  }
};

export class RunStore {
  private view: RunView = emptyRunView();
  private readonly log: RunEvent[] = [];
  private readonly queue: RunEvent[] = [];
  private readonly revisions = new Map<string, number>();
  private readonly listeners = new Set<() => void>();
  private scheduled = false;
  private snapshot: RunSnapshot;
  private structure = 0;
  private version = 0;

  private readonly schedule: FrameScheduler;

  constructor(schedule: FrameScheduler) {
    this.schedule = schedule;
    this.snapshot = this.makeSnapshot();
  }

  /** Queues events; they are applied together at the next frame. */
  push(...events: RunEvent[]): void {
    for (const event of events) this.queue.push(event);
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    this.schedule(() => {
      this.flush();
    });
  }

  /** Applies everything queued now (also used to open a stored run without waiting a frame). */
  flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    let grew = false;
    for (const event of this.queue) {
      applyRunEvent(this.view, event);
      this.log.push(event);
      const agent = agentOf(event);
      if (agent !== null) this.bump(agent);
      if (event.kind === 'agent.spawned') {
        grew = true;
        if (event.parentId !== null) this.bump(event.parentId);
      }
    }
    this.queue.length = 0;
    this.version++;
    if (grew) this.structure++;
    this.snapshot = this.makeSnapshot();
    for (const listener of this.listeners) listener();
  }

  /** Forgets everything (a replay rewinding to the start). */
  reset(): void {
    this.view = emptyRunView();
    this.log.length = 0;
    this.queue.length = 0;
    this.revisions.clear();
    this.version++;
    this.structure++;
    this.snapshot = this.makeSnapshot();
    for (const listener of this.listeners) listener();
  }

  events(): readonly RunEvent[] {
    return this.log;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  getSnapshot = (): RunSnapshot => this.snapshot;

  private bump(agent: string): void {
    this.revisions.set(agent, (this.revisions.get(agent) ?? 0) + 1);
  }

  private makeSnapshot(): RunSnapshot {
    return {
      view: this.view,
      applied: this.log.length,
      version: this.version,
      structure: this.structure,
      revisions: this.revisions,
    };
  }
}
