// The local-model process: `local:PATH` models decode here, not in the engine's process (under
// the desktop shell that is Electron's main process, which a wasm decode would stall between
// tokens). app/host/local-model-process.ts starts it (from the source, or local-model.cjs beside
// the desktop bundle); LocalModelRequest lines on stdin, LocalModelReply lines on stdout. One model
// per process; overlapping requests are batched by LocalProvider as in process. Exits when stdin
// closes. No top-level await: the desktop bundle holds this process as CommonJS.
import { createInterface } from 'node:readline';
import { LocalModelRequest, type LocalModelReply } from './local-model-protocol.ts';
import type { Provider } from '../../../app/models/index.ts';
import { EngineError } from '../errors.ts';
import { localProviderFactory } from './local-provider-factory.ts';

let provider: Provider | undefined;
const running = new Map<number, AbortController>();

function reply(message: LocalModelReply): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function failed(id: number, error: unknown): LocalModelReply {
  const named = error instanceof Error ? error : new Error(String(error));
  return { kind: 'failed', id, name: named.name, message: named.message };
}

async function handle(request: LocalModelRequest): Promise<void> {
  switch (request.kind) {
    case 'load': {
      const env = { RLM_STUDIO_BACKEND: request.backend };
      provider = await localProviderFactory()(request.path, {
        spec: request.spec,
        env,
        options: {},
      });
      reply({ kind: 'loaded', id: request.id });
      return;
    }
    case 'complete': {
      if (!provider) throw new EngineError('a completion was asked before the model was loaded');
      const controller = new AbortController();
      running.set(request.id, controller);
      const { stream, ...asked } = request.request;
      try {
        const completion = await provider.complete({
          ...asked,
          signal: controller.signal,
          ...(stream
            ? {
                onDelta: (text: string) => {
                  reply({ kind: 'delta', id: request.id, text });
                },
              }
            : {}),
        });
        reply({ kind: 'completed', id: request.id, completion });
      } finally {
        running.delete(request.id);
      }
      return;
    }
    case 'abort':
      running.get(request.id)?.abort();
      return;
  }
}

async function serve(): Promise<void> {
  const pending = new Set<Promise<void>>();
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === '') continue;
    let request: LocalModelRequest;
    try {
      request = LocalModelRequest.parse(JSON.parse(line));
    } catch (error) {
      reply(failed(-1, error));
      continue;
    }
    // Loads finish before what follows them; completions overlap (the provider batches them).
    const work = handle(request).catch((error: unknown) => {
      reply(failed(request.id, error));
    });
    if (request.kind === 'load') await work;
    else {
      pending.add(work);
      void work.finally(() => pending.delete(work));
    }
  }
  for (const controller of running.values()) controller.abort();
  await Promise.allSettled(pending);
  process.exit(0);
}

void serve();
