// `local:PATH` models in a process of their own (training/engine/local-model-child.ts, or
// local-model.cjs beside the desktop bundle): the desktop shell's engine runs in Electron's main
// process, which decoding must not stall. The provider forwards each completion over the child's
// stdin and streams its deltas back; errors keep the child's names (a missing model file, a
// cancelled generation). One child per model path; one whose load fails is closed and forgotten,
// so the next run tries again. The CLI and `rlm-studio serve` decode in process (training/engine/cli.ts).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Completion, CompletionRequest, Provider, ProviderFactory } from '../models/index.ts';
import { childEnv, childScript } from './child-script.ts';
import { LocalModelReply, type LocalModelRequest } from './local-model-protocol.ts';

/** The local-model process's script: bundled beside main.cjs, or the source. */
export const localModelNames = {
  bundled: 'local-model.cjs',
  source: '../../training/engine/local-model-child.ts',
};

export class LocalModelProcessError extends Error {
  override readonly name = 'LocalModelProcessError';
}

function namedError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

type Ask = LocalModelRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

interface Waiting {
  resolve: (reply: LocalModelReply) => void;
  reject: (error: Error) => void;
  onDelta?: ((text: string) => void) | undefined;
}

class LocalModelChild {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 0;
  #stderr = '';
  #exited: Error | undefined;

  constructor() {
    const { execPath, script } = childScript(localModelNames);
    // The host's environment: the WebGPU backend reads its driver variables from it.
    this.#child = spawn(execPath, [script], {
      env: childEnv(process.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#child.stderr.setEncoding('utf8');
    this.#child.stderr.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4000);
    });
    this.#child.stdin.on('error', () => undefined);
    createInterface({ input: this.#child.stdout }).on('line', (line) => {
      let reply: LocalModelReply;
      try {
        reply = LocalModelReply.parse(JSON.parse(line));
      } catch {
        return;
      }
      const waiting = this.#waiting.get(reply.id);
      if (!waiting) return;
      if (reply.kind === 'delta') {
        waiting.onDelta?.(reply.text);
        return;
      }
      this.#waiting.delete(reply.id);
      waiting.resolve(reply);
    });
    const fail = (detail: string) => {
      const tail = this.#stderr.trim().split('\n').slice(-3).join(' ').slice(-600);
      this.#exited = new LocalModelProcessError(
        `the local model process ${detail}${tail ? `: ${tail}` : ''}`,
      );
      for (const waiting of this.#waiting.values()) waiting.reject(this.#exited);
      this.#waiting.clear();
    };
    this.#child.on('exit', (code, signal) => {
      fail(`exited (${signal ?? String(code)})`);
    });
    this.#child.on('error', (error) => {
      fail(`could not start (${error.message})`);
    });
  }

  get exited(): boolean {
    return this.#exited !== undefined;
  }

  /** Sends a request; resolves with its final reply (a `failed` one thrown with its name). */
  async ask(
    request: Ask,
    options: {
      onDelta?: ((text: string) => void) | undefined;
      signal?: AbortSignal | undefined;
    } = {},
  ): Promise<LocalModelReply> {
    if (this.#exited) throw this.#exited;
    const id = this.#nextId++;
    const abort = () => {
      this.#child.stdin.write(`${JSON.stringify({ kind: 'abort', id })}\n`);
    };
    options.signal?.addEventListener('abort', abort, { once: true });
    try {
      const reply = await new Promise<LocalModelReply>((resolve, reject) => {
        this.#waiting.set(id, { resolve, reject, onDelta: options.onDelta });
        this.#child.stdin.write(`${JSON.stringify({ ...request, id })}\n`);
      });
      if (reply.kind === 'failed') throw namedError(reply.name, reply.message);
      return reply;
    } finally {
      options.signal?.removeEventListener('abort', abort);
    }
  }

  /** Closes stdin (the child ends what it runs and exits); killed if it lingers. */
  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) =>
      this.#child.once('exit', () => {
        resolve();
      }),
    );
    this.#child.stdin.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  /** Ends the process at once (tests: a crash mid-run). */
  kill(): void {
    this.#child.kill('SIGKILL');
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
