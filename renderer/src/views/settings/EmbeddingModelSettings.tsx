// Settings > Embeddings: the local sentence-embedding model folder the papers map can use
// (transformers.js layout). The engine checks the folder before saving it, so a folder that is not
// one comes back as its named error (EmbeddingModelFolderError, EmbeddingModelTypeError).
import { useState, type SyntheticEvent } from 'react';
import { useApi } from '../../api/ApiContext.tsx';
import { useAppInfo } from '../../shell/useAppInfo.ts';
import { describeFailure } from './useModelEndpoints.ts';
import { useSavedSetting } from './useSavedSetting.ts';

/** The saved folder, the one being typed, saving it, and choosing it in the native dialog. */
function useEmbeddingFolder() {
  const api = useApi();
  const appInfo = useAppInfo();
  const [folder, setFolder] = useState('');
  const showFolder = (embeddingModel: string | null) => {
    setFolder(embeddingModel ?? '');
  };
  const { saved, failure, setFailure, busy, save } = useSavedSetting<string | null>(
    'settings.changed',
    (client) => client.call('settings.get', {}).then((settings) => settings.embeddingModel),
    showFolder,
  );
  const write = (embeddingModel: string | null) => {
    save(
      (client) =>
        client
          .call('settings.update', { embeddingModel })
          .then((settings) => settings.embeddingModel),
      showFolder,
    );
  };
  const choose = () => {
    api
      .call('dialog.openPaths', {
        title: 'Embedding model folder',
        directories: true,
        multiple: false,
      })
      .then(
        ({ paths, canceled }) => {
          const [path] = paths;
          if (!canceled && path !== undefined) setFolder(path);
        },
        (error: unknown) => {
          setFailure(describeFailure(error));
        },
      );
  };
  const nativeDialogs = appInfo.status === 'ready' && appInfo.info.capabilities.nativeDialogs;

  return { folder, setFolder, saved, failure, busy, write, choose, nativeDialogs };
}

export function EmbeddingModelSettings() {
  const { folder, setFolder, saved, failure, busy, write, choose, nativeDialogs } =
    useEmbeddingFolder();
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const trimmed = folder.trim();
    write(trimmed === '' ? null : trimmed);
  };

  return (
    <section className="settings-section" aria-labelledby="embeddings-title">
      <h2 id="embeddings-title" className="settings-subheading">
        Embedding model
      </h2>
      <p className="settings-muted">
        A local sentence-embedding model for the papers map: a Hugging Face folder in
        transformers.js layout (config.json, tokenizer.json, onnx/model.onnx). Nothing is
        downloaded; without one the map uses TF-IDF.
      </p>
      <form className="endpoint-form" onSubmit={submit} data-testid="embedding-settings">
        <div className="settings-field">
          <label htmlFor="embedding-folder">Model folder</label>
          <div className="settings-row">
            <input
              id="embedding-folder"
              data-testid="embedding-folder"
              value={folder}
              disabled={saved === undefined}
              placeholder="/models/all-MiniLM-L6-v2"
              spellCheck={false}
              onChange={(event) => {
                setFolder(event.target.value);
              }}
            />
            {nativeDialogs && (
              <button type="button" className="button" onClick={choose}>
                Choose…
              </button>
            )}
          </div>
        </div>
        <FolderActions
          saved={saved}
          busy={busy}
          onRemove={() => {
            write(null);
          }}
        />
        {failure && (
          <p className="settings-failure" role="alert" data-testid="embedding-settings-failure">
            {failure.name}: {failure.message}
          </p>
        )}
      </form>
    </section>
  );
}

function FolderActions({
  saved,
  busy,
  onRemove,
}: {
  saved: string | null | undefined;
  busy: boolean;
  onRemove: () => void;
}) {
  return (
    <div className="endpoint-form-actions">
      <button
        type="submit"
        className="button primary"
        disabled={busy || saved === undefined}
        data-testid="embedding-save"
      >
        Save
      </button>
      {saved && (
        <button
          type="button"
          className="button"
          disabled={busy}
          data-testid="embedding-remove"
          onClick={onRemove}
        >
          Remove
        </button>
      )}
      {saved !== undefined && (
        <span className="settings-muted" data-testid="embedding-saved">
          {saved === null ? 'no model set: the map uses TF-IDF' : `the map embeds with ${saved}`}
        </span>
      )}
    </div>
  );
}
