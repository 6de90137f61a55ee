// The host's handle on one interpreter process: fork under Node's permission model, validate what
// it sends, ping it while it works, and kill it when it stops answering. Invariant: `onExit` fires
// exactly once per process, with the reason, whoever ended it.
import type { ChildProcess } from 'node:child_process';
import { ReplStartError } from './errors.ts';
import { forkChild } from '../children/index.ts';
import {
  interpreterChild,
  interpreterEnv,
  interpreterExecArgv,
  interpreterFiles,
} from './interpreter-files.ts';
import { MessageBatch } from './message-batch.ts';
import {
  interpreterFrameSchema,
  type HostMessage,
  type InterpreterMessage,
  type InterpreterSettings,
} from './protocol.ts';

const STARTUP_TIMEOUT_MS = 60_000;
const HEARTBEAT_MS = 1_000;

export { interpreterExecArgv };

export interface ProcessOptions {
  nodePath: string;
  maxMemoryBytes: number;
  maxOutputChars: number;
  collectTimeoutMs: number;
  /** How long the process may go without answering a ping while it works, before it is killed. */
  hangLimitMs: number;
}

export interface ProcessEvents {
  onMessage(message: Exclude<InterpreterMessage, { kind: 'ready' | 'pong' | 'fatal' }>): void;
  onExit(reason: string): void;
}

export class InterpreterProcess {
  readonly startupMs: number;
  readonly pythonVersion: string;
  /** Settles once the process has exited. */
  readonly closed: Promise<void>;
  #markClosed: () => void = () => undefined;
  readonly #child: ChildProcess;
  readonly #events: ProcessEvents;
  readonly #hangLimitMs: number;
  readonly #outbox: MessageBatch<HostMessage>;
  #busy: () => boolean = () => false;
  #heartbeat: NodeJS.Timeout | null = null;
  #pingSentAt: number | null = null;
  #pingSeq = 0;
  #exitReason: string | null = null;
  #exited = false;

  private constructor(
    child: ChildProcess,
    ready: { startupMs: number; pythonVersion: string },
    events: ProcessEvents,
    hangLimitMs: number,
  ) {
    this.#child = child;
    this.#events = events;
    this.#hangLimitMs = hangLimitMs;
    this.#outbox = new MessageBatch((frame) => {
      if (!this.#exited && child.connected) child.send(frame);
    });
    this.startupMs = ready.startupMs;
    this.pythonVersion = ready.pythonVersion;
    this.closed = new Promise((resolve) => {
      this.#markClosed = resolve;
    });
  }

  static async start(options: ProcessOptions, events: ProcessEvents): Promise<InterpreterProcess> {
    const files = interpreterFiles();
    const settings: InterpreterSettings = {
      pyodideDir: files.pyodideDir,
      pythonDir: files.pythonDir,
      maxMemoryBytes: options.maxMemoryBytes,
      maxOutputChars: options.maxOutputChars,
      collectTimeoutMs: options.collectTimeoutMs,
    };
    const child = forkChild(interpreterChild, [JSON.stringify(settings)], {
      execPath: options.nodePath,
      execArgv: interpreterExecArgv(files),
      env: interpreterEnv(),
      stdio: ['ignore', 'ignore', 'ignore', 'ipc', 'pipe'],
      // Every message is plain JSON data, and JSON costs both ends less than the v8 serializer:
      // per run result, ~4 -> ~1.5 us to send, ~8 -> ~2 us to read, and zod checks objects from
      // JSON.parse about twice as fast as v8-deserialised ones (~4 -> ~2 us).
      serialization: 'json',
    });
    const ready = await waitForReady(child);
    const handle = new InterpreterProcess(child, ready, events, options.hangLimitMs);
    handle.#listen();
    return handle;
  }

  /** Tells the process when it has work in flight, so it is pinged only then. */
  watch(busy: () => boolean): void {
    this.#busy = busy;
    this.#heartbeat ??= setInterval(() => {
      this.#checkHeartbeat();
    }, HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  /** Queues a message; it leaves with the others of this event-loop turn (message-batch.ts). */
  send(message: HostMessage): void {
    if (!this.#exited) this.#outbox.send(message);
  }

  /** Cancels a run even while the interpreter is busy: a worker there reads this pipe. */
  cancel(runId: number): void {
    this.send({ kind: 'cancel', runId });
    const pipe = this.#child.stdio[4];
    if (this.#exited || !pipe || !('write' in pipe)) return;
    const record = Buffer.alloc(4);
    record.writeInt32LE(runId);
    pipe.write(record);
  }

  get alive(): boolean {
    return !this.#exited;
  }

  kill(reason: string): void {
    this.#exitReason ??= reason;
    if (!this.#exited) this.#child.kill('SIGKILL');
  }

  #listen(): void {
    this.#child.on('message', (raw: unknown) => {
      const parsed = interpreterFrameSchema.safeParse(raw);
      if (!parsed.success) {
        this.kill(
          `the interpreter sent a malformed message (${parsed.error.message.slice(0, 200)})`,
        );
        return;
      }
      for (const message of parsed.data) {
        if (message.kind === 'pong') {
          if (message.seq === this.#pingSeq) this.#pingSentAt = null;
        } else if (message.kind === 'fatal') {
          this.#exitReason ??= message.message;
        } else if (message.kind !== 'ready') {
          this.#events.onMessage(message);
        }
      }
    });
    this.#child.on('exit', (code, signal) => {
      this.#exited = true;
      this.#outbox.clear();
      if (this.#heartbeat) clearInterval(this.#heartbeat);
      this.#events.onExit(
        this.#exitReason ??
          `the interpreter process exited (code ${String(code)}, signal ${String(signal)})`,
      );
      this.#markClosed();
    });
  }

  #checkHeartbeat(): void {
    if (this.#exited) return;
    const now = performance.now();
    if (this.#pingSentAt !== null) {
      if (now - this.#pingSentAt > this.#hangLimitMs) {
        this.kill(
          `the interpreter stopped responding for over ${String(Math.round(this.#hangLimitMs / 1000))} s: code ran past its time limit inside a call that cannot be interrupted (e.g. sum(itertools.count())), or kept catching the interrupt`,
        );
      }
      return;
    }
    if (!this.#busy()) return;
    this.#pingSentAt = now;
    this.send({ kind: 'ping', seq: ++this.#pingSeq });
  }
}

function waitForReady(child: ChildProcess): Promise<{ startupMs: number; pythonVersion: string }> {
  return new Promise((resolve, reject) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new ReplStartError(reason));
    };
    const timer = setTimeout(() => {
      fail(`no answer within ${String(STARTUP_TIMEOUT_MS / 1000)} s`);
    }, STARTUP_TIMEOUT_MS);
    child.once('error', (error) => {
      fail(error.message);
    });
    child.once('exit', (code, signal) => {
      fail(`the process exited during startup (code ${String(code)}, signal ${String(signal)})`);
    });
    child.once('message', (raw: unknown) => {
      const parsed = interpreterFrameSchema.safeParse(raw);
      const first = parsed.success && parsed.data.length === 1 ? parsed.data[0] : undefined;
      if (first?.kind === 'ready') {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.removeAllListeners('error');
        resolve({ startupMs: first.startupMs, pythonVersion: first.pythonVersion });
      } else {
        fail(first?.kind === 'fatal' ? first.message : 'unexpected first message');
      }
    });
  });
}
