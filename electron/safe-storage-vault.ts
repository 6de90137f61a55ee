// API keys at rest in the desktop app: encrypted by the OS keychain through Electron's safeStorage
// (Keychain on macOS, DPAPI on Windows, libsecret/kwallet on Linux), so copying the workspace
// folder copies no usable key. Keys saved earlier in serve mode (the file vault) move over on read.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ApiKeyVaultError, type ApiKeyVault } from '../host/index.ts';

/** The part of Electron's safeStorage this vault uses (tests pass a stand-in). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

export const SAFE_VAULT_FILE = 'api-keys.safe.json';

const fileSchema = z.strictObject({
  version: z.literal(1),
  keys: z.record(z.string(), z.base64()),
});
type SafeVaultFile = z.infer<typeof fileSchema>;

export class SafeStorageApiKeyVault implements ApiKeyVault {
  readonly #directory: string;
  readonly #safeStorage: SafeStorageLike;
  readonly #fallback: ApiKeyVault | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  /** `fallback`: where keys were kept before (the workspace's file vault); read once, then moved. */
  constructor(directory: string, safeStorage: SafeStorageLike, fallback?: ApiKeyVault) {
    this.#directory = directory;
    this.#safeStorage = safeStorage;
    this.#fallback = fallback;
  }

  get path(): string {
    return join(this.#directory, SAFE_VAULT_FILE);
  }

  get(ref: string): Promise<string | undefined> {
    return this.#serial(async () => {
      const file = await this.#read();
      const entry = Object.hasOwn(file.keys, ref) ? file.keys[ref] : undefined;
      if (entry !== undefined) {
        this.#assertAvailable();
        try {
          return this.#safeStorage.decryptString(Buffer.from(entry, 'base64'));
        } catch {
          throw new ApiKeyVaultError(
            `the API key '${ref}' in ${this.path} cannot be decrypted by this system's keychain (was the workspace copied from another user or machine?); enter the key again in Settings > Models`,
          );
        }
      }
      const old = await this.#fallback?.get(ref);
      if (old === undefined) return undefined;
      await this.#store(file, ref, old);
      await this.#fallback?.delete(ref);
      return old;
    });
  }

  set(ref: string, apiKey: string): Promise<void> {
    if (apiKey === '') {
      return Promise.reject(
        new ApiKeyVaultError(`the API key for '${ref}' is empty; paste the whole key`),
      );
    }
    return this.#serial(async () => {
      await this.#store(await this.#read(), ref, apiKey);
      // A key set here must not be shadowed by, or leak from, an older copy elsewhere.
      await this.#fallback?.delete(ref);
    });
  }

  delete(ref: string): Promise<void> {
    return this.#serial(async () => {
      const file = await this.#read();
      if (Object.hasOwn(file.keys, ref)) {
        file.keys = Object.fromEntries(Object.entries(file.keys).filter(([name]) => name !== ref));
        await this.#write(file);
      }
      await this.#fallback?.delete(ref);
    });
  }

  async #store(file: SafeVaultFile, ref: string, apiKey: string): Promise<void> {
    this.#assertAvailable();
    file.keys[ref] = this.#safeStorage.encryptString(apiKey).toString('base64');
    await this.#write(file);
  }

  #assertAvailable(): void {
    if (!this.#safeStorage.isEncryptionAvailable()) {
      throw new ApiKeyVaultError(
        "this system's keychain is not available to RLM Studio (on Linux: install and unlock gnome-keyring or kwallet), so API keys cannot be stored encrypted; unlock it and try again",
      );
    }
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #read(): Promise<SafeVaultFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, keys: {} };
      throw error;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw this.#damaged('it is not JSON');
    }
    const parsed = fileSchema.safeParse(value);
    if (!parsed.success) throw this.#damaged(parsed.error.issues[0]?.message ?? 'wrong shape');
    return parsed.data;
  }

  async #write(file: SafeVaultFile): Promise<void> {
    await mkdir(this.#directory, { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, this.path);
  }

  #damaged(problem: string): ApiKeyVaultError {
    return new ApiKeyVaultError(
      `${this.path} is damaged (${problem}); delete it and enter the keys again in Settings > Models`,
    );
  }
}
