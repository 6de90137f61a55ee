// Ranked (BM25) search over a set: the box, then hits with their paper, section and snippet; a hit
// opens the reader at its passage, highlighted. The query lives in the URL (Back returns here).
import { useEffect, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { CommandResponse } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { papersHref } from './route.ts';
import { useEngineQuery } from './use-engine-query.ts';

export interface SearchPanelProps {
  set: string;
  query: string;
  titles: ReadonlyMap<string, string>;
  onQueryChange: (query: string) => void;
}

const typingPauseMs = 250;
const hitLimit = 30;

export function SearchPanel({ set, query, titles, onQueryChange }: SearchPanelProps) {
  const api = useApi();
  const [typed, setTyped] = useState(query);
  const [shownQuery, setShownQuery] = useState(query);
  if (shownQuery !== query) {
    // The URL's query changed under us (Back, a link): the box follows it.
    setShownQuery(query);
    setTyped(query);
  }
  const trimmed = query.trim();
  const hits = useEngineQuery(
    trimmed === '' ? null : JSON.stringify(['search', set, trimmed]),
    () => api.call('papers.search', { set, query: trimmed, limit: hitLimit }),
  );

  useEffect(() => {
    if (typed === query) return;
    const timer = window.setTimeout(() => {
      onQueryChange(typed);
    }, typingPauseMs);
    return () => {
      window.clearTimeout(timer);
    };
  }, [typed, query, onQueryChange]);

  return (
    <div className="paper-search">
      <input
        type="search"
        className="paper-search-box"
        value={typed}
        placeholder={`Search ${set}…`}
        aria-label={`Search the papers of ${set}`}
        data-testid="paper-search"
        autoFocus
        onChange={(event) => {
          setTyped(event.target.value);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter') onQueryChange(typed);
        }}
      />
      {hits.status === 'failed' && (
        <p className="papers-failure" role="alert">
          {hits.failure.name}: {hits.failure.message}
        </p>
      )}
      {hits.status === 'loading' && <p className="papers-muted">Searching…</p>}
      {hits.status === 'idle' && (
        <p className="papers-muted">Words or a phrase; hits are passages ranked by BM25.</p>
      )}
      {hits.status === 'ready' &&
        (hits.value.hits.length === 0 ? (
          <p className="papers-muted" data-testid="search-empty">
            Nothing in {set} matches “{trimmed}”.
          </p>
        ) : (
          <SearchHits set={set} hits={hits.value.hits} titles={titles} query={trimmed} />
        ))}
    </div>
  );
}

function SearchHits({
  set,
  hits,
  titles,
  query,
}: {
  set: string;
  hits: CommandResponse<'papers.search'>['hits'];
  titles: SearchPanelProps['titles'];
  query: string;
}) {
  return (
    <ol className="search-hits" aria-label="Search hits">
      {hits.map((hit) => (
        <li key={`${hit.paperId}-${String(hit.start)}`}>
          <Link
            to={papersHref({
              set,
              paperId: hit.paperId,
              hl: { start: hit.start, end: hit.end },
            })}
            className="search-hit"
            data-testid="search-hit"
          >
            <span className="search-hit-where">
              <span className="search-hit-paper">{titles.get(hit.paperId) ?? hit.paperId}</span>
              {hit.section && <span className="papers-muted"> · {hit.section}</span>}
            </span>
            <span className="search-hit-snippet">{markTerms(hit.snippet, query)}</span>
          </Link>
        </li>
      ))}
    </ol>
  );
}

/** The snippet with the query's words marked where a word starts with them (case-insensitive). */
function markTerms(snippet: string, query: string): ReactNode[] {
  const terms = query
    .split(/\s+/)
    .filter((term) => term.length > 1)
    .map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (terms.length === 0) return [snippet];
  const pattern = new RegExp(`\\b(${terms.join('|')})`, 'giu');
  return snippet
    .split(pattern)
    .map((part, index) => (index % 2 === 1 ? <mark key={index}>{part}</mark> : part));
}
