// Type-level proof that Electron's real objects satisfy the structural interfaces the shell is
// written against (checked by `tsc`; the runtime assertion is only there so vitest counts a test).
import type {
  BrowserWindow,
  ContextBridge,
  Dialog,
  IpcMain,
  IpcRenderer,
  SafeStorage,
  Session,
  WebContents,
} from 'electron';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ContextBridgeLike, IpcRendererLike } from './bridge.ts';
import type { OpenDialogLike } from './dialogs.ts';
import type { IpcMainLike, WebContentsLike } from './ipc.ts';
import type { SafeStorageLike } from './safe-storage-vault.ts';
import type { GuardedContents, PermissionSession } from './security.ts';
import type { secureWebPreferences } from './security.ts';

describe("Electron's types", () => {
  it('satisfy the shell’s structural interfaces', () => {
    expectTypeOf<IpcMain>().toExtend<IpcMainLike>();
    expectTypeOf<WebContents>().toExtend<WebContentsLike>();
    expectTypeOf<WebContents>().toExtend<GuardedContents>();
    expectTypeOf<Session>().toExtend<PermissionSession>();
    expectTypeOf<IpcRenderer>().toExtend<IpcRendererLike>();
    expectTypeOf<ContextBridge>().toExtend<ContextBridgeLike>();
    expectTypeOf<Pick<Dialog, 'showOpenDialog'>>().toExtend<OpenDialogLike>();
    expectTypeOf<SafeStorage>().toExtend<SafeStorageLike>();
    expectTypeOf<ReturnType<typeof secureWebPreferences>>().toExtend<
      NonNullable<ConstructorParameters<typeof BrowserWindow>[0]>['webPreferences']
    >();
    expect(true).toBe(true);
  });
});
