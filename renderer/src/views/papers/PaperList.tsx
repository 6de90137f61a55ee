// The papers of a set (title, id, pages, words), each opening the reader, and the inputs that
// failed to join it with their named errors.
import { Link } from 'react-router';
import type { CommandResponse } from '../../../../app/api/index.ts';
import { engineName } from './ReadAgain.tsx';
import { papersHref } from './route.ts';

export type SetListing = CommandResponse<'papers.list'>;

export function PaperList({ listing }: { listing: SetListing }) {
  const { set, papers, failures } = listing;
  return (
    <div className="paper-list-wrap">
      {papers.length === 0 ? (
        <p className="papers-muted">This set has no papers yet.</p>
      ) : (
        <ul className="paper-list" data-testid="paper-list">
          {papers.map((paper) => (
            <li key={paper.id}>
              <Link
                to={papersHref({ set: set.name, paperId: paper.id })}
                className="paper-row"
                data-testid="paper-row"
                data-paper={paper.id}
              >
                <span className="paper-row-title">{paper.title}</span>
                <span className="papers-muted paper-row-meta">
                  <code>{paper.id}</code>
                  {paper.hasPdf && ` · ${String(paper.pages)} pages`} ·{' '}
                  {paper.words.toLocaleString()} words · {paper.sections} sections
                  {paper.hasPdf && ` · ${engineName(paper.engine)}`}
                  {!paper.hasPdf && <span className="papers-badge">text only</span>}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      {failures.length > 0 && (
        <section className="paper-failures" aria-labelledby="paper-failures-title">
          <h3 id="paper-failures-title" className="papers-subheading">
            Not added
          </h3>
          <ul>
            {failures.map((failure, index) => (
              <li key={`${failure.input}-${String(index)}`} data-testid="paper-failure">
                <span className="import-result-input">{failure.input}</span>
                {failure.error && (
                  <span className="import-result-error">
                    <strong>{failure.error.name}</strong>: {failure.error.message}
                  </span>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
