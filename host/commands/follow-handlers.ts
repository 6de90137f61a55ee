// runs.follow, runs.follows and runs.unfollow: logs another tool is still writing, followed by
// app/store/run-logs' RunLogFollower. Each followed run's events go out as runs.event, as a live
// run's do, and each change of a follow as runs.followChanged. The composition root stops every
// follow on dispose (their open runs end interrupted, nothing half-written).
import type { ApiEvent, CommandArgs, CommandResponse } from '../../app/api/index.ts';
import { RunLogFollower, type FollowState } from '../../app/store/run-logs/index.ts';
import type { RunStore } from '../../app/store/index.ts';

export class UnknownFollowError extends Error {
  override readonly name = 'UnknownFollowError';
  constructor(followId: string) {
    super(`No log is followed as '${followId}' (runs.follows lists them)`);
  }
}

/** The follows of one engine: ongoing and ended, in the order they began. */
export class LogFollows {
  readonly #followers = new Map<string, RunLogFollower>();
  readonly #store: RunStore;
  readonly #pollMs: number;

  constructor(store: RunStore, pollMs = 250) {
    this.#store = store;
    this.#pollMs = pollMs;
  }

  start(
    request: CommandArgs<'runs.follow'>,
    emit: (event: ApiEvent) => void,
    now: () => number,
  ): FollowState {
    const seen = new Set<string>();
    const follower = new RunLogFollower(
      this.#store,
      request.path,
      (runId, event, seq) => {
        emit({ kind: 'runs.event', at: event.at, runId, seq, event });
      },
      { format: request.format, idleMs: request.idleSeconds * 1000, pollMs: this.#pollMs },
    );
    follower.onChange((follow) => {
      const fresh = follow.runs.filter((run) => !seen.has(run.runId)).map((run) => run.runId);
      for (const runId of fresh) seen.add(runId);
      if (fresh.length > 0)
        emit({ kind: 'runs.changed', at: now(), change: 'created', runIds: fresh });
      emit({ kind: 'runs.followChanged', at: now(), follow });
    });
    this.#followers.set(follower.followId, follower);
    void follower.start();
    return follower.state();
  }

  list(): FollowState[] {
    return [...this.#followers.values()].map((follower) => follower.state());
  }

  stop(followId: string): FollowState {
    const follower = this.#followers.get(followId);
    if (!follower) throw new UnknownFollowError(followId);
    return follower.stop();
  }

  /** The ongoing follow that writes a run, if any. */
  #following(runId: string): RunLogFollower | undefined {
    return [...this.#followers.values()].find((follower) => {
      const state = follower.state();
      return (
        state.state === 'following' &&
        state.runs.some((run) => run.runId === runId && run.status === 'running')
      );
    });
  }

  /** Whether a run is still being written by a follow (it cannot be deleted then). */
  isFollowing(runId: string): boolean {
    return this.#following(runId) !== undefined;
  }

  /** runs.cancel on a followed run: stops its follow (its open runs end interrupted). */
  cancel(runId: string): boolean {
    const follower = this.#following(runId);
    follower?.stop();
    return follower !== undefined;
  }

  stopAll(): void {
    for (const follower of this.#followers.values()) follower.stop();
  }
}

type FollowCommand = 'runs.follow' | 'runs.follows' | 'runs.unfollow';

export function followHandlers(
  follows: LogFollows,
  emit: (event: ApiEvent) => void,
  now: () => number,
): { [C in FollowCommand]: (args: CommandArgs<C>) => CommandResponse<C> } {
  return {
    'runs.follow': (request) => follows.start(request, emit, now),
    'runs.follows': () => ({ follows: follows.list() }),
    'runs.unfollow': ({ followId }) => follows.stop(followId),
  };
}
