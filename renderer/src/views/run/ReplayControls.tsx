// Replay controls: step one event or one turn either way, play at 1x-64x the recorded pace, seek.
// The turn buttons read ◀◀ and ▶▶, not ⏮ and ⏭: those need a symbol font many Linux desktops lack.
import { useSyncExternalStore, type ReactNode } from 'react';
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
      <StepButton player={player} step="turn-back" />
      <StepButton player={player} step="event-back" />
      <PlayButton player={player} playing={state.playing} />
      <StepButton player={player} step="event-next" />
      <StepButton player={player} step="turn-next" />
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

function PlayButton({ player, playing }: { player: ReplayPlayer; playing: boolean }) {
  return playing ? (
    <ReplayButton
      primary
      testId="replay-pause"
      onClick={() => {
        player.pause();
      }}
    >
      Pause
    </ReplayButton>
  ) : (
    <ReplayButton
      primary
      testId="replay-play"
      onClick={() => {
        player.play();
      }}
    >
      Play
    </ReplayButton>
  );
}

const stepButtons = {
  'turn-back': {
    title: 'Previous turn ([)',
    testId: undefined,
    label: '◀◀ turn',
    unit: 'turn',
    by: -1,
  },
  'event-back': {
    title: 'Previous event (,)',
    testId: 'replay-back',
    label: '◀ event',
    unit: 'event',
    by: -1,
  },
  'event-next': {
    title: 'Next event (.)',
    testId: 'replay-step',
    label: 'event ▶',
    unit: 'event',
    by: 1,
  },
  'turn-next': {
    title: 'Next turn (])',
    testId: 'replay-next-turn',
    label: 'turn ▶▶',
    unit: 'turn',
    by: 1,
  },
} as const;

/** One event or one turn back or forward. */
function StepButton({ player, step }: { player: ReplayPlayer; step: keyof typeof stepButtons }) {
  const button = stepButtons[step];
  return (
    <ReplayButton
      title={button.title}
      {...(button.testId ? { testId: button.testId } : {})}
      onClick={() => {
        if (button.unit === 'turn') player.stepTurn(button.by);
        else player.step(button.by);
      }}
    >
      {button.label}
    </ReplayButton>
  );
}

function ReplayButton(props: {
  title?: string;
  testId?: string;
  primary?: boolean;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className={props.primary ? 'run-button primary' : 'run-button'}
      title={props.title}
      data-testid={props.testId}
      onClick={() => {
        props.onClick();
      }}
    >
      {props.children}
    </button>
  );
}
