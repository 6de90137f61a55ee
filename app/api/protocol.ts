// The frames both transports carry (WebSocket text frames, Electron IPC messages). Frames are
// validated where they enter a process: the engine checks requests, the client checks the rest.
import { z } from 'zod';
import { ApiEvent } from './events.ts';

export const RequestFrame = z.object({
  kind: z.literal('request'),
  id: z.number().int().nonnegative(),
  command: z.string().min(1),
  payload: z.unknown(),
});
export type RequestFrame = z.infer<typeof RequestFrame>;

export const WireError = z.object({
  name: z.string(),
  message: z.string(),
  fields: z.array(z.string()).optional(),
});

export const ResponseFrame = z.discriminatedUnion('ok', [
  z.object({
    kind: z.literal('response'),
    id: z.number().int(),
    ok: z.literal(true),
    result: z.unknown(),
  }),
  z.object({
    kind: z.literal('response'),
    id: z.number().int(),
    ok: z.literal(false),
    error: WireError,
  }),
]);
export type ResponseFrame = z.infer<typeof ResponseFrame>;

export const EventFrame = z.object({ kind: z.literal('event'), event: ApiEvent });
export type EventFrame = z.infer<typeof EventFrame>;

export const HostFrame = z.union([ResponseFrame, EventFrame]);
export type HostFrame = ResponseFrame | EventFrame;

/** Channel names of the Electron IPC transport. */
export const ipcChannels = {
  request: 'rlm-studio:request',
  event: 'rlm-studio:event',
} as const;
