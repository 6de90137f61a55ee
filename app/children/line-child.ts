// A child process of the engine spoken to in JSON lines (the embedder, the local-model decoder):
// requests carry an id, replies are matched to them by it, a `failed` reply is thrown under the
// child's own error name, and the child's death fails whatever is pending with the last lines of
// its stderr. Started from its declared entry (child-entry.ts).
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { childEnv, type ChildEntry } from './child-entry.ts';
import { spawnChild } from './start.ts';

/** An Error with the name the child gave it (EmbeddingModelLoadError, LocalModelFileError, ...). */
export function namedError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

/** What every reply holds: the request's id and its kind (`failed` with a name and a message). */
export interface LineReply {
  id: number;
  kind: string;
}

interface Failed {
  kind: 'failed';
  name: string;
  message: string;
}

function isFailed(reply: LineReply): reply is LineReply & Failed {
  const { name, message } = reply as Partial<Failed>;
  return reply.kind === 'failed' && typeof name === 'string' && typeof message === 'string';
}

export interface LineChildOptions<Reply> {
  entry: ChildEntry;
  /** The environment it may see (childEnv adds what every child needs). */
  env: NodeJS.ProcessEnv;
  /** A reply line's value, or undefined for one that is not a reply (ignored). */
  parse: (value: unknown) => Reply | undefined;
  /** The error for a child that exited or could not start; `detail` says which, with stderr. */
  died: (detail: string) => Error;
}

interface Pending<Reply> {
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
  /** Takes replies before the last one (streamed deltas); true when it took this one. */
  interim?: ((reply: Reply) => boolean) | undefined;
}

export class LineChild<Reply extends LineReply> {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #pending = new Map<number, Pending<Reply>>();
  #nextId = 1;
  #stderr = '';
  #exited: Error | undefined;

  constructor(options: LineChildOptions<Reply>) {
    this.#child = spawnChild(options.entry, [], {
      env: childEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#child.stderr.setEncoding('utf8');
    this.#child.stderr.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4000);
    });
    // A write after the child died: its exit already failed what was pending.
    this.#child.stdin.on('error', () => undefined);
    createInterface({ input: this.#child.stdout }).on('line', (line) => {
      let reply: Reply | undefined;
      try {
        reply = options.parse(JSON.parse(line));
      } catch {
        return;
      }
      if (reply === undefined) return;
      const pending = this.#pending.get(reply.id);
      if (!pending || pending.interim?.(reply) === true) return;
      this.#pending.delete(reply.id);
      pending.resolve(reply);
    });
    const fail = (detail: string) => {
      const tail = this.#stderr.trim().split('\n').slice(-3).join(' ').slice(-600);
      this.#exited = options.died(`${detail}${tail ? `: ${tail}` : ''}`);
      for (const pending of this.#pending.values()) pending.reject(this.#exited);
      this.#pending.clear();
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

  /** The id the next request gets (to address it later, e.g. an abort). */
  get nextId(): number {
    return this.#nextId;
  }

  /** Sends a request; resolves with its last reply, a `failed` one thrown under its name. */
  async request(request: object, interim?: (reply: Reply) => boolean): Promise<Reply> {
    if (this.#exited) throw this.#exited;
    const id = this.#nextId++;
    const reply = await new Promise<Reply>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, interim });
      this.#child.stdin.write(`${JSON.stringify({ ...request, id })}\n`);
    });
    if (isFailed(reply)) throw namedError(reply.name, reply.message);
    return reply;
  }

  /** A line that expects no reply (an abort). */
  send(message: object): void {
    if (!this.#exited) this.#child.stdin.write(`${JSON.stringify(message)}\n`);
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
