import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiKeyVaultError, FileApiKeyVault } from '../app/models/index.ts';
import { SafeStorageApiKeyVault, type SafeStorageLike } from './safe-storage-vault.ts';

const KEY = 'sk-test-0123456789abcdef';

/** Stands in for the OS keychain: a keyed XOR, enough to prove nothing is stored in the clear. */
function fakeSafeStorage(secret = 0x5a): SafeStorageLike & { available: boolean } {
  return {
    available: true,
    isEncryptionAvailable() {
      return this.available;
    },
    encryptString: (plain) =>
      Buffer.from(Buffer.from(`v10${plain}`, 'utf8').map((b) => b ^ secret)),
    decryptString: (encrypted) => {
      const text = Buffer.from(encrypted.map((b) => b ^ secret)).toString('utf8');
      if (!text.startsWith('v10'))
        throw new Error('Error while decrypting the ciphertext provided');
      return text.slice(3);
    },
  };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlm-safe-vault-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('SafeStorageApiKeyVault', () => {
  it('keeps keys encrypted by the keychain and reads them back', async () => {
    const vault = new SafeStorageApiKeyVault(dir, fakeSafeStorage());
    await vault.set('endpoint:a', KEY);
    expect(await vault.get('endpoint:a')).toBe(KEY);
    expect(await vault.get('endpoint:b')).toBeUndefined();
    const onDisk = await readFile(vault.path, 'utf8');
    expect(onDisk).not.toContain(KEY);
    await vault.delete('endpoint:a');
    expect(await vault.get('endpoint:a')).toBeUndefined();
  });

  it('moves a key saved in serve mode out of the file vault on first read', async () => {
    const fileVault = new FileApiKeyVault(dir);
    await fileVault.set('endpoint:a', KEY);
    const vault = new SafeStorageApiKeyVault(dir, fakeSafeStorage(), fileVault);
    expect(await vault.get('endpoint:a')).toBe(KEY);
    expect(await fileVault.get('endpoint:a')).toBeUndefined();
    expect(await vault.get('endpoint:a')).toBe(KEY);
  });

  it('names a locked keychain, a key from another machine and a damaged file', async () => {
    const storage = fakeSafeStorage();
    const vault = new SafeStorageApiKeyVault(dir, storage);
    await vault.set('endpoint:a', KEY);
    storage.available = false;
    await expect(vault.get('endpoint:a')).rejects.toThrow(/keychain is not available/);
    await expect(vault.set('endpoint:b', KEY)).rejects.toThrow(ApiKeyVaultError);
    const elsewhere = new SafeStorageApiKeyVault(dir, fakeSafeStorage(0x33));
    await expect(elsewhere.get('endpoint:a')).rejects.toThrow(/cannot be decrypted/);
    await writeFile(vault.path, '{"version": 1, "keys": {"x": 5}}');
    await expect(elsewhere.get('x')).rejects.toThrow(/is damaged/);
    await expect(vault.set('endpoint:c', '')).rejects.toThrow(/empty/);
  });

  it('never loses a key to concurrent writes', async () => {
    const vault = new SafeStorageApiKeyVault(dir, fakeSafeStorage());
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => vault.set(`endpoint:${i}`, `${KEY}${i}`)),
    );
    for (let i = 0; i < 20; i++) expect(await vault.get(`endpoint:${i}`)).toBe(`${KEY}${i}`);
  });
});
