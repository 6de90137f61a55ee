// Read-only Python in Monaco, sized to its lines. Until Monaco has loaded (lazily, on the first code
// shown) the code shows as plain text, so nothing waits on it. The model and the editor are disposed
// when the viewer goes or its code changes.
import { useEffect, useRef, useState } from 'react';
import { describeFailure, type Failure } from '../papers/failure.ts';
import { loadMonaco } from './monaco.ts';

const lineHeight = 19;
const maxLines = 30;

function monacoTheme(): string {
  return document.documentElement.dataset.theme === 'dark' ? 'vs-dark' : 'vs';
}

/** A read-only editor over the code in `element`; returns what disposes it and its model. */
function createEditor(
  monaco: Awaited<ReturnType<typeof loadMonaco>>,
  element: HTMLElement,
  code: string,
  language: string,
): () => void {
  const model = monaco.editor.createModel(code, language);
  const editor = monaco.editor.create(element, {
    model,
    readOnly: true,
    domReadOnly: true,
    minimap: { enabled: false },
    scrollBeyondLastLine: false,
    lineNumbersMinChars: 3,
    fontSize: 13,
    lineHeight,
    automaticLayout: true,
    theme: monacoTheme(),
    renderLineHighlight: 'none',
    scrollbar: { alwaysConsumeMouseWheel: false },
  });
  return () => {
    editor.dispose();
    model.dispose();
  };
}

export function CodeViewer({ code, language = 'python' }: { code: string; language?: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [ready, setReady] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const lines = Math.min(maxLines, code.split('\n').length);

  useEffect(() => {
    let disposed = false;
    let dispose: () => void = () => undefined;
    // Monaco (and each editor) waits for an idle moment: the turn shows at once as plain text.
    const idle = requestIdleCallback(
      () => {
        if (!disposed) void show();
      },
      { timeout: 400 },
    );
    const show = () =>
      loadMonaco().then(
        (monaco) => {
          const element = host.current;
          if (disposed || !element) return;
          dispose = createEditor(monaco, element, code, language);
          setReady(true);
        },
        (error: unknown) => {
          if (!disposed) setFailure(describeFailure(error));
        },
      );
    return () => {
      disposed = true;
      cancelIdleCallback(idle);
      dispose();
    };
  }, [code, language]);

  return (
    <div className="code-viewer" data-testid="code-viewer" data-ready={ready}>
      <div
        ref={host}
        className="code-viewer-editor"
        style={{ height: ready ? (lines + 1) * lineHeight : 0 }}
      />
      {!ready && <pre className="code-viewer-plain">{code}</pre>}
      {failure && (
        <p className="run-failure" role="alert">
          The code editor could not load ({failure.name}: {failure.message}); the code is shown as
          text.
        </p>
      )}
    </div>
  );
}
