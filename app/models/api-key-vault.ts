// API keys at rest: the ApiKeyVault interface (Electron's safeStorage will implement it in the
// desktop app) and FileApiKeyVault, which encrypts each key with AES-256-GCM under a key derived
// from a per-workspace random secret file (mode 0600). No plaintext key is ever written to disk.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ApiKeyVaultError } from './errors.ts';

export interface ApiKeyVault {
  /** The key stored under `ref`, or undefined when there is none. */
  get(ref: string): Promise<string | undefined>;
  set(ref: string, key: string): Promise<void>;
  delete(ref: string): Promise<void>;
}

export const VAULT_SECRET_FILE = 'vault.secret';
export const VAULT_KEYS_FILE = 'api-keys.enc.json';

const SECRET_BYTES = 32;
const IV_BYTES = 12;
const HKDF_INFO = 'rlm-studio api-key vault v1';

const entrySchema = z.strictObject({ iv: z.base64(), tag: z.base64(), data: z.base64() });
const fileSchema = z.strictObject({
  version: z.literal(1),
  salt: z.base64(),
  keys: z.record(z.string(), entrySchema),
});
type VaultFile = z.infer<typeof fileSchema>;

/**
 * Keys in `<directory>/api-keys.enc.json`, encrypted under `<directory>/vault.secret`. This keeps
 * keys out of anything that copies or exports the key file alone; whoever can read both files
 * can read the keys, which is why the desktop app will use the OS keychain (safeStorage) instead.
 */
export class FileApiKeyVault implements ApiKeyVault {
  private readonly directory: string;
  /** Serialises read-modify-write cycles so concurrent set() calls never lose one another. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(directory: string) {
    this.directory = directory;
  }

  get keysPath(): string {
    return join(this.directory, VAULT_KEYS_FILE);
  }

  get secretPath(): string {
    return join(this.directory, VAULT_SECRET_FILE);
  }

  get(ref: string): Promise<string | undefined> {
    return this.serial(async () => {
      const file = await this.readKeys();
      const entry = Object.hasOwn(file.keys, ref) ? file.keys[ref] : undefined;
      if (!entry) return undefined;
      const key = await this.encryptionKey(file.salt);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(entry.iv, 'base64'));
        decipher.setAAD(Buffer.from(ref, 'utf8'));
        decipher.setAuthTag(Buffer.from(entry.tag, 'base64'));
        const plain = Buffer.concat([
          decipher.update(Buffer.from(entry.data, 'base64')),
          decipher.final(),
        ]);
        return plain.toString('utf8');
      } catch {
        throw new ApiKeyVaultError(
          `the API key '${ref}' in ${this.keysPath} cannot be decrypted: ${this.secretPath} was replaced or the key file was edited; enter the key again in Settings > Models`,
        );
      }
    });
  }

  set(ref: string, apiKey: string): Promise<void> {
    if (apiKey === '') {
      return Promise.reject(
        new ApiKeyVaultError(`the API key for '${ref}' is empty; paste the whole key`),
      );
    }
    return this.serial(async () => {
      const file = await this.readKeys();
      const key = await this.encryptionKey(file.salt);
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      // The ref is authenticated too, so an entry cannot be moved to another ref unnoticed.
      cipher.setAAD(Buffer.from(ref, 'utf8'));
      const data = Buffer.concat([cipher.update(apiKey, 'utf8'), cipher.final()]);
      file.keys[ref] = {
        iv: iv.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
        data: data.toString('base64'),
      };
      await this.writeKeys(file);
    });
  }

  delete(ref: string): Promise<void> {
    return this.serial(async () => {
      const file = await this.readKeys();
      if (!Object.hasOwn(file.keys, ref)) return;
      file.keys = Object.fromEntries(Object.entries(file.keys).filter(([name]) => name !== ref));
      await this.writeKeys(file);
    });
  }

  /** The refs that hold a key (never the keys). */
  refs(): Promise<string[]> {
    return this.serial(async () => Object.keys((await this.readKeys()).keys));
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async readKeys(): Promise<VaultFile> {
    let text: string;
    try {
      text = await readFile(this.keysPath, 'utf8');
    } catch (error) {
      if (isMissing(error))
        return { version: 1, salt: randomBytes(16).toString('base64'), keys: {} };
      throw error;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw this.damaged('it is not JSON');
    }
    const parsed = fileSchema.safeParse(value);
    if (!parsed.success) throw this.damaged(parsed.error.issues[0]?.message ?? 'wrong shape');
    return parsed.data;
  }

  private async writeKeys(file: VaultFile): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    const temporary = `${this.keysPath}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, this.keysPath);
  }

  private async encryptionKey(salt: string): Promise<Buffer> {
    const secret = await this.readOrCreateSecret();
    return Buffer.from(hkdfSync('sha256', secret, Buffer.from(salt, 'base64'), HKDF_INFO, 32));
  }

  private async readOrCreateSecret(): Promise<Buffer> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    try {
      // 'wx' fails if the file exists, so two processes can never both create a secret.
      await writeFile(this.secretPath, randomBytes(SECRET_BYTES), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if (!isExisting(error)) throw error;
    }
    const secret = await readFile(this.secretPath);
    if (secret.length !== SECRET_BYTES) {
      throw new ApiKeyVaultError(
        `${this.secretPath} is damaged (${secret.length} bytes, expected ${SECRET_BYTES}); delete it and ${VAULT_KEYS_FILE}, then enter the keys again`,
      );
    }
    if (process.platform !== 'win32' && ((await stat(this.secretPath)).mode & 0o077) !== 0) {
      // Readable by others: take that back rather than refuse to work.
      await chmod(this.secretPath, 0o600);
    }
    return secret;
  }

  private damaged(problem: string): ApiKeyVaultError {
    return new ApiKeyVaultError(
      `${this.keysPath} is damaged (${problem}); delete it and enter the keys again in Settings > Models`,
    );
  }
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT';
}

function isExisting(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'EEXIST';
}

/** For tests and the CLI without a workspace: keys in memory only. */
export class MemoryApiKeyVault implements ApiKeyVault {
  private readonly keys = new Map<string, string>();
  get(ref: string): Promise<string | undefined> {
    return Promise.resolve(this.keys.get(ref));
  }
  set(ref: string, key: string): Promise<void> {
    this.keys.set(ref, key);
    return Promise.resolve();
  }
  delete(ref: string): Promise<void> {
    this.keys.delete(ref);
    return Promise.resolve();
  }
}
