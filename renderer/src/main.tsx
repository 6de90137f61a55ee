// The renderer's entry: paint the remembered theme at once, connect to the engine (preload bridge or
// WebSocket), and mount the routed app.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { ApiProvider } from './api/ApiContext.tsx';
import { connectToEngine } from './api/connection.ts';
import { createAppRouter } from './router.tsx';
import { applyShownTheme, readThemeHint, systemPrefersDark } from './theme/document-theme.ts';
import { resolveTheme } from './theme/theme.ts';
import './styles/theme.css';
import './styles/shell.css';
import './styles/views.css';

class MissingRootElementError extends Error {
  override readonly name = 'MissingRootElementError';
  constructor() {
    super("index.html has no <div id='root'>; the renderer has nowhere to mount");
  }
}

applyShownTheme(resolveTheme(readThemeHint(), systemPrefersDark()));

const root = document.getElementById('root');
if (!root) throw new MissingRootElementError();

createRoot(root).render(
  <StrictMode>
    <ApiProvider client={connectToEngine()}>
      <RouterProvider router={createAppRouter()} />
    </ApiProvider>
  </StrictMode>,
);
