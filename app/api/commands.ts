// The command half of the contract: every request/response pair an engine answers. Adding a
// command here is the only way to add one; api.surface.test.ts snapshots the whole surface.
import { z } from 'zod';
import { paperCommands } from './papers.ts';
import { runCommands } from './runs.ts';
import { endpointCommands } from './settings-endpoints.ts';
import { evalCommands } from './evals.ts';
import { datasetCommands } from './datasets.ts';
import { trainCommands } from './training.ts';
import { runEvaluationCommands } from './run-evaluation.ts';
import { clusterCommands } from './cluster.ts';

// Re-exported here because app/api/index.ts re-exports this file: the renderer reaches the
// endpoint schemas and defaults only through index.ts.

export const viewIds = ['papers', 'datasets', 'run', 'runs', 'eval', 'train'] as const;
export const ViewId = z.enum(viewIds);
export type ViewId = z.infer<typeof ViewId>;

export const Theme = z.enum(['system', 'light', 'dark']);
export type Theme = z.infer<typeof Theme>;

export const Settings = z.object({
  theme: Theme,
  /**
   * A local sentence-embedding model folder (transformers.js layout) for the papers map; null
   * when none. The engine checks the folder before saving it (EmbeddingModelFolderError).
   */
  embeddingModel: z.string().min(1).max(4096).nullable(),
});
export type Settings = z.infer<typeof Settings>;

export const AppInfo = z.object({
  name: z.string(),
  version: z.string(),
  /** The workspace directory this engine stores everything in. */
  workspace: z.string(),
  /** Where the front end is hosted: the desktop shell or `rlm-studio serve`. */
  shell: z.enum(['electron', 'serve']),
  platform: z.string(),
  /** What this shell can do beyond the api itself. */
  capabilities: z.object({
    nativeDialogs: z.boolean(),
  }),
  schemaVersion: z.number().int(),
});
export type AppInfo = z.infer<typeof AppInfo>;

export const FileFilter = z.object({
  name: z.string().min(1),
  extensions: z.array(z.string().regex(/^[\w*]+$/, 'an extension without the dot')),
});

export const commands = {
  'app.info': {
    summary: 'What engine this is, where its workspace lives and what the shell can do.',
    request: z.object({}).strict(),
    response: AppInfo,
  },
  'app.ping': {
    summary: 'Echoes a message; proves a round trip through the transport.',
    request: z.object({ message: z.string().max(10_000) }).strict(),
    response: z.object({ message: z.string(), receivedAt: z.number() }),
  },
  'settings.get': {
    summary: 'The workspace settings.',
    request: z.object({}).strict(),
    response: Settings,
  },
  'settings.update': {
    summary: 'Changes some settings; every client gets a settings.changed event.',
    request: Settings.partial().strict(),
    response: Settings,
  },
  'dialog.openPaths': {
    summary:
      'Native file dialog (desktop shell only); serve mode answers NativeDialogUnavailableError.',
    request: z
      .object({
        title: z.string().max(200),
        directories: z.boolean().default(false),
        multiple: z.boolean().default(true),
        filters: z.array(FileFilter).default([]),
      })
      .strict(),
    response: z.object({ paths: z.array(z.string()), canceled: z.boolean() }),
  },
  ...paperCommands,
  ...runCommands,
  ...endpointCommands,
  ...evalCommands,
  ...datasetCommands,
  ...trainCommands,
  ...runEvaluationCommands,
  ...clusterCommands,
} as const satisfies Record<string, CommandSpec>;

export interface CommandSpec {
  summary: string;
  request: z.ZodType;
  response: z.ZodType;
}

export type Commands = typeof commands;
export type CommandName = keyof Commands;
/** What a caller passes (defaults may be omitted). */
export type CommandRequest<C extends CommandName> = z.input<Commands[C]['request']>;
/** What a handler receives after validation (defaults filled in). */
export type CommandArgs<C extends CommandName> = z.output<Commands[C]['request']>;
export type CommandResponse<C extends CommandName> = z.output<Commands[C]['response']>;

export const commandNames = Object.keys(commands) as CommandName[];

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(commands, name);
}
