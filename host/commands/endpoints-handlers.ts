// The model-endpoint commands of app/api (Settings > Models). The endpoint list is JSON in the
// workspace's `settings` table under 'models.endpoints'; keys live only in the ApiKeyVault. No
// response, event or error that leaves this file holds a key: endpoints carry `hasKey` instead.
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { z } from 'zod';
import {
  EndpointId,
  ModelEndpointKindId,
  type ApiEvent,
  type CommandArgs,
  type CommandResponse,
  type ModelEndpointView,
} from '../../app/api/index.ts';
import {
  DEFAULT_BASE_URLS,
  FileApiKeyVault,
  createEndpointProvider,
  discoverOllama,
  endpointSpec,
  redactSecrets,
  type ApiKeyVault,
  type ModelEndpoint,
} from '../../app/models/index.ts';
import { transaction, type Workspace } from '../../app/store/index.ts';

export const ENDPOINTS_SETTING_KEY = 'models.endpoints';
/** A test gets a quick answer or none: one attempt, no backoff. */
export const TEST_TIMEOUT_MS = 15_000;
const TEST_PROMPT = 'Reply with the single word: ok';

type EndpointCommand =
  | 'models.endpoints'
  | 'models.saveEndpoint'
  | 'models.deleteEndpoint'
  | 'models.discoverOllama'
  | 'models.testEndpoint';

export type EndpointHandlers = {
  [C in EndpointCommand]: (
    args: CommandArgs<C>,
  ) => Promise<CommandResponse<C>> | CommandResponse<C>;
};

/** What the settings row holds: the endpoint, its display name, the vault ref of its key. */
const StoredEndpoint = z.object({
  id: EndpointId,
  name: z.string(),
  kind: ModelEndpointKindId,
  baseUrl: z.string(),
  model: z.string(),
  apiKeyRef: z.string().min(1).optional(),
});
type StoredEndpoint = z.infer<typeof StoredEndpoint>;

export class ModelEndpointNotFoundError extends Error {
  override readonly name = 'ModelEndpointNotFoundError';
  constructor(id: string, known?: readonly string[]) {
    super(
      known === undefined
        ? `there is no model endpoint '${id}' (was it deleted in another window?); reload Settings > Models`
        : `there is no saved model endpoint named '${id}'; saved: ${known.length > 0 ? known.map((n) => `'${n}'`).join(', ') : 'none'} (add one in Settings > Models)`,
    );
  }
}

export class ModelEndpointsDamagedError extends Error {
  override readonly name = 'ModelEndpointsDamagedError';
  constructor(problem: string) {
    super(
      `the saved model endpoints (settings row '${ENDPOINTS_SETTING_KEY}' in the workspace database) are damaged: ${problem}; fix that row or delete it ("DELETE FROM settings WHERE key = '${ENDPOINTS_SETTING_KEY}'") and add the endpoints again`,
    );
  }
}

export interface EndpointHandlerOptions {
  /** Where keys go; a FileApiKeyVault in the workspace folder unless the shell has a better one. */
  vault?: ApiKeyVault | undefined;
  /** Asks the local Ollama for its models (injected by tests: none answers here). */
  discover?: (() => Promise<string[]>) | undefined;
  testTimeoutMs?: number | undefined;
}

/**
 * The models.* commands (Settings > Models). Longer than ~60 lines as a table: one short entry per
 * command over the endpoints row and the vault; the command host dispatches by key.
 */
export function endpointHandlers(
  workspace: Pick<Workspace, 'dir' | 'db'>,
  emit: (event: ApiEvent) => void,
  now: () => number,
  options: EndpointHandlerOptions = {},
): EndpointHandlers {
  const vault = options.vault ?? new FileApiKeyVault(workspace.dir);
  const discover = options.discover ?? (() => discoverOllama());
  const store = new EndpointRows(workspace.db, now);
  const changed = () => {
    emit({ kind: 'models.endpointsChanged', at: now() });
  };

  return {
    'models.endpoints': () => ({ endpoints: store.read().map(toView) }),

    'models.saveEndpoint': async ({ endpoint: draft, apiKey, forgetKey }) => {
      const previous = draft.id === undefined ? undefined : store.find(draft.id);
      if (draft.id !== undefined && previous === undefined) {
        throw new ModelEndpointNotFoundError(draft.id);
      }
      const id = draft.id ?? randomUUID();
      const ref = previous?.apiKeyRef ?? `endpoint:${id}`;
      // The key is written first, so the list never points at a key that is not there.
      if (apiKey !== undefined) await vault.set(ref, apiKey);
      const keyRef = apiKey !== undefined ? ref : forgetKey ? undefined : previous?.apiKeyRef;
      const saved: StoredEndpoint = {
        id,
        name: draft.name,
        kind: draft.kind,
        baseUrl: draft.baseUrl,
        model: draft.model,
        ...(keyRef === undefined ? {} : { apiKeyRef: keyRef }),
      };
      try {
        store.update((list) => {
          if (previous === undefined) return [...list, saved];
          // Deleted by another window while the key was being written.
          if (!list.some((entry) => entry.id === id)) throw new ModelEndpointNotFoundError(id);
          return list.map((entry) => (entry.id === id ? saved : entry));
        });
      } catch (error) {
        // A new key for an endpoint that was never listed would be an orphan: take it back.
        if (previous === undefined && apiKey !== undefined) await vault.delete(ref);
        throw error;
      }
      if (forgetKey && previous?.apiKeyRef !== undefined) await vault.delete(previous.apiKeyRef);
      changed();
      return { endpoint: toView(saved) };
    },

    'models.deleteEndpoint': async ({ id }) => {
      const entry = store.find(id);
      if (entry === undefined) return { deleted: false };
      if (entry.apiKeyRef !== undefined) await vault.delete(entry.apiKeyRef);
      store.update((list) => list.filter((other) => other.id !== id));
      changed();
      return { deleted: true };
    },

    'models.discoverOllama': async () => {
      const models = await discover();
      return { available: models.length > 0, baseUrl: DEFAULT_BASE_URLS.ollama, models };
    },

    'models.testEndpoint': async ({ id }) => {
      const entry = store.find(id);
      if (entry === undefined) throw new ModelEndpointNotFoundError(id);
      const started = now();
      let key: string | undefined;
      try {
        key = entry.apiKeyRef === undefined ? undefined : await vault.get(entry.apiKeyRef);
        const provider = await createEndpointProvider(toModelEndpoint(entry), vault, {
          timeoutMs: options.testTimeoutMs ?? TEST_TIMEOUT_MS,
          retry: { maxRetries: 0 },
        });
        const completion = await provider.complete({
          messages: [{ role: 'user', content: TEST_PROMPT }],
          agentId: '0',
          turn: 0,
          maxTokens: 16,
          temperature: 0,
        });
        return {
          ok: true,
          reply: redactSecrets(completion.text, [key]),
          latencyMs: now() - started,
        };
      } catch (error) {
        // The test's outcome is the answer: a failure is shown to the user, not thrown past it.
        const name = error instanceof Error ? error.name : 'Error';
        const message = error instanceof Error ? error.message : String(error);
        return {
          ok: false,
          error: { name, message: redactSecrets(message, [key]) },
          latencyMs: now() - started,
        };
      }
    },
  };
}

/**
 * The saved endpoint a run's model spec names: `endpoint:NAME` (or its id), or a spec equal to a
 * saved endpoint's own, so a run started with it uses that endpoint's stored key. Undefined when the
 * spec is an ordinary one; a named endpoint that does not exist is an error.
 */
export function findSavedEndpoint(
  workspace: Pick<Workspace, 'db'>,
  spec: string,
): ModelEndpoint | undefined {
  const trimmed = spec.trim();
  const entries = new EndpointRows(workspace.db, Date.now).read();
  if (trimmed.startsWith(`${SAVED_ENDPOINT_SCHEME}:`)) {
    const name = trimmed.slice(SAVED_ENDPOINT_SCHEME.length + 1).trim();
    const entry = entries.find((e) => e.name === name) ?? entries.find((e) => e.id === name);
    if (entry === undefined) {
      throw new ModelEndpointNotFoundError(
        name,
        entries.map((e) => e.name),
      );
    }
    return toModelEndpoint(entry);
  }
  const entry = entries.find((e) => endpointSpec(toModelEndpoint(e)) === trimmed);
  return entry === undefined ? undefined : toModelEndpoint(entry);
}

/** The model-spec scheme that names a saved endpoint: `endpoint:My vLLM`. */
export const SAVED_ENDPOINT_SCHEME = 'endpoint';

function toModelEndpoint(entry: StoredEndpoint): ModelEndpoint {
  return {
    id: entry.id,
    kind: entry.kind,
    baseUrl: entry.baseUrl,
    model: entry.model,
    ...(entry.apiKeyRef === undefined ? {} : { apiKeyRef: entry.apiKeyRef }),
  };
}

function toView(entry: StoredEndpoint): ModelEndpointView {
  return {
    id: entry.id,
    name: entry.name,
    kind: entry.kind,
    baseUrl: entry.baseUrl,
    model: entry.model,
    spec: endpointSpec(toModelEndpoint(entry)),
    hasKey: entry.apiKeyRef !== undefined,
  };
}

/** The endpoint list in its settings row; every change is one read-modify-write transaction. */
class EndpointRows {
  readonly #db: DatabaseSync;
  readonly #now: () => number;

  constructor(db: DatabaseSync, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  read(): StoredEndpoint[] {
    const row = this.#db
      .prepare('SELECT value FROM settings WHERE key = ?')
      .get(ENDPOINTS_SETTING_KEY) as { value: string } | undefined;
    if (row === undefined) return [];
    let value: unknown;
    try {
      value = JSON.parse(row.value);
    } catch {
      throw new ModelEndpointsDamagedError('it is not JSON');
    }
    const parsed = z.array(StoredEndpoint).safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ModelEndpointsDamagedError(
        issue ? `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}` : 'wrong shape',
      );
    }
    return parsed.data;
  }

  find(id: string): StoredEndpoint | undefined {
    return this.read().find((entry) => entry.id === id);
  }

  update(change: (list: StoredEndpoint[]) => StoredEndpoint[]): void {
    transaction(this.#db, () => {
      const next = change(this.read());
      this.#db
        .prepare(
          `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
           ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        )
        .run(ENDPOINTS_SETTING_KEY, JSON.stringify(next), this.#now());
    });
  }
}
