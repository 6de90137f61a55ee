// The event half of the contract: a stream from the engine to every front end. One discriminated
// union on `kind`; later issues add run, paper and training events here.
import { z } from 'zod';
import { Settings, ViewId } from './commands.ts';
import { paperEvents } from './papers.ts';
import { runEvents } from './runs.ts';
import { endpointEvents } from './settings-endpoints.ts';
import { evalEvents } from './evals.ts';
import { datasetEvents } from './datasets.ts';
import { trainEvents } from './training.ts';
import { clusterEvents } from './cluster.ts';

const at = z.number().describe('milliseconds since the epoch, engine clock');

export const ApiEvent = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('settings.changed'), at, settings: Settings }),
  z.object({
    kind: z.literal('app.notice'),
    at,
    level: z.enum(['info', 'warning', 'error']),
    message: z.string(),
  }),
  z.object({ kind: z.literal('menu.navigate'), at, view: ViewId }),
  z.object({ kind: z.literal('menu.toggleTheme'), at }),
  z.object({ kind: z.literal('menu.showShortcuts'), at }),
  ...paperEvents,
  ...runEvents,
  ...endpointEvents,
  ...evalEvents,
  ...datasetEvents,
  ...trainEvents,
  ...clusterEvents,
]);
export type ApiEvent = z.infer<typeof ApiEvent>;
export type ApiEventKind = ApiEvent['kind'];
export type ApiEventOf<K extends ApiEventKind> = Extract<ApiEvent, { kind: K }>;

export const eventKinds = ApiEvent.options.map((option) => option.shape.kind.value);
