// The per-question scores of an eval: sortable by any column, filtered by text, status and span
// F1; a row opens its question's drill-down.
import { useState } from 'react';
import type { EvalResult } from '../../../../app/api/index.ts';
import {
  filterResults,
  sortResults,
  type ResultFilter,
  type SortDirection,
  type SortKey,
} from './scores-table.ts';

const columns: { key: SortKey; label: string }[] = [
  { key: 'seq', label: '#' },
  { key: 'question', label: 'Question' },
  { key: 'status', label: 'Status' },
  { key: 'rubric', label: 'Rubric' },
  { key: 'spanF1', label: 'Span F1' },
  { key: 'evidenceF1', label: 'Evidence-F1' },
  { key: 'latencyMs', label: 'Latency' },
  { key: 'tokens', label: 'Tokens' },
];

const score = (value: number | null) => (value === null ? '–' : value.toFixed(3));

function cell(result: EvalResult, key: SortKey): string {
  switch (key) {
    case 'seq':
      return String(result.seq + 1);
    case 'question':
      return result.question;
    case 'status':
      return result.status;
    case 'rubric':
      return score(result.rubric);
    case 'spanF1':
      return score(result.spanF1);
    case 'evidenceF1':
      return score(result.evidenceF1);
    case 'latencyMs':
      return `${(result.latencyMs / 1000).toFixed(1)} s`;
    case 'tokens':
      return (result.inputTokens + result.outputTokens).toLocaleString();
  }
}

interface Sort {
  key: SortKey;
  direction: SortDirection;
}

export interface ScoresTableProps {
  results: readonly EvalResult[];
  selected: string | undefined;
  onSelect: (questionId: string) => void;
}

export function ScoresTable({ results, selected, onSelect }: ScoresTableProps) {
  const [sort, setSort] = useState<Sort>({
    key: 'seq',
    direction: 'asc',
  });
  const [filter, setFilter] = useState<ResultFilter>({ text: '', status: 'all', maxSpanF1: 1 });
  const rows = sortResults(filterResults(results, filter), sort.key, sort.direction);

  return (
    <div className="eval-scores">
      <ScoreFilters
        filter={filter}
        onChange={setFilter}
        shown={rows.length}
        total={results.length}
      />
      <table className="eval-table" data-testid="scores-table">
        <SortHeader sort={sort} onSort={setSort} />
        <tbody>
          {rows.map((result) => (
            <tr
              key={result.questionId}
              className={result.questionId === selected ? 'selected' : undefined}
              data-testid="score-row"
              data-question={result.questionId}
              onClick={() => {
                onSelect(result.questionId);
              }}
            >
              {columns.map((column) => (
                <td key={column.key} className={`col-${column.key}`}>
                  {cell(result, column.key)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ScoreFilters(props: {
  filter: ResultFilter;
  onChange: (filter: ResultFilter) => void;
  shown: number;
  total: number;
}) {
  const { filter, onChange, shown, total } = props;
  return (
    <div className="eval-filters">
      <input
        type="search"
        placeholder="Filter questions"
        value={filter.text}
        onChange={(event) => {
          onChange({ ...filter, text: event.target.value });
        }}
        data-testid="scores-filter"
      />
      <select
        value={filter.status}
        onChange={(event) => {
          onChange({ ...filter, status: event.target.value as ResultFilter['status'] });
        }}
        data-testid="scores-status"
      >
        <option value="all">all</option>
        <option value="done">done</option>
        <option value="failed">failed</option>
      </select>
      <label className="eval-check">
        <input
          type="checkbox"
          checked={filter.maxSpanF1 < 1}
          onChange={(event) => {
            onChange({ ...filter, maxSpanF1: event.target.checked ? 0.5 : 1 });
          }}
          data-testid="scores-weak"
        />
        span F1 below 0.5
      </label>
      <span className="papers-muted" data-testid="scores-count">
        {shown} of {total}
      </span>
    </div>
  );
}

/** The column heads; a click sorts by that column, descending first, again for ascending. */
function SortHeader({ sort, onSort }: { sort: Sort; onSort: (sort: Sort) => void }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th
            key={column.key}
            aria-sort={
              sort.key === column.key
                ? sort.direction === 'asc'
                  ? 'ascending'
                  : 'descending'
                : undefined
            }
          >
            <button
              type="button"
              data-testid={`sort-${column.key}`}
              onClick={() => {
                onSort({
                  key: column.key,
                  direction: sort.key === column.key && sort.direction === 'desc' ? 'asc' : 'desc',
                });
              }}
            >
              {column.label}
              {sort.key === column.key ? (sort.direction === 'asc' ? ' ▲' : ' ▼') : ''}
            </button>
          </th>
        ))}
      </tr>
    </thead>
  );
}
