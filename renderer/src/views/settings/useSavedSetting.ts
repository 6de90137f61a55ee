// A Settings section's saved value: loaded when the section mounts and again whenever `changed`
// says it changed (another window, the CLI), and written through `save` with a busy flag and the
// engine's named failure. The section keeps its own form fields and fills them in `onLoad`.
import { useEffect, useEffectEvent, useState } from 'react';
import type { ApiEventKind } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import type { EngineClient } from '../../api/connection.ts';
import { useApiEvent } from '../../api/useApiEvent.ts';
import { describeFailure, type Failure } from './useModelEndpoints.ts';

export interface SavedSetting<T> {
  /** Undefined until the first load answers. */
  saved: T | undefined;
  failure: Failure | null;
  setFailure: (failure: Failure | null) => void;
  busy: boolean;
  /** Writes with `write`; on success the answer becomes `saved` and `after` sees it. */
  save: (write: (api: EngineClient) => Promise<T>, after?: (value: T) => void) => void;
}

export function useSavedSetting<T>(
  changed: ApiEventKind,
  load: (api: EngineClient) => Promise<T>,
  onLoad: (value: T) => void,
): SavedSetting<T> {
  const api = useApi();
  const [saved, setSaved] = useState<T | undefined>(undefined);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const [generation, setGeneration] = useState(0);
  useApiEvent(changed, () => {
    setGeneration((n) => n + 1);
  });
  const read = useEffectEvent(() => load(api));
  const loaded = useEffectEvent((value: T) => {
    setSaved(value);
    onLoad(value);
  });

  useEffect(() => {
    let live = true;
    read().then(
      (value) => {
        if (live) loaded(value);
      },
      (error: unknown) => {
        if (live) setFailure(describeFailure(error));
      },
    );
    return () => {
      live = false;
    };
  }, [api, generation]);

  const save: SavedSetting<T>['save'] = (write, after) => {
    setBusy(true);
    setFailure(null);
    write(api).then(
      (value) => {
        setBusy(false);
        setSaved(value);
        after?.(value);
      },
      (error: unknown) => {
        setBusy(false);
        setFailure(describeFailure(error));
      },
    );
  };
  return { saved, failure, setFailure, busy, save };
}
