// The hash routes: one per view under the app shell and Settings; '/' and anything unknown
// redirect to Papers.
// Hash routing works the same over http:// (serve mode) and the desktop shell's own protocol.
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { createHashRouter, Navigate } from 'react-router';
import type { ViewId } from '../../app/api/index.ts';
import { AppShell } from './shell/AppShell.tsx';
import { settingsEntry, viewPath, views } from './shell/views.ts';

const viewComponents: Record<ViewId, LazyExoticComponent<ComponentType>> = {
  papers: lazy(() => import('./views/PapersView.tsx').then((m) => ({ default: m.PapersView }))),
  datasets: lazy(() =>
    import('./views/DatasetsView.tsx').then((m) => ({ default: m.DatasetsView })),
  ),
  run: lazy(() => import('./views/RunView.tsx').then((m) => ({ default: m.RunView }))),
  runs: lazy(() => import('./views/RunsView.tsx').then((m) => ({ default: m.RunsView }))),
  eval: lazy(() => import('./views/EvalView.tsx').then((m) => ({ default: m.EvalView }))),
  train: lazy(() => import('./views/TrainView.tsx').then((m) => ({ default: m.TrainView }))),
};

const SettingsView = lazy(() =>
  import('./views/settings/SettingsView.tsx').then((m) => ({ default: m.SettingsView })),
);

const home = viewPath('papers');

export function createAppRouter() {
  return createHashRouter([
    {
      path: '/',
      element: <AppShell />,
      children: [
        { index: true, element: <Navigate to={home} replace /> },
        ...views.map((view) => {
          const View = viewComponents[view.id];
          return { path: view.id, element: <View /> };
        }),
        { path: settingsEntry.id, element: <SettingsView /> },
        { path: '*', element: <Navigate to={home} replace /> },
      ],
    },
  ]);
}
