import { describe, expect, it } from 'vitest';
import {
  electronEnv,
  exitCodeOf,
  installFailureReason,
  planStart,
  probeElectron,
  type ElectronProbe,
} from './start.ts';

const missing: ElectronProbe = {
  kind: 'missing',
  reason:
    'Electron failed to install correctly, please delete node_modules/electron and try installing again',
};

describe('planStart', () => {
  it('runs Electron when its binary is there', () => {
    expect(planStart({ kind: 'found', binary: '/e/electron' }, null)).toEqual({
      kind: 'electron',
      binary: '/e/electron',
    });
  });

  it('tries the download once when the binary is missing', () => {
    expect(planStart(missing, null)).toEqual({ kind: 'install' });
  });

  it('runs Electron when the download brought the binary', () => {
    expect(planStart({ kind: 'found', binary: '/e/electron' }, { ok: true })).toEqual({
      kind: 'electron',
      binary: '/e/electron',
    });
  });

  it('falls back to serve mode with the download failure as the reason', () => {
    expect(planStart(missing, { ok: false, reason: 'getaddrinfo ENOTFOUND github.com' })).toEqual({
      kind: 'serve',
      message:
        "Electron's binary is not installed and could not be downloaded (getaddrinfo ENOTFOUND github.com); starting serve mode instead",
    });
  });

  it('falls back to serve mode when a "successful" download left no binary', () => {
    const plan = planStart({ kind: 'missing', reason: "no file at '/e/electron'" }, { ok: true });
    expect(plan).toMatchObject({
      kind: 'serve',
      message: expect.stringContaining("no file at '/e/electron'") as unknown,
    });
  });
});

describe('probeElectron', () => {
  it('finds a binary the package points at and that exists', () => {
    expect(
      probeElectron(
        () => '/e/electron',
        () => true,
      ),
    ).toEqual({ kind: 'found', binary: '/e/electron' });
  });

  it('reports the package’s own error when its download never ran', () => {
    const probe = probeElectron(
      () => {
        throw new Error('Electron failed to install correctly');
      },
      () => true,
    );
    expect(probe).toEqual({ kind: 'missing', reason: 'Electron failed to install correctly' });
  });

  it('reports a path that does not exist', () => {
    expect(
      probeElectron(
        () => '/e/electron',
        () => false,
      ),
    ).toEqual({
      kind: 'missing',
      reason: "no file at '/e/electron'",
    });
  });
});

describe('installFailureReason', () => {
  it('takes the error line, not the stack', () => {
    const stderr =
      'RequestError: getaddrinfo ENOTFOUND github.com\n    at ClientRequest.<anonymous> (x.js:1:1)\n';
    expect(installFailureReason(stderr, 1, false)).toBe(
      'RequestError: getaddrinfo ENOTFOUND github.com',
    );
  });

  it('names a timeout and a silent failure', () => {
    expect(installFailureReason('', null, true)).toBe('the download did not finish within 60 s');
    expect(installFailureReason('\n', 3, false)).toBe('install.js exited with status 3');
  });
});

describe('exitCodeOf', () => {
  it('passes a code through and maps a signal to 128 + its number', () => {
    expect(exitCodeOf(0, null)).toBe(0);
    expect(exitCodeOf(2, null)).toBe(2);
    expect(exitCodeOf(null, 'SIGINT')).toBe(130);
    expect(exitCodeOf(null, 'SIGTERM')).toBe(143);
    expect(exitCodeOf(null, null)).toBe(1);
  });
});

describe('electronEnv', () => {
  it('drops ELECTRON_RUN_AS_NODE and keeps the rest', () => {
    expect(electronEnv({ ELECTRON_RUN_AS_NODE: '1', PATH: '/bin' })).toEqual({ PATH: '/bin' });
  });
});
