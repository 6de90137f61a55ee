// The engine's DialogService over Electron's native open dialog: maps the api's request
// (directories, multiple, filters) onto showOpenDialog's options and its answer back.
import type { CommandArgs } from '../app/api/index.ts';
import type { DialogService } from '../host/index.ts';

type OpenDialogProperty = 'openFile' | 'openDirectory' | 'multiSelections' | 'createDirectory';

export interface OpenDialogOptionsLike {
  title: string;
  properties: OpenDialogProperty[];
  filters: { name: string; extensions: string[] }[];
}

/** The part of Electron's dialog module the service uses (wrapped to parent it on a window). */
export interface OpenDialogLike {
  showOpenDialog(
    options: OpenDialogOptionsLike,
  ): Promise<{ canceled: boolean; filePaths: string[] }>;
}

export function openDialogOptions(request: CommandArgs<'dialog.openPaths'>): OpenDialogOptionsLike {
  const properties: OpenDialogProperty[] = request.directories
    ? ['openDirectory', 'createDirectory']
    : ['openFile'];
  if (request.multiple) properties.push('multiSelections');
  return {
    title: request.title,
    properties,
    // Filters apply to files only; a folder picker with filters greys out every folder on some platforms.
    filters: request.directories
      ? []
      : request.filters.map((f) => ({ name: f.name, extensions: [...f.extensions] })),
  };
}

export function createDialogService(dialog: OpenDialogLike): DialogService {
  return {
    async openPaths(request) {
      const result = await dialog.showOpenDialog(openDialogOptions(request));
      return result.canceled
        ? { paths: [], canceled: true }
        : { paths: result.filePaths, canceled: false };
    },
  };
}
