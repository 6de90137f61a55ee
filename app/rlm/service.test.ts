// The run service's interpreter pool: runs spread over interpreters by load, a run keeps its
// interpreter, no more than the limit start, and dispose ends them all; and when it tells the store
// to hold its writes (code in the REPL, not code waiting on a child).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedProvider } from '../models/index.ts';
import type { PaperLibrary } from '../papers/index.ts';
import { openWorkspace, RunStore, type Workspace } from '../store/index.ts';
import { fakeSandbox } from './fake-sandbox.test-support.ts';
import { RunService } from './service.ts';

const repl = (command: unknown) => '```repl\n' + JSON.stringify(command) + '\n```';

let dir: string;
let workspace: Workspace;
let created: { agents: string[]; disposed: boolean }[];
let textsRead = 0;
const contexts: unknown[] = [];

function service(interpreters: number): RunService {
  const papers = {
    texts: () => {
      textsRead++;
      return [
        {
          id: 'p1',
          title: 'One',
          context: '### PAPER: One\n\ntext',
          contextOffset: 0,
          fullText: 'text',
        },
      ];
    },
  } as unknown as PaperLibrary;
  return new RunService({
    papers,
    store: new RunStore(workspace.db),
    interpreters,
    providers: (spec) =>
      ScriptedProvider.fromObject(
        { '0': [repl({ sleepMs: 30 }), repl({ final: 'done' })] },
        { spec },
      ),
    sandbox: (callbacks) => {
      const sandbox = fakeSandbox(callbacks);
      const record = { agents: [] as string[], disposed: false };
      created.push(record);
      return Promise.resolve({
        ...sandbox,
        createAgent: (agentId: string, context: Parameters<typeof sandbox.createAgent>[1]) => {
          record.agents.push(agentId);
          contexts.push(context);
          return sandbox.createAgent(agentId, context);
        },
        dispose: async () => {
          record.disposed = true;
          await sandbox.dispose();
        },
      });
    },
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-service-'));
  workspace = openWorkspace(dir);
  created = [];
  textsRead = 0;
  contexts.length = 0;
});
afterEach(() => {
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the interpreter pool', () => {
  it('spreads concurrent runs over the interpreters warm() started', async () => {
    const runs = service(2);
    await runs.warm();
    expect(created).toHaveLength(2);
    const started = await Promise.all(
      Array.from({ length: 4 }, () => runs.start({ set: 's', question: 'q', model: 'scripted:x' })),
    );
    await Promise.all(started.map((run) => run.finished));
    expect(created.map((c) => c.agents.length)).toEqual([2, 2]);
    await runs.dispose();
    expect(created.every((c) => c.disposed)).toBe(true);
  });

  it('starts no more interpreters than its limit, and only under load', async () => {
    const runs = service(1);
    const first = await runs.start({ set: 's', question: 'q', model: 'scripted:x' });
    await first.finished;
    const more = await Promise.all(
      Array.from({ length: 3 }, () => runs.start({ set: 's', question: 'q', model: 'scripted:x' })),
    );
    await Promise.all(more.map((run) => run.finished));
    expect(created).toHaveLength(1);
    await runs.dispose();
  });
});

describe('contexts', () => {
  it('reads a set once for the runs started in one turn, and again for a later run', async () => {
    const runs = service(1);
    const together = await Promise.all(
      Array.from({ length: 3 }, () => runs.start({ set: 's', question: 'q', model: 'scripted:x' })),
    );
    await Promise.all(together.map((run) => run.finished));
    expect(textsRead).toBe(1);
    expect(new Set(contexts).size).toBe(1);
    const later = await runs.start({ set: 's', question: 'q', model: 'scripted:x' });
    await later.finished;
    expect(textsRead).toBe(2);
    expect(new Set(contexts).size).toBe(2);
    expect(contexts.at(-1)).toEqual({ p1: '### PAPER: One\n\ntext' });
    await runs.dispose();
  });
});

describe("holding the store's writes", () => {
  it('counts code in the REPL as busy, and code waiting on a child as not', async () => {
    let busy: () => boolean = () => false;
    let released = false;
    class Store extends RunStore {
      override holdWritesWhile(predicate: () => boolean): () => void {
        busy = predicate;
        const release = super.holdWritesWhile(predicate);
        return () => {
          released = true;
          release();
        };
      }
    }
    const signal = () => {
      const { promise, resolve } = Promise.withResolvers<undefined>();
      return {
        open: () => {
          resolve(undefined);
        },
        opened: promise,
      };
    };
    const childAsks = signal();
    const childAnswer = signal();
    const childRuns = signal();
    const childMayEnd = signal();
    const scripted = ScriptedProvider.fromObject({
      '0': [repl({ rlm: 'sub' }), repl({ final: 'done' })],
      '0.0': [repl({ print: 'working' }), repl({ final: 'part' })],
    });
    const runs = new RunService({
      papers: { texts: () => [] } as unknown as PaperLibrary,
      store: new Store(workspace.db),
      interpreters: 1,
      providers: () => ({
        spec: 'scripted:gated',
        complete: async (request) => {
          if (request.agentId === '0.0' && request.turn === 0) {
            childAsks.open();
            await childAnswer.opened;
          }
          return scripted.complete(request);
        },
      }),
      sandbox: (callbacks) => {
        const sandbox = fakeSandbox(callbacks);
        return Promise.resolve({
          ...sandbox,
          run: async (key: string, code: string) => {
            if (key.endsWith('/0.0') && code.includes('working')) {
              childRuns.open();
              await childMayEnd.opened;
            }
            return sandbox.run(key, code);
          },
        });
      },
    });
    const run = await runs.start({ set: 's', question: 'q', model: 'scripted:gated' });
    await childAsks.opened;
    expect(busy()).toBe(false); // the root's code waits on its child, the child on the model
    childAnswer.open();
    await childRuns.opened;
    expect(busy()).toBe(true); // the child's code is in the REPL
    childMayEnd.open();
    expect((await run.finished).status).toBe('done');
    expect(busy()).toBe(false);
    expect(released).toBe(false);
    await runs.dispose();
    expect(released).toBe(true); // a disposed service holds no one's writes
  });
});
