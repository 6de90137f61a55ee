// Fork a finished run at one agent's turn: edit that turn's code (or its whole response), optionally
// change the model that goes on live, and start the fork (runs.fork). The engine rebuilds the REPL
// state from the earlier turns; the new run opens here, linked to its parent.
import { useState, type SubmitEvent } from 'react';
import { useNavigate } from 'react-router';
import type { AgentNode, TurnView } from '../../../../app/run-log/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { describeFailure, type Failure } from '../papers/failure.ts';
import { runHref } from './route.ts';

export interface ForkTarget {
  runId: string;
  agent: AgentNode;
  turn: TurnView;
}

export function ForkDialog({ target, onClose }: { target: ForkTarget; onClose: () => void }) {
  const api = useApi();
  const navigate = useNavigate();
  const { runId, agent, turn } = target;
  const recordedCode = turn.code.map((block) => block.code).join('\n\n');
  const [edit, setEdit] = useState<'code' | 'response'>(turn.code.length > 0 ? 'code' : 'response');
  const [code, setCode] = useState(recordedCode);
  const [response, setResponse] = useState(turn.response);
  const [model, setModel] = useState('');
  const [failure, setFailure] = useState<Failure | null>(null);
  const [forking, setForking] = useState(false);

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setForking(true);
    setFailure(null);
    api
      .call('runs.fork', {
        runId,
        agentId: agent.id,
        turn: turn.turn,
        ...(edit === 'code' ? { code } : { response }),
        ...(model.trim() !== '' ? { model: model.trim() } : {}),
      })
      .then(
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
        <div role="radiogroup" className="fork-choice">
          <label>
            <input
              type="radio"
              checked={edit === 'code'}
              disabled={turn.code.length === 0}
              onChange={() => {
                setEdit('code');
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
                setEdit('response');
              }}
            />{' '}
            Edit the whole response
          </label>
        </div>
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
      </form>
    </div>
  );
}
