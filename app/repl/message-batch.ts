// Messages between the host and an interpreter travel in frames: every message sent during one turn
// of the event loop goes out in one IPC write, after it (setImmediate). With 512 agents, a burst of
// model replies starts a few hundred runs at once; one write and one wake-up per message cost both
// processes more than the runs. Invariant: order is kept, and nothing waits past the current turn.

export class MessageBatch<T> {
  readonly #write: (frame: T[]) => void;
  #pending: T[] = [];
  #scheduled: NodeJS.Immediate | null = null;

  constructor(write: (frame: T[]) => void) {
    this.#write = write;
  }

  send(message: T): void {
    this.#pending.push(message);
    this.#scheduled ??= setImmediate(() => {
      this.flush();
    });
  }

  /** Writes what is pending now (before an exit, or when the caller cannot wait for the turn). */
  flush(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = null;
    if (this.#pending.length === 0) return;
    const frame = this.#pending;
    this.#pending = [];
    this.#write(frame);
  }

  /** Drops what is pending (the other side is gone). */
  clear(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = null;
    this.#pending = [];
  }
}
