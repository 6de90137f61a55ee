// A dataset's questions, searched and filtered by split, group, source and approval (the engine
// filters: datasets.get), as a table a researcher would otherwise keep in a spreadsheet.
import { useState } from 'react';
import type { DatasetQuestion, QuestionStatus } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useEngineQuery } from '../papers/use-engine-query.ts';

export interface QuestionFilter {
  text: string;
  split: '' | 'train' | 'validation';
  group: string;
  source: '' | 'teacher' | 'imported' | 'hand';
  status: '' | QuestionStatus;
}

export const noFilter: QuestionFilter = { text: '', split: '', group: '', source: '', status: '' };

/** The filter as datasets.get takes it: empty fields left out. */
function request(filter: QuestionFilter) {
  return {
    ...(filter.text.trim() ? { text: filter.text.trim() } : {}),
    ...(filter.split ? { split: filter.split } : {}),
    ...(filter.group ? { group: filter.group } : {}),
    ...(filter.source ? { source: filter.source } : {}),
    ...(filter.status ? { status: filter.status } : {}),
  };
}

export function useQuestions(dataset: string, filter: QuestionFilter, reload: number) {
  const api = useApi();
  return useEngineQuery(
    JSON.stringify(['dataset-questions', dataset, filter]),
    () => api.call('datasets.get', { dataset, filter: request(filter) }),
    { refreshOn: 'dataset.progress', reloadToken: reload },
  );
}

function Select(props: {
  label: string;
  value: string;
  options: readonly (readonly [string, string])[];
  onChange: (value: string) => void;
  testId: string;
}) {
  return (
    <label>
      {props.label}
      <select
        value={props.value}
        onChange={(e) => {
          props.onChange(e.target.value);
        }}
        data-testid={props.testId}
      >
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
}

export function QuestionFilters(props: {
  filter: QuestionFilter;
  groups: readonly string[];
  onChange: (filter: QuestionFilter) => void;
}) {
  const { filter, onChange } = props;
  const [text, setText] = useState(filter.text);
  return (
    <form
      className="datasets-filters"
      onSubmit={(e) => {
        e.preventDefault();
        onChange({ ...filter, text });
      }}
    >
      <label>
        search
        <input
          type="search"
          value={text}
          placeholder="words of the question"
          onChange={(e) => {
            setText(e.target.value);
            if (e.target.value === '') onChange({ ...filter, text: '' });
          }}
          data-testid="questions-search"
        />
      </label>
      <Select
        label="split"
        value={filter.split}
        options={[
          ['', 'any'],
          ['train', 'train'],
          ['validation', 'validation'],
        ]}
        onChange={(split) => {
          onChange({ ...filter, split: split as QuestionFilter['split'] });
        }}
        testId="questions-split"
      />
      <Select
        label="group"
        value={filter.group}
        options={[['', 'any'], ...props.groups.map((g) => [g, g] as const)]}
        onChange={(group) => {
          onChange({ ...filter, group });
        }}
        testId="questions-group"
      />
      <Select
        label="source"
        value={filter.source}
        options={[
          ['', 'any'],
          ['teacher', 'teacher'],
          ['imported', 'imported'],
          ['hand', 'by hand'],
        ]}
        onChange={(source) => {
          onChange({ ...filter, source: source as QuestionFilter['source'] });
        }}
        testId="questions-source"
      />
      <Select
        label="approval"
        value={filter.status}
        options={[
          ['', 'any'],
          ['pending', 'pending'],
          ['approved', 'approved'],
          ['rejected', 'rejected'],
        ]}
        onChange={(status) => {
          onChange({ ...filter, status: status as QuestionFilter['status'] });
        }}
        testId="questions-status"
      />
    </form>
  );
}

const sourceOf = (q: DatasetQuestion) =>
  q.provenance.kind === 'teacher'
    ? `teacher ${q.provenance.teacher}`
    : q.provenance.kind === 'imported'
      ? `imported (${q.provenance.format})`
      : 'by hand';

export function QuestionsTable(props: {
  questions: readonly DatasetQuestion[];
  selected: string | null;
  onOpen: (id: string) => void;
}) {
  return (
    <table className="datasets-table" data-testid="questions-table">
      <thead>
        <tr>
          <th>question</th>
          <th>group</th>
          <th>split</th>
          <th>gold spans</th>
          <th>source</th>
          <th>approval</th>
        </tr>
      </thead>
      <tbody>
        {props.questions.map((q) => (
          <tr
            key={q.id}
            aria-selected={q.id === props.selected}
            onClick={() => {
              props.onOpen(q.id);
            }}
            data-testid="question-row"
            data-id={q.id}
            data-status={q.status}
          >
            <td>
              <button
                type="button"
                className="papers-link-button"
                onClick={(e) => {
                  e.stopPropagation();
                  props.onOpen(q.id);
                }}
              >
                {q.question}
              </button>
            </td>
            <td>{q.group ?? '–'}</td>
            <td>{q.split}</td>
            <td>{q.gold.length}</td>
            <td>
              {sourceOf(q)}
              {q.editedAt !== null ? ', edited' : ''}
            </td>
            <td className={`datasets-status-${q.status}`}>{q.status}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
