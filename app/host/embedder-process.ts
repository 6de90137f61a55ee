// The engine's side of the embedding process (app/papers/embed/embed-child.ts, or embed-child.cjs
// beside the desktop bundle): transformers.js and onnxruntime-node run in a child of the same Node
// (or of Electron run as Node), so embedding a set never blocks the engine and the desktop bundle
// never holds them. One child per loaded model; a short-lived one answers whether a model type is
// known. Errors keep the child's error names.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import {
  decodeVector,
  EmbedReply,
  EmbeddingModelLoadError,
  type EmbedderLoader,
  type EmbedRequest,
  type ModelFolder,
  type ModelTypeCheck,
} from '../papers/index.ts';
import { childEnv, childScript } from './child-script.ts';

/** The embedding process's script: bundled beside main.cjs, or the source. */
export const embedChildNames = {
  bundled: 'embed-child.cjs',
  source: '../papers/embed/embed-child.ts',
};

function namedError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

type Request = EmbedRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

/** One embedding child: requests in, replies matched by id; its death fails what is pending. */
class EmbeddingChild {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #pending = new Map<
    number,
    { resolve: (r: EmbedReply) => void; reject: (e: Error) => void }
  >();
  #nextId = 1;
  #stderr = '';
  #exited: Error | undefined;

  constructor() {
    const { execPath, script } = childScript(embedChildNames);
    // It reads its model folder (named in each request) and its own modules: none of the host's
    // environment.
    this.#child = spawn(execPath, [script], {
      env: childEnv({}),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#child.stderr.setEncoding('utf8');
    this.#child.stderr.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4000);
    });
    createInterface({ input: this.#child.stdout }).on('line', (line) => {
      const parsed = EmbedReply.safeParse(JSON.parse(line));
      if (!parsed.success) return;
      const waiting = this.#pending.get(parsed.data.id);
      this.#pending.delete(parsed.data.id);
      waiting?.resolve(parsed.data);
    });
    const fail = (detail: string) => {
      const tail = this.#stderr.trim().split('\n').slice(-3).join(' ').slice(-600);
      this.#exited = namedError(
        'EmbeddingProcessError',
        `the embedding process ${detail}${tail ? `: ${tail}` : ''}`,
      );
      for (const waiting of this.#pending.values()) waiting.reject(this.#exited);
      this.#pending.clear();
    };
    this.#child.on('exit', (code, signal) => {
      fail(`exited (${signal ?? String(code)})`);
    });
    this.#child.on('error', (error) => {
      fail(`could not start (${error.message})`);
    });
  }

  /** The reply of the kind asked for, or the child's named error thrown. */
  async ask<K extends EmbedReply['kind']>(
    request: Request,
    kind: K,
  ): Promise<Extract<EmbedReply, { kind: K }>> {
    if (this.#exited) throw this.#exited;
    const id = this.#nextId++;
    const reply = await new Promise<EmbedReply>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#child.stdin.write(`${JSON.stringify({ ...request, id })}\n`);
    });
    if (reply.kind === 'failed') throw namedError(reply.name, reply.message);
    if (reply.kind !== kind) throw new Error(`the embedding process answered ${reply.kind}`);
    return reply as Extract<EmbedReply, { kind: K }>;
  }

  /** Closes stdin (the child disposes its model and exits); killed if it lingers. */
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
}

/** Loads the model in a new embedding child; EmbeddingModelLoadError if it cannot. */
export const loadEmbedderInProcess: EmbedderLoader = async (model: ModelFolder) => {
  const child = new EmbeddingChild();
  try {
    await child.ask({ kind: 'load', model }, 'loaded');
  } catch (error) {
    await child.close();
    if (error instanceof Error && error.name === 'EmbeddingModelLoadError') throw error;
    throw new EmbeddingModelLoadError(
      model.path,
      error instanceof Error ? error.message : String(error),
    );
  }
  return {
    model,
    embed: async (texts) => {
      const reply = await child.ask({ kind: 'embed', texts: [...texts] }, 'embedded');
      return reply.vectors.map(decodeVector);
    },
    dispose: () => child.close(),
  };
};

const known = new Map<string, Promise<boolean>>();

/** Asks a short-lived embedding child whether transformers.js knows a model type (remembered). */
export const knownModelTypeInProcess: ModelTypeCheck = (modelType) => {
  let answer = known.get(modelType);
  if (!answer) {
    const child = new EmbeddingChild();
    answer = child
      .ask({ kind: 'knows', modelType }, 'knows')
      .then((reply) => reply.known)
      .finally(() => child.close());
    known.set(modelType, answer);
    answer.catch(() => known.delete(modelType));
  }
  return answer;
};
