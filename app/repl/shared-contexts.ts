// Contexts an interpreter holds once for all the agents that have the same one: 128 runs over one
// paper set would otherwise send, parse and keep 128 copies of it. Host-side bookkeeping for one
// interpreter process; ids are never reused, so a late message cannot name a newer context.

export class SharedContexts {
  readonly #byJson = new Map<string, { id: number; agents: number }>();
  readonly #byId = new Map<number, string>();
  #nextId = 1;

  /** The id of this context for one more agent; `load` when the interpreter does not have it yet. */
  acquire(json: string): { id: number; load: boolean } {
    const known = this.#byJson.get(json);
    if (known) {
      known.agents++;
      return { id: known.id, load: false };
    }
    const id = this.#nextId++;
    this.#byJson.set(json, { id, agents: 1 });
    this.#byId.set(id, json);
    return { id, load: true };
  }

  /** One agent fewer; true when none is left (the interpreter may forget the context). */
  release(id: number): boolean {
    const json = this.#byId.get(id);
    const entry = json === undefined ? undefined : this.#byJson.get(json);
    if (json === undefined || !entry) return false;
    entry.agents--;
    if (entry.agents > 0) return false;
    this.#byJson.delete(json);
    this.#byId.delete(id);
    return true;
  }

  /** The interpreter failed to load it: the next agent with this context sends it again. */
  drop(id: number): void {
    const json = this.#byId.get(id);
    if (json !== undefined) this.#byJson.delete(json);
    this.#byId.delete(id);
  }
}
