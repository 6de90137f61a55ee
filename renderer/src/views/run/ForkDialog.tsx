// Fork a finished run at one agent's turn: edit that turn's code (or its whole response), optionally
// change the model that goes on live, and start the fork (runs.fork). The engine rebuilds the REPL
// state from the earlier turns; the new run opens here, linked to its parent.
import { useState, type SubmitEvent } from 'react';
import { useNavigate } from 'react-router';
import type { CommandRequest } from '../../../../app/api/index.ts';
import type { AgentNode, TurnView } from '../../../../app/run-log/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { describeFailure, type Failure } from '../papers/failure.ts';
import { runHref } from './route.ts';

export interface ForkTarget {
  runId: string;
  agent: AgentNode;
  turn: TurnView;
}

/** Starts the fork; on success the dialog closes and the new run opens, else it says why. */
function useFork(onClose: () => void) {
  const api = useApi();
  const navigate = useNavigate();
  const [failure, setFailure] = useState<Failure | null>(null);
  const [forking, setForking] = useState(false);
  const start = (request: CommandRequest<'runs.fork'>) => {
    setForking(true);
    setFailure(null);
    api.call('runs.fork', request).then(
      ({ runId: forked }) => {
        onClose();
        void navigate(runHref({ runId: forked }));
      },
      (error: unknown) => {
        setForking(false);
        setFailure(describeFailure(error));
      },
    );
  };
  return { start, forking, failure };
}

// The edit state is the dialog's own and the rest is its markup; the fork itself is useFork.
export function ForkDialog({ target, onClose }: { target: ForkTarget; onClose: () => void }) {
  const { runId, agent, turn } = target;
  const recordedCode = turn.code.map((block) => block.code).join('\n\n');
  const [edit, setEdit] = useState<EditTarget>(turn.code.length > 0 ? 'code' : 'response');
  const [code, setCode] = useState(recordedCode);
  const [response, setResponse] = useState(turn.response);
  const [model, setModel] = useState('');
  const { start, forking, failure } = useFork(onClose);

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    start({
      runId,
      agentId: agent.id,
      turn: turn.turn,
      ...(edit === 'code' ? { code } : { response }),
      ...(model.trim() !== '' ? { model: model.trim() } : {}),
    });
  };

  return (
    <div className="dialog-backdrop" role="presentation">
      <form
        className="fork-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="fork-title"
        data-testid="fork-dialog"
        onSubmit={submit}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.stopPropagation();
            onClose();
          }
        }}
      >
        <h2 id="fork-title">
          Fork at agent {agent.id}, turn {turn.turn}
        </h2>
        <p className="papers-muted">
          Earlier turns are rebuilt from the log (their code re-run with the recorded child
          answers); this turn runs as edited, and the model goes on live after it.
        </p>
        <EditChoice edit={edit} hasCode={turn.code.length > 0} onChange={setEdit} />
        <textarea
          className="fork-text"
          data-testid="fork-text"
          rows={12}
          spellCheck={false}
          value={edit === 'code' ? code : response}
          onChange={(event) => {
            if (edit === 'code') setCode(event.target.value);
            else setResponse(event.target.value);
          }}
        />
        <label className="run-form-field">
          <span>Model after the fork (empty: the run&rsquo;s own)</span>
          <input
            data-testid="fork-model"
            value={model}
            onChange={(event) => {
              setModel(event.target.value);
            }}
          />
        </label>
        {failure && (
          <p className="run-failure" role="alert" data-testid="fork-failure">
            {failure.name}: {failure.message}
          </p>
        )}
        <ForkActions forking={forking} onClose={onClose} />
      </form>
    </div>
  );
}

type EditTarget = 'code' | 'response';

function EditChoice({
  edit,
  hasCode,
  onChange,
}: {
  edit: EditTarget;
  hasCode: boolean;
  onChange: (edit: EditTarget) => void;
}) {
  return (
    <div role="radiogroup" className="fork-choice">
      <label>
        <input
          type="radio"
          checked={edit === 'code'}
          disabled={!hasCode}
          onChange={() => {
            onChange('code');
          }}
        />{' '}
        Edit the code
      </label>
      <label>
        <input
          type="radio"
          data-testid="fork-edit-response"
          checked={edit === 'response'}
          onChange={() => {
            onChange('response');
          }}
        />{' '}
        Edit the whole response
      </label>
    </div>
  );
}

function ForkActions({ forking, onClose }: { forking: boolean; onClose: () => void }) {
  return (
    <div className="inspector-actions">
      <button
        type="submit"
        className="run-button primary"
        data-testid="fork-start"
        disabled={forking}
      >
        {forking ? 'Forking…' : 'Fork and run'}
      </button>
      <button type="button" className="run-button" onClick={onClose}>
        Cancel
      </button>
    </div>
  );
}
