// Where the Runs view stands, in the URL: the filters (`#/runs?q=&status=done&model=&set=&minScore=
// &maxDurationS=&from=YYYY-MM-DD&to=`) and the pair being compared (`&compare=A,B`). The filters map
// one to one onto the engine's RunFilter.
import { RunStatus, type RunFilter } from '../../../../app/api/index.ts';

export interface RunsFilterFields {
  text: string;
  status: string;
  model: string;
  set: string;
  minScore: string;
  maxDurationS: string;
  from: string;
  to: string;
}

export interface RunsLocation {
  filters: RunsFilterFields;
  compare: [string, string] | null;
}

const fieldNames = {
  text: 'q',
  status: 'status',
  model: 'model',
  set: 'set',
  minScore: 'minScore',
  maxDurationS: 'maxDurationS',
  from: 'from',
  to: 'to',
} as const satisfies Record<keyof RunsFilterFields, string>;

export const emptyFilters: RunsFilterFields = {
  text: '',
  status: '',
  model: '',
  set: '',
  minScore: '',
  maxDurationS: '',
  from: '',
  to: '',
};

export function readRunsLocation(params: URLSearchParams): RunsLocation {
  const filters = { ...emptyFilters };
  for (const [field, name] of Object.entries(fieldNames) as [keyof RunsFilterFields, string][])
    filters[field] = params.get(name) ?? '';
  const pair = (params.get('compare') ?? '').split(',').filter((id) => id !== '');
  return {
    filters,
    compare: pair.length === 2 && pair[0] !== pair[1] ? [pair[0] ?? '', pair[1] ?? ''] : null,
  };
}

export function runsHref(location: Partial<RunsLocation>): string {
  const params = new URLSearchParams();
  for (const [field, name] of Object.entries(fieldNames) as [keyof RunsFilterFields, string][]) {
    const value = location.filters?.[field] ?? '';
    if (value !== '') params.set(name, value);
  }
  if (location.compare) params.set('compare', location.compare.join(','));
  const search = params.toString();
  return search === '' ? '/runs' : `/runs?${search}`;
}

const dayMs = 86_400_000;

/** The engine's filter; fields that do not parse are left out (the form marks them). */
export function toRunFilter(fields: RunsFilterFields): RunFilter {
  const filter: RunFilter = {};
  const text = fields.text.trim();
  if (text !== '') filter.text = text;
  const status = RunStatus.safeParse(fields.status);
  if (status.success) filter.status = [status.data];
  if (fields.model.trim() !== '') filter.model = fields.model.trim();
  if (fields.set !== '') filter.set = fields.set;
  const minScore = Number(fields.minScore);
  if (fields.minScore.trim() !== '' && Number.isFinite(minScore)) filter.minScore = minScore;
  const maxDuration = Number(fields.maxDurationS);
  if (fields.maxDurationS.trim() !== '' && Number.isFinite(maxDuration) && maxDuration >= 0)
    filter.maxDurationMs = maxDuration * 1000;
  const from = Date.parse(fields.from);
  if (!Number.isNaN(from)) filter.from = from;
  const to = Date.parse(fields.to);
  // A day picked as "to" includes the whole day.
  if (!Number.isNaN(to)) filter.to = to + dayMs - 1;
  return filter;
}
