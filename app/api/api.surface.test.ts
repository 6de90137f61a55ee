// The whole command and event surface, as JSON Schema. A change to the contract changes this
// snapshot, so every new command, field or event shows up in review.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { commands } from './commands.ts';
import { ApiEvent } from './events.ts';
import { ipcChannels } from './protocol.ts';

describe('api surface', () => {
  it('matches the recorded snapshot', () => {
    const surface = {
      ipcChannels,
      commands: Object.fromEntries(
        Object.entries(commands).map(([name, spec]) => [
          name,
          {
            summary: spec.summary,
            request: z.toJSONSchema(spec.request, { io: 'input' }),
            response: z.toJSONSchema(spec.response),
          },
        ]),
      ),
      events: z.toJSONSchema(ApiEvent),
    };
    expect(surface).toMatchSnapshot();
  });
});
