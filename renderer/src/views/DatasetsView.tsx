// Datasets: the evidence datasets of the workspace. Generate one from a paper set with a teacher
// model (progress and cost live; a stopped one resumes) or import a file; browse, search and filter
// its questions; edit a question on its papers (gold spans highlighted on the text and the PDF, a
// selection added as a new span, approve or reject); read the generation report; run teacher
// traces and make the SFT set a Train job starts from; rename, export, delete. Where the view
// stands is in the URL (?dataset=&tab=&q=&paper=&sft=).
import { useState, type SyntheticEvent } from 'react';
import { describeGrouping, type DatasetSummary } from '../../../app/api/index.ts';
import { useApi } from '../api/ApiContext.tsx';
import { DatasetList, GenerateForm, ImportForm, useGenerations } from './datasets/DatasetList.tsx';
import { AddQuestionForm, NewDatasetForm } from './datasets/HandForms.tsx';
import { QuestionEditor } from './datasets/QuestionEditor.tsx';
import {
  noFilter,
  QuestionFilters,
  QuestionsTable,
  useQuestions,
  type QuestionFilter,
} from './datasets/QuestionsPanel.tsx';
import { ReportPanel } from './datasets/ReportPanel.tsx';
import { TracesPanel } from './datasets/TracesPanel.tsx';
import { FailureLine } from './papers/FailureLine.tsx';
import { useEngineAction } from './papers/use-engine-action.ts';
import { useEngineQuery } from './papers/use-engine-query.ts';
import { useUrlParams } from './use-url-params.ts';
import '../styles/papers.css';
import '../styles/datasets.css';

type Tab = 'questions' | 'report' | 'traces';
const tabs: readonly [Tab, string][] = [
  ['questions', 'Questions'],
  ['report', 'Generation report'],
  ['traces', 'Teacher traces & SFT sets'],
];

function useDatasetParams() {
  const { params, go } = useUrlParams();
  const tab = params.get('tab');
  return {
    dataset: params.get('dataset'),
    tab: tabs.some(([t]) => t === tab) ? (tab as Tab) : 'questions',
    questionId: params.get('q'),
    paperId: params.get('paper'),
    sftSet: params.get('sft'),
    go,
  };
}

export function DatasetsView() {
  const api = useApi();
  const where = useDatasetParams();
  const [reload, setReload] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const list = useEngineQuery('datasets', () => api.call('datasets.list', {}), {
    refreshOn: 'dataset.finished',
    reloadToken: reload,
  });
  const generations = useGenerations();
  const datasets = list.status === 'ready' ? list.value.datasets : [];
  const selected = datasets.find((d) => d.name === where.dataset);
  const open = (name: string) => {
    where.go({ dataset: name, q: null, paper: null, sft: null });
  };
  return (
    <section
      className="view datasets-view"
      data-testid="view-datasets"
      aria-labelledby="view-datasets-title"
    >
      <aside className="datasets-side">
        <h1 id="view-datasets-title">Datasets</h1>
        <DatasetList
          datasets={datasets}
          selected={where.dataset}
          generations={generations}
          onOpen={open}
        />
        <GenerateForm
          onStarted={(name, grouping) => {
            generations.started(name);
            setNotice(`generating '${name}': ${describeGrouping(grouping)}`);
            setReload((n) => n + 1);
            open(name);
          }}
        />
        <NewDatasetForm
          onCreated={(name) => {
            setReload((n) => n + 1);
            open(name);
          }}
        />
        <ImportForm
          onImported={(name, issues) => {
            setNotice(
              issues.length === 0
                ? `imported '${name}'`
                : `imported '${name}'; ${String(issues.length)} rows had problems: ${issues.slice(0, 3).join('; ')}`,
            );
            setReload((n) => n + 1);
            open(name);
          }}
        />
        {notice && (
          <p className="papers-muted" data-testid="datasets-notice">
            {notice}
          </p>
        )}
      </aside>
      <div className="datasets-main">
        {selected ? (
          <DatasetPanel
            key={selected.id}
            dataset={selected}
            running={
              generations.progress.has(selected.name) || generations.starting.has(selected.name)
            }
            onResume={() => {
              generations.started(selected.name);
            }}
            where={where}
            onChanged={() => {
              setReload((n) => n + 1);
            }}
          />
        ) : (
          <p className="papers-muted">
            {where.dataset && list.status === 'ready'
              ? `There is no dataset '${where.dataset}' in this workspace.`
              : 'Open a dataset on the left, or make one.'}
          </p>
        )}
      </div>
    </section>
  );
}

function DatasetPanel(props: {
  dataset: DatasetSummary;
  running: boolean;
  onResume: () => void;
  where: ReturnType<typeof useDatasetParams>;
  onChanged: () => void;
}) {
  const { dataset, where } = props;
  const [filter, setFilter] = useState<QuestionFilter>(noFilter);
  const [reload, setReload] = useState(0);
  const questions = useQuestions(dataset.name, filter, reload);
  const all = useQuestions(dataset.name, noFilter, reload);
  const groups = [
    ...new Set(
      (all.status === 'ready' ? all.value.questions : []).flatMap((q) =>
        q.group === null ? [] : [q.group],
      ),
    ),
  ];
  const shown = questions.status === 'ready' ? questions.value.questions : [];
  const question =
    all.status === 'ready' ? all.value.questions.find((q) => q.id === where.questionId) : undefined;
  const changed = () => {
    setReload((n) => n + 1);
    props.onChanged();
  };
  return (
    <div className="datasets-panel" data-testid="dataset-panel" data-name={dataset.name}>
      <DatasetHeader
        dataset={dataset}
        running={props.running}
        onResume={props.onResume}
        onChanged={props.onChanged}
        where={where}
      />
      <nav className="set-tabs" aria-label="Dataset">
        {tabs.map(([tab, label]) => (
          <button
            key={tab}
            type="button"
            className={`set-tab${tab === where.tab ? ' selected' : ''}`}
            onClick={() => {
              where.go({ tab });
            }}
            data-testid={`dataset-tab-${tab}`}
          >
            {label}
          </button>
        ))}
      </nav>
      {where.tab === 'questions' && (
        <>
          <AddQuestionForm
            dataset={dataset.name}
            onAdded={(id) => {
              changed();
              where.go({ q: id, paper: null });
            }}
          />
          <QuestionFilters filter={filter} groups={groups} onChange={setFilter} />
          <p className="papers-muted" data-testid="questions-count">
            {shown.length} of {dataset.questions} questions · {dataset.approved} approved ·{' '}
            {dataset.rejected} rejected
          </p>
          <div className="datasets-questions">
            <QuestionsTable
              questions={shown}
              selected={where.questionId}
              onOpen={(id) => {
                where.go({ q: id, paper: null });
              }}
            />
            {question && (
              <QuestionEditor
                dataset={dataset.name}
                question={question}
                paperId={where.paperId}
                onPaper={(paper) => {
                  where.go({ paper });
                }}
                onChanged={changed}
              />
            )}
          </div>
        </>
      )}
      {where.tab === 'report' && <ReportPanel dataset={dataset.name} />}
      {where.tab === 'traces' && (
        <TracesPanel
          dataset={dataset}
          sftSet={where.sftSet}
          onSftSet={(name) => {
            where.go({ sft: name });
          }}
        />
      )}
    </div>
  );
}

function DatasetHeader(props: {
  dataset: DatasetSummary;
  running: boolean;
  onResume: () => void;
  onChanged: () => void;
  where: ReturnType<typeof useDatasetParams>;
}) {
  const api = useApi();
  const { dataset } = props;
  const [name, setName] = useState(dataset.name);
  const [exportPath, setExportPath] = useState('');
  const [exportFormat, setExportFormat] = useState<'skyrl' | 'ours'>('skyrl');
  const [message, setMessage] = useState<string | null>(null);
  const { failure, run } = useEngineAction();
  const rename = (event: SyntheticEvent) => {
    event.preventDefault();
    run(
      () => api.call('datasets.rename', { dataset: dataset.name, name: name.trim() }),
      (answer) => {
        props.onChanged();
        props.where.go({ dataset: answer.dataset.name });
      },
    );
  };
  const exportRows = (event: SyntheticEvent) => {
    event.preventDefault();
    run(
      () =>
        api.call('datasets.export', {
          dataset: dataset.name,
          format: exportFormat,
          path: exportPath,
        }),
      ({ rows, path }) => {
        setMessage(`wrote ${String(rows)} rows to ${path}`);
      },
    );
  };
  // A stopped (or killed) generation goes on at its next group with the same options.
  const generation = dataset.generation;
  const unfinished =
    generation !== null && !props.running && dataset.groupsDone < dataset.groupsPlanned;
  const resume = () => {
    if (!generation) return;
    run(
      () => api.call('datasets.generate', { name: dataset.name, options: generation }),
      props.onResume,
    );
  };
  const remove = () => {
    if (!window.confirm(`Delete dataset '${dataset.name}' and its questions?`)) return;
    run(
      () => api.call('datasets.delete', { dataset: dataset.name }),
      () => {
        props.onChanged();
        props.where.go({ dataset: null, q: null, paper: null });
      },
    );
  };
  return (
    <header className="datasets-header">
      <form onSubmit={rename}>
        <input
          aria-label="dataset name"
          value={name}
          onChange={(e) => {
            setName(e.target.value);
          }}
          data-testid="dataset-name"
        />
        <button className="button" type="submit" disabled={name.trim() === dataset.name}>
          Rename
        </button>
      </form>
      <span className="papers-muted" data-testid="dataset-summary">
        {dataset.questions} questions (train {dataset.train}, validation {dataset.validation})
        {dataset.generation
          ? ` · from set ${dataset.generation.set} by ${dataset.generation.teacher}, groups ${String(dataset.groupsDone)}/${String(dataset.groupsPlanned)}`
          : ''}
      </span>
      {unfinished && (
        <button className="button" type="button" onClick={resume} data-testid="dataset-resume">
          Resume generation ({dataset.groupsPlanned - dataset.groupsDone} groups left)
        </button>
      )}
      <form onSubmit={exportRows}>
        <input
          aria-label="export to file"
          value={exportPath}
          placeholder="/path/to/out.jsonl"
          onChange={(e) => {
            setExportPath(e.target.value);
          }}
          data-testid="dataset-export-path"
        />
        <select
          aria-label="export format"
          value={exportFormat}
          onChange={(e) => {
            setExportFormat(e.target.value as 'skyrl' | 'ours');
          }}
        >
          <option value="skyrl">SkyRL rows (cluster)</option>
          <option value="ours">ours</option>
        </select>
        <button className="button" type="submit" disabled={exportPath.trim() === ''}>
          Export
        </button>
      </form>
      <button className="papers-link-button" type="button" onClick={remove}>
        Delete dataset
      </button>
      {message && <span className="papers-muted">{message}</span>}
      <FailureLine failure={failure} testId="dataset-failure" />
    </header>
  );
}
