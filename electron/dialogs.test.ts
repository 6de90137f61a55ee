import { describe, expect, it } from 'vitest';
import { createDialogService, openDialogOptions, type OpenDialogOptionsLike } from './dialogs.ts';

const pdfs = [{ name: 'PDF', extensions: ['pdf'] }];

describe('openDialogOptions', () => {
  it.each([
    [false, false, ['openFile']],
    [false, true, ['openFile', 'multiSelections']],
    [true, false, ['openDirectory', 'createDirectory']],
    [true, true, ['openDirectory', 'createDirectory', 'multiSelections']],
  ])('directories=%s multiple=%s -> %j', (directories, multiple, properties) => {
    expect(openDialogOptions({ title: 'Pick', directories, multiple, filters: pdfs })).toEqual({
      title: 'Pick',
      properties,
      filters: directories ? [] : pdfs,
    });
  });
});

describe('createDialogService', () => {
  function fakeDialog(answer: { canceled: boolean; filePaths: string[] }) {
    const asked: OpenDialogOptionsLike[] = [];
    const dialog = {
      showOpenDialog: (options: OpenDialogOptionsLike) => {
        asked.push(options);
        return Promise.resolve(answer);
      },
    };
    return { dialog, asked };
  }

  it('returns the chosen paths', async () => {
    const fake = fakeDialog({ canceled: false, filePaths: ['/papers/a.pdf', '/papers/b.pdf'] });
    const service = createDialogService(fake.dialog);
    await expect(
      service.openPaths({
        title: 'Import PDFs',
        directories: false,
        multiple: true,
        filters: pdfs,
      }),
    ).resolves.toEqual({ paths: ['/papers/a.pdf', '/papers/b.pdf'], canceled: false });
    expect(fake.asked).toEqual([
      { title: 'Import PDFs', properties: ['openFile', 'multiSelections'], filters: pdfs },
    ]);
  });

  it('returns no paths when the user cancels, whatever the dialog reports', async () => {
    const fake = fakeDialog({ canceled: true, filePaths: ['/stale'] });
    await expect(
      createDialogService(fake.dialog).openPaths({
        title: 'Open Workspace',
        directories: true,
        multiple: false,
        filters: [],
      }),
    ).resolves.toEqual({ paths: [], canceled: true });
  });
});
