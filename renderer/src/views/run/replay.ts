// Replays a finished run through the same RunStore (and so the same rendering) as a live run: step
// one event or one turn at a time, seek anywhere, or play at a multiple of the recorded pace.
// Gaps in the recording are capped, so a model call that took a minute replays in a moment.
import type { RunEvent } from '../../../../app/api/index.ts';
import type { RunStore } from './run-store.ts';

export interface ReplayState {
  cursor: number;
  length: number;
  playing: boolean;
  speed: number;
}

export interface ReplayTimers {
  setTimeout: (run: () => void, ms: number) => number;
  clearTimeout: (id: number) => void;
}

export const replaySpeeds = [1, 4, 16, 64] as const;
const maxGapMs = 1500;

export class ReplayPlayer {
  private state: ReplayState;
  private timer: number | null = null;
  private readonly listeners = new Set<() => void>();

  private readonly log: readonly RunEvent[];
  private readonly store: RunStore;
  private readonly timers: ReplayTimers;

  constructor(log: readonly RunEvent[], store: RunStore, timers: ReplayTimers) {
    this.log = log;
    this.store = store;
    this.timers = timers;
    this.state = { cursor: 0, length: log.length, playing: false, speed: 4 };
    store.reset();
  }

  /** Shows the run as it stood after `index` events. */
  seek(index: number): void {
    const target = Math.max(0, Math.min(this.log.length, Math.round(index)));
    if (target < this.state.cursor) {
      this.store.reset();
      this.store.push(...this.log.slice(0, target));
    } else {
      this.store.push(...this.log.slice(this.state.cursor, target));
    }
    this.store.flush();
    this.set({ cursor: target, playing: this.state.playing && target < this.log.length });
  }

  step(delta: number): void {
    this.pause();
    this.seek(this.state.cursor + delta);
  }

  /** Moves to just after the next (or previous) turn start, model answer or final answer. */
  stepTurn(direction: 1 | -1): void {
    this.pause();
    let index = this.state.cursor + (direction === 1 ? 0 : -2);
    while (index >= 0 && index < this.log.length) {
      const kind = this.log[index]?.kind;
      if (kind === 'turn.started' || kind === 'final.answer' || kind === 'run.finished') break;
      index += direction;
    }
    this.seek(index + 1);
  }

  play(speed = this.state.speed): void {
    if (this.state.cursor >= this.log.length) this.seek(0);
    this.set({ playing: true, speed });
    this.schedule();
  }

  setSpeed(speed: number): void {
    this.set({ speed });
  }

  pause(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    if (this.state.playing) this.set({ playing: false });
  }

  dispose(): void {
    this.pause();
    this.listeners.clear();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  getState = (): ReplayState => this.state;

  private schedule(): void {
    if (!this.state.playing) return;
    const { cursor } = this.state;
    const next = this.log[cursor];
    if (!next) {
      this.set({ playing: false });
      return;
    }
    const previous = this.log[cursor - 1];
    const gap = previous ? Math.min(maxGapMs, Math.max(0, next.at - previous.at)) : 0;
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      // Everything due within the same few milliseconds goes in one push (one frame).
      let end = cursor + 1;
      const due = next.at;
      while (end < this.log.length && (this.log[end]?.at ?? Infinity) - due <= 4 * this.state.speed)
        end++;
      this.seek(end);
      this.schedule();
    }, gap / this.state.speed);
  }

  private set(patch: Partial<ReplayState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }
}
