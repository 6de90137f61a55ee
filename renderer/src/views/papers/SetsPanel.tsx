// The workspace's paper sets (papers, pages, failures), the selected one marked, and the field that
// names a new set (it comes into being with its first import).
import { Link } from 'react-router';
import type { PaperSetSummary } from '../../../../app/api/index.ts';
import { papersHref } from './route.ts';
import type { QueryState } from './use-engine-query.ts';
import { countOf } from '../../format/count.ts';
import { setSize } from './set-facts.ts';

export interface SetsPanelProps {
  sets: QueryState<PaperSetSummary[]>;
  selected: string | undefined;
  newName: string;
  /** Why the typed name cannot be a set name, if it cannot. */
  newNameProblem: string | undefined;
  onNewNameChange: (name: string) => void;
}

export function SetsPanel({
  sets,
  selected,
  newName,
  newNameProblem,
  onNewNameChange,
}: SetsPanelProps) {
  return (
    <section className="papers-panel" aria-labelledby="paper-sets-title">
      <h2 id="paper-sets-title" className="papers-subheading">
        Paper sets
      </h2>
      {sets.status === 'failed' ? (
        <p className="papers-failure" role="alert">
          {sets.failure.name}: {sets.failure.message}
        </p>
      ) : sets.status !== 'ready' ? (
        <p className="papers-muted">Loading…</p>
      ) : sets.value.length === 0 ? (
        <p className="papers-muted" data-testid="no-sets">
          No paper sets yet. Name one below and add PDFs, QASPER JSON or arXiv ids.
        </p>
      ) : (
        <ul className="paper-sets" data-testid="paper-sets">
          {sets.value.map((set) => (
            <li key={set.name}>
              <Link
                to={papersHref({ set: set.name })}
                className={`paper-set${set.name === selected ? ' selected' : ''}`}
                aria-current={set.name === selected ? 'true' : undefined}
                data-testid="paper-set"
                data-set={set.name}
              >
                <span className="paper-set-name">{set.name}</span>
                <span className="papers-muted paper-set-counts">
                  {setSize(set)}
                  {set.failures > 0 && (
                    <span className="papers-bad"> · {countOf(set.failures, 'failure')}</span>
                  )}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      <label className="papers-field">
        <span>New set</span>
        <input
          type="text"
          value={newName}
          placeholder="e.g. long-context"
          maxLength={100}
          data-testid="new-set-name"
          aria-invalid={newNameProblem ? true : undefined}
          aria-describedby="new-set-hint"
          onChange={(event) => {
            onNewNameChange(event.target.value);
          }}
        />
        <span id="new-set-hint" className={newNameProblem ? 'papers-bad' : 'papers-muted'}>
          {newNameProblem ?? 'Created by its first import.'}
        </span>
      </label>
    </section>
  );
}
