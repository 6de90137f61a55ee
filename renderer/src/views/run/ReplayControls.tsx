// Replay controls: step one event or one turn either way, play at 1x-64x the recorded pace, seek.
// The turn buttons read ◀◀ and ▶▶, not ⏮ and ⏭: those need a symbol font many Linux desktops lack.
import { useSyncExternalStore } from 'react';
import { replaySpeeds, type ReplayPlayer } from './replay.ts';

export function ReplayControls({ player }: { player: ReplayPlayer }) {
  const state = useSyncExternalStore(player.subscribe, player.getState);
  return (
    <div
      className="replay-controls"
      data-testid="replay-controls"
      data-cursor={state.cursor}
      data-length={state.length}
      data-playing={state.playing}
    >
      <button
        type="button"
        className="run-button"
        title="Previous turn ([)"
        onClick={() => {
          player.stepTurn(-1);
        }}
      >
        ◀◀ turn
      </button>
      <button
        type="button"
        className="run-button"
        title="Previous event (,)"
        data-testid="replay-back"
        onClick={() => {
          player.step(-1);
        }}
      >
        ◀ event
      </button>
      {state.playing ? (
        <button
          type="button"
          className="run-button primary"
          data-testid="replay-pause"
          onClick={() => {
            player.pause();
          }}
        >
          Pause
        </button>
      ) : (
        <button
          type="button"
          className="run-button primary"
          data-testid="replay-play"
          onClick={() => {
            player.play();
          }}
        >
          Play
        </button>
      )}
      <button
        type="button"
        className="run-button"
        title="Next event (.)"
        data-testid="replay-step"
        onClick={() => {
          player.step(1);
        }}
      >
        event ▶
      </button>
      <button
        type="button"
        className="run-button"
        title="Next turn (])"
        data-testid="replay-next-turn"
        onClick={() => {
          player.stepTurn(1);
        }}
      >
        turn ▶▶
      </button>
      <label className="replay-speed">
        Speed
        <select
          data-testid="replay-speed"
          value={state.speed}
          onChange={(event) => {
            player.setSpeed(Number(event.target.value));
          }}
        >
          {replaySpeeds.map((speed) => (
            <option key={speed} value={speed}>
              {speed}×
            </option>
          ))}
        </select>
      </label>
      <input
        type="range"
        className="replay-seek"
        data-testid="replay-seek"
        aria-label="Replay position"
        min={0}
        max={state.length}
        value={state.cursor}
        onChange={(event) => {
          player.pause();
          player.seek(Number(event.target.value));
        }}
      />
      <span className="papers-muted replay-position">
        {state.cursor} / {state.length} events
      </span>
    </div>
  );
}
