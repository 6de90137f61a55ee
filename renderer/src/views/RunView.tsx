// Run: ask a question of a paper set and watch the agent tree live; open any run (live, finished or
// replayed) at a given agent and turn from the URL (`#/run?run=ID&agent=0.1&turn=2`).
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { ForkDialog, type ForkTarget } from './run/ForkDialog.tsx';
import { readRunLocation } from './run/route.ts';
import { RunPage } from './run/RunPage.tsx';
import { StartRunForm } from './run/StartRunForm.tsx';
import '../styles/papers.css';
import '../styles/run.css';

export function RunView() {
  const [params] = useSearchParams();
  const location = readRunLocation(params);
  const { runId } = location;
  const [fork, setFork] = useState<ForkTarget | null>(null);
  if (runId === undefined)
    return (
      <section className="view run-view" data-testid="view-run" aria-labelledby="view-run-title">
        <StartRunForm />
      </section>
    );
  return (
    <section className="run-view open" data-testid="view-run">
      <RunPage
        key={`${runId} ${location.mode}`}
        location={{ ...location, runId }}
        onFork={(forkedRun, agent, turn) => {
          setFork({ runId: forkedRun, agent, turn });
        }}
      />
      {fork && (
        <ForkDialog
          target={fork}
          onClose={() => {
            setFork(null);
          }}
        />
      )}
    </section>
  );
}
