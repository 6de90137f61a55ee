// `local:PATH` models in a process of their own (training/engine/local-model-child.ts, or
// local-model.cjs beside the desktop bundle): the desktop shell's engine runs in Electron's main
// process, which decoding must not stall. The provider forwards each completion over the child's
// stdin and streams its deltas back; errors keep the child's names (a missing model file, a
// cancelled generation). One child per model path; one whose load fails is closed and forgotten,
// so the next run tries again. The CLI and `rlm-studio serve` decode in process (training/engine/cli.ts).
import type {
  Completion,
  CompletionRequest,
  Provider,
  ProviderFactory,
} from '../../app/models/index.ts';
import { LineChild } from '../../app/children/index.ts';
// The protocol alone, not training/engine's index: that would load jax-js into the desktop shell's
// main process, which only talks to the child.
import {
  localModelChild,
  LocalModelReply,
  type LocalModelRequest,
} from '../../training/engine/decoding/local-model-protocol.ts';

export class LocalModelProcessError extends Error {
  override readonly name = 'LocalModelProcessError';
}

type Ask = LocalModelRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

class LocalModelChild {
  // The host's environment: the WebGPU backend reads its driver variables from it.
  readonly #child = new LineChild<LocalModelReply>({
    entry: localModelChild,
    env: process.env,
    parse: (value) => {
      const parsed = LocalModelReply.safeParse(value);
      return parsed.success ? parsed.data : undefined;
    },
    died: (detail) => new LocalModelProcessError(`the local model process ${detail}`),
  });

  get exited(): boolean {
    return this.#child.exited;
  }

  /** Sends a request; resolves with its final reply (a `failed` one thrown with its name). */
  async ask(
    request: Ask,
    options: {
      onDelta?: ((text: string) => void) | undefined;
      signal?: AbortSignal | undefined;
    } = {},
  ): Promise<LocalModelReply> {
    const id = this.#child.nextId;
    const abort = () => {
      this.#child.send({ kind: 'abort', id });
    };
    options.signal?.addEventListener('abort', abort, { once: true });
    try {
      return await this.#child.request(request, (reply) => {
        if (reply.kind !== 'delta') return false;
        options.onDelta?.(reply.text);
        return true;
      });
    } finally {
      options.signal?.removeEventListener('abort', abort);
    }
  }

  close(): Promise<void> {
    return this.#child.close();
  }

  /** Ends the process at once (tests: a crash mid-run). */
  kill(): void {
    this.#child.kill();
  }
}

class LocalModelProxy implements Provider {
  readonly spec: string;
  readonly child: LocalModelChild;

  constructor(spec: string, child: LocalModelChild) {
    this.spec = spec;
    this.child = child;
  }

  async complete(request: CompletionRequest): Promise<Completion> {
    const reply = await this.child.ask(
      {
        kind: 'complete',
        request: {
          messages: request.messages,
          agentId: request.agentId,
          turn: request.turn,
          ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
          ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
          ...(request.seed !== undefined ? { seed: request.seed } : {}),
          ...(request.stop ? { stop: request.stop } : {}),
          stream: request.onDelta !== undefined,
        },
      },
      { onDelta: request.onDelta, signal: request.signal },
    );
    if (reply.kind !== 'completed') {
      throw new LocalModelProcessError(`the local model process answered ${reply.kind}`);
    }
    return reply.completion;
  }
}

export interface LocalModelProcesses {
  /** The `local:` scheme for createProvider (composeEngine's `providers`). */
  factory: ProviderFactory;
  /** Ends every local-model process. */
  dispose(): Promise<void>;
}

export function localModelProcesses(): LocalModelProcesses {
  const loaded = new Map<string, Promise<LocalModelProxy>>();
  const factory: ProviderFactory = async (target, context) => {
    const path = target.trim();
    if (path === '') throw new LocalModelProcessError("'local:' needs a path: local:PATH/TO/MODEL");
    const backend = context.env.RLM_STUDIO_BACKEND;
    const key = `${backend ?? 'auto'}|${path}`;
    const known = loaded.get(key);
    if (known) {
      const proxy = await known;
      // A process that died (killed, out of memory) is replaced by the next run that asks.
      if (!proxy.child.exited) return new LocalModelProxy(context.spec, proxy.child);
      loaded.delete(key);
    }
    const starting = (async () => {
      const child = new LocalModelChild();
      try {
        await child.ask({
          kind: 'load',
          path,
          spec: context.spec,
          ...(backend !== undefined ? { backend } : {}),
        });
      } catch (error) {
        await child.close();
        throw error;
      }
      return new LocalModelProxy(context.spec, child);
    })();
    loaded.set(key, starting);
    starting.catch(() => {
      if (loaded.get(key) === starting) loaded.delete(key);
    });
    return starting;
  };
  return {
    factory,
    async dispose() {
      const proxies = await Promise.allSettled(loaded.values());
      loaded.clear();
      await Promise.all(
        proxies.flatMap((settled) =>
          settled.status === 'fulfilled' ? [settled.value.child.close()] : [],
        ),
      );
    },
  };
}
