// Datasets written by hand: an empty dataset by name, and a question over papers of a set (its
// gold spans are then marked by selecting text on the papers, in the question's editor).
import { useState, type SyntheticEvent } from 'react';
import { useApi } from '../../api/ApiContext.tsx';
import { FailureLine } from '../papers/FailureLine.tsx';
import { TextField } from '../fields.tsx';
import { useEngineAction } from '../papers/use-engine-action.ts';
import { useEngineQuery } from '../papers/use-engine-query.ts';

export function NewDatasetForm(props: { onCreated: (name: string) => void }) {
  const api = useApi();
  const [name, setName] = useState('');
  const { failure, run } = useEngineAction();
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    run(
      () => api.call('datasets.create', { name: name.trim() }),
      ({ dataset }) => {
        setName('');
        props.onCreated(dataset.name);
      },
    );
  };
  return (
    <form className="datasets-form" onSubmit={submit} data-testid="new-dataset-form">
      <h2>Write one by hand</h2>
      <TextField label="dataset name" value={name} onChange={setName} testId="new-dataset-name" />
      <button className="button" type="submit" disabled={name.trim() === ''}>
        Create
      </button>
      <FailureLine failure={failure} testId="datasets-form-failure" />
    </form>
  );
}

/** A new question over papers of a set, added pending with no gold spans yet. */
export function AddQuestionForm(props: { dataset: string; onAdded: (id: string) => void }) {
  const api = useApi();
  const sets = useEngineQuery('hand-sets', () => api.call('papers.sets', {}), {
    refreshOn: 'papers.setsChanged',
  });
  const setNames = sets.status === 'ready' ? sets.value.sets.map((s) => s.name) : [];
  const [set, setSet] = useState('');
  const shownSet = set === '' ? (setNames[0] ?? '') : set;
  const papers = useEngineQuery(shownSet === '' ? null : `hand-papers:${shownSet}`, () =>
    api.call('papers.list', { set: shownSet }),
  );
  const [text, setText] = useState('');
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [split, setSplit] = useState<'train' | 'validation'>('train');
  const { failure, run } = useEngineAction();
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    run(
      () =>
        api.call('datasets.addQuestion', {
          dataset: props.dataset,
          question: text.trim(),
          set: shownSet,
          paperIds: [...picked],
          gold: [],
          split,
        }),
      ({ question }) => {
        setText('');
        setPicked(new Set());
        props.onAdded(question.id);
      },
    );
  };
  return (
    <details className="datasets-add">
      <summary data-testid="add-question-open">Add a question by hand</summary>
      <form className="datasets-form" onSubmit={submit} data-testid="add-question-form">
        <label>
          question
          <textarea
            rows={2}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
            }}
            data-testid="add-question-text"
          />
        </label>
        <label>
          paper set
          <select
            value={shownSet}
            onChange={(e) => {
              setSet(e.target.value);
              setPicked(new Set());
            }}
          >
            {setNames.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <fieldset className="datasets-papers-pick">
          <legend>its papers</legend>
          {papers.status === 'ready' &&
            papers.value.papers.map((paper) => (
              <label key={paper.id} className="datasets-check">
                <input
                  type="checkbox"
                  checked={picked.has(paper.id)}
                  onChange={(e) => {
                    const next = new Set(picked);
                    if (e.target.checked) next.add(paper.id);
                    else next.delete(paper.id);
                    setPicked(next);
                  }}
                  data-testid="add-question-paper"
                />
                {paper.title || paper.id}
              </label>
            ))}
        </fieldset>
        <label>
          split
          <select
            value={split}
            onChange={(e) => {
              setSplit(e.target.value as 'train' | 'validation');
            }}
          >
            <option value="train">train</option>
            <option value="validation">validation</option>
          </select>
        </label>
        <button
          className="button"
          type="submit"
          disabled={text.trim() === '' || picked.size === 0}
          data-testid="add-question-submit"
        >
          Add, then mark its gold spans
        </button>
        <FailureLine failure={failure} testId="datasets-form-failure" />
      </form>
    </details>
  );
}
