// The six views of the app in sidebar order, with their routes and their Mod+digit shortcuts, and
// Settings below them (a page of the app, not one of its views: no ViewId, no shortcut).
import { viewIds, type ViewId } from '../../../app/api/index.ts';

export interface ViewEntry {
  id: ViewId;
  label: string;
  path: string;
  /** Key spec of the shortcut that opens it. */
  keys: string;
}

const viewLabels: Record<ViewId, string> = {
  papers: 'Papers',
  datasets: 'Datasets',
  run: 'Run',
  runs: 'Runs',
  eval: 'Eval',
  train: 'Train',
};

export function viewPath(id: ViewId): string {
  return `/${id}`;
}

export const views: readonly ViewEntry[] = viewIds.map((id, index) => ({
  id,
  label: viewLabels[id],
  path: viewPath(id),
  keys: `Mod+${String(index + 1)}`,
}));

export const settingsEntry = { id: 'settings', label: 'Settings', path: '/settings' } as const;
