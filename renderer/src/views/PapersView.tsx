// Papers: the workspace's paper sets and their import (drop, file dialog, arXiv ids), each set's
// papers, search and map, and the reader (a paper's text beside its PDF). Where the view stands is
// all in the URL (papers/route.ts), so every place, a highlighted span included, can be linked.
import { useEffect, useEffectEvent, useRef, useState, type DragEvent } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { SetName } from '../../../app/api/index.ts';
import { useApi } from '../api/ApiContext.tsx';
import { useAppInfo } from '../shell/useAppInfo.ts';
import { ImportPanel, type ImportTarget } from './papers/ImportPanel.tsx';
import { PaperReader } from './papers/PaperReader.tsx';
import { papersHref, readPapersLocation } from './papers/route.ts';
import { SetsPanel } from './papers/SetsPanel.tsx';
import { SetView } from './papers/SetView.tsx';
import { useEngineQuery } from './papers/use-engine-query.ts';
import { usePaperImport, type PaperImport } from './papers/usePaperImport.ts';
import '../styles/papers.css';

export function PapersView() {
  const api = useApi();
  const [params] = useSearchParams();
  const location = readPapersLocation(useParams()['*'], params);
  const appInfo = useAppInfo();
  const importer = usePaperImport();
  const sets = useEngineQuery('sets', async () => (await api.call('papers.sets', {})).sets, {
    refreshOn: 'papers.setsChanged',
  });
  const setNames = sets.status === 'ready' ? sets.value.map((set) => set.name) : [];
  const selected = location.set ?? setNames[0];

  const { newName, setNewName, newNameProblem, target } = useImportTarget(setNames, selected);
  useOpenCreatedSet(importer.job, setNames, () => {
    setNewName('');
  });

  const startImport = (files: readonly File[]) => {
    if (target && files.length > 0) void importer.importFiles(target.set, files);
  };
  const drop = useFileDrop(startImport);

  if (location.set !== undefined && location.paperId !== undefined) {
    const { set, paperId, hl } = location;
    return (
      <section className="view papers-view reading" data-testid="view-papers">
        <PaperReader key={`${set}/${paperId}`} set={set} paperId={paperId} hl={hl} />
      </section>
    );
  }

  return (
    <section
      className="view papers-view"
      data-testid="view-papers"
      aria-labelledby="view-papers-title"
      {...drop.handlers}
    >
      <div className="papers-browse">
        <aside className="papers-aside">
          <h1 id="view-papers-title">Papers</h1>
          <SetsPanel
            sets={sets}
            selected={selected}
            newName={newName}
            newNameProblem={newNameProblem}
            onNewNameChange={setNewName}
          />
          <ImportPanel
            target={target}
            importer={importer}
            nativeDialogs={appInfo.status === 'ready' && appInfo.info.capabilities.nativeDialogs}
          />
        </aside>
        <div className="papers-main">
          {selected !== undefined ? (
            <SetView set={selected} tab={location.tab} query={location.query} />
          ) : sets.status !== 'ready' ? null : (
            <NoSetsYet />
          )}
        </div>
      </div>
      {drop.over && <DropOverlay target={target} />}
    </section>
  );
}

/** The set an import goes to: the typed new name when it is valid, else the selected set. */
function useImportTarget(setNames: readonly string[], selected: string | undefined) {
  const [newName, setNewName] = useState('');
  const typed = newName.trim();
  const nameCheck = SetName.safeParse(typed);
  const newNameProblem =
    typed !== '' && !nameCheck.success ? nameCheck.error.issues[0]?.message : undefined;
  const target: ImportTarget | undefined =
    typed !== '' && nameCheck.success
      ? { set: typed, isNew: !setNames.includes(typed) }
      : typed === '' && selected !== undefined
        ? { set: selected, isNew: false }
        : undefined;
  return { newName, setNewName, newNameProblem, target };
}

/** An import that creates a set opens it when it finishes. */
function useOpenCreatedSet(
  job: PaperImport['job'],
  setNames: readonly string[],
  onOpened: () => void,
) {
  const navigate = useNavigate();
  const createdSet = useRef<string | null>(null);
  const isKnownSet = useEffectEvent((name: string) => setNames.includes(name));
  const opened = useEffectEvent(onOpened);
  useEffect(() => {
    if (job?.status === 'running' && !isKnownSet(job.set)) createdSet.current = job.set;
    if (job?.status !== 'finished' || createdSet.current !== job.set) return;
    createdSet.current = null;
    opened();
    void navigate(papersHref({ set: job.set }));
  }, [job, navigate]);
}

function NoSetsYet() {
  return (
    <div className="papers-empty">
      <h2 className="set-view-title">Start a paper set</h2>
      <p>
        Name a set on the left, then drop PDFs or QASPER JSON anywhere on this page, pick files, or
        fetch papers by arXiv id. Each paper&rsquo;s text is extracted once and kept in the
        workspace; you can then read it beside its PDF, search the set and see its map.
      </p>
    </div>
  );
}

function DropOverlay({ target }: { target: ImportTarget | undefined }) {
  return (
    <div className="papers-drop-overlay" aria-hidden="true">
      <p>
        {target
          ? `Drop to add to ${target.set}${target.isNew ? ' (new set)' : ''}`
          : 'Name a set first, then drop the files'}
      </p>
    </div>
  );
}

/** Files dragged over the element: `over` while they hover, `onFiles` when dropped. */
function useFileDrop(onFiles: (files: File[]) => void) {
  const [over, setOver] = useState(false);
  const depth = useRef(0);
  const carriesFiles = (event: DragEvent) => event.dataTransfer.types.includes('Files');
  return {
    over,
    handlers: {
      onDragEnter: (event: DragEvent) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        depth.current += 1;
        setOver(true);
      },
      onDragOver: (event: DragEvent) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
      },
      onDragLeave: (event: DragEvent) => {
        if (!carriesFiles(event)) return;
        depth.current = Math.max(0, depth.current - 1);
        if (depth.current === 0) setOver(false);
      },
      onDrop: (event: DragEvent) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        depth.current = 0;
        setOver(false);
        onFiles([...event.dataTransfer.files]);
      },
    },
  };
}
