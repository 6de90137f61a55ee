// One paper set: its summary and three tabs over it (its papers, search, the map). The tab and the
// search query live in the URL.
import { useCallback } from 'react';
import { Link, useNavigate } from 'react-router';
import { useApi } from '../../api/ApiContext.tsx';
import { PaperList } from './PaperList.tsx';
import { PaperMap } from './PaperMap.tsx';
import { papersHref, type SetTab } from './route.ts';
import { SearchPanel } from './SearchPanel.tsx';
import { useEngineQuery } from './use-engine-query.ts';
import { countOf } from '../../format/count.ts';
import { setSize } from './set-facts.ts';

export interface SetViewProps {
  set: string;
  tab: SetTab;
  query: string;
}

const tabLabels: Record<SetTab, string> = { papers: 'Papers', search: 'Search', map: 'Map' };

export function SetView({ set, tab, query }: SetViewProps) {
  const api = useApi();
  const navigate = useNavigate();
  const listing = useEngineQuery(
    JSON.stringify(['list', set]),
    () => api.call('papers.list', { set }),
    { refreshOn: 'papers.setsChanged' },
  );
  const titles = new Map(
    listing.status === 'ready' ? listing.value.papers.map((paper) => [paper.id, paper.title]) : [],
  );
  const onQueryChange = useCallback(
    (next: string) => {
      void navigate(papersHref({ set, tab: 'search', query: next }), { replace: true });
    },
    [navigate, set],
  );

  return (
    <section
      className="set-view"
      aria-labelledby="set-view-title"
      data-testid="set-view"
      data-set={set}
    >
      <header className="set-view-header">
        <h2 id="set-view-title" className="set-view-title">
          {set}
        </h2>
        {listing.status === 'ready' && (
          <p className="papers-muted">
            {setSize(listing.value.set)} · {countOf(listing.value.set.words, 'word')}
            {listing.value.set.failures > 0 && ` · ${String(listing.value.set.failures)} not added`}
          </p>
        )}
        <nav className="set-tabs" aria-label={`Views of ${set}`}>
          {(Object.keys(tabLabels) as SetTab[]).map((id) => (
            <Link
              key={id}
              to={papersHref({ set, tab: id, query: id === 'search' ? query : '' })}
              className={`set-tab${id === tab ? ' selected' : ''}`}
              aria-current={id === tab ? 'page' : undefined}
              data-testid={`set-tab-${id}`}
            >
              {tabLabels[id]}
            </Link>
          ))}
        </nav>
      </header>
      {listing.status === 'failed' ? (
        <p className="papers-failure" role="alert">
          {listing.failure.name}: {listing.failure.message}
        </p>
      ) : listing.status !== 'ready' ? (
        <p className="papers-muted">Loading {set}…</p>
      ) : tab === 'papers' ? (
        <PaperList listing={listing.value} />
      ) : tab === 'search' ? (
        <SearchPanel set={set} query={query} titles={titles} onQueryChange={onQueryChange} />
      ) : (
        <PaperMap set={set} titles={titles} />
      )}
    </section>
  );
}
