// FileApiKeyVault: round trip, nothing in plain text on disk, 0600 secret, tamper detection.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileApiKeyVault, VAULT_KEYS_FILE, VAULT_SECRET_FILE } from './api-key-vault.ts';
import { ApiKeyVaultError } from './errors.ts';

const KEY = 'sk-proj-THIS-IS-THE-PLAINTEXT-KEY-0123456789';
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlm-vault-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('FileApiKeyVault', () => {
  it('round-trips keys across instances and never writes one in plain text', async () => {
    const vault = new FileApiKeyVault(dir);
    expect(await vault.get('openai')).toBeUndefined();
    await vault.set('openai', KEY);
    await vault.set('anthropic', 'sk-ant-another-secret-key-000');
    expect(await new FileApiKeyVault(dir).get('openai')).toBe(KEY);
    expect(await vault.refs()).toEqual(['openai', 'anthropic']);

    const onDisk = await readFile(join(dir, VAULT_KEYS_FILE), 'utf8');
    expect(onDisk).not.toContain(KEY);
    expect(onDisk).not.toContain('PLAINTEXT');
    expect(onDisk).not.toContain(Buffer.from(KEY).toString('base64'));
    expect(onDisk).not.toContain('another-secret');

    await vault.delete('openai');
    expect(await vault.get('openai')).toBeUndefined();
    expect(await vault.get('anthropic')).toBe('sk-ant-another-secret-key-000');
  });

  it.skipIf(process.platform === 'win32')(
    'keeps its secret file readable by the owner only',
    async () => {
      await new FileApiKeyVault(dir).set('k', KEY);
      expect((await stat(join(dir, VAULT_SECRET_FILE))).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir, VAULT_KEYS_FILE))).mode & 0o777).toBe(0o600);
    },
  );

  it('loses no key when many are set at once', async () => {
    const vault = new FileApiKeyVault(dir);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => vault.set(`ref-${i}`, `key-value-${i}`)),
    );
    expect((await vault.refs()).length).toBe(20);
    expect(await vault.get('ref-13')).toBe('key-value-13');
  });

  it('refuses to decrypt under another secret, or an entry moved to another ref', async () => {
    const vault = new FileApiKeyVault(dir);
    await vault.set('a', KEY);
    await vault.set('b', 'other-key-value');
    const file = JSON.parse(await readFile(join(dir, VAULT_KEYS_FILE), 'utf8')) as {
      keys: Record<string, unknown>;
    };
    file.keys.b = file.keys.a;
    await writeFile(join(dir, VAULT_KEYS_FILE), JSON.stringify(file));
    const error = await vault.get('b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiKeyVaultError);
    expect((error as Error).message).toContain("'b'");
    expect((error as Error).message).not.toContain(KEY);

    await writeFile(join(dir, VAULT_SECRET_FILE), Buffer.alloc(32, 7));
    await expect(vault.get('a')).rejects.toThrow(/cannot be decrypted/);
  });

  it('names a damaged key file', async () => {
    await writeFile(join(dir, VAULT_KEYS_FILE), '{"version": 1');
    await expect(new FileApiKeyVault(dir).get('a')).rejects.toThrow(
      /is damaged \(it is not JSON\)/,
    );
  });
});
