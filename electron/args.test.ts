import { describe, expect, it } from 'vitest';
import { relaunchArgs, workspaceFromArgv, WorkspaceArgumentError } from './args.ts';

describe('workspaceFromArgv', () => {
  it.each([
    [['electron', '.'], undefined],
    [['electron', '.', '--workspace', '/data/ws'], '/data/ws'],
    [['RLM Studio', '--workspace=/data/ws'], '/data/ws'],
    [['electron', '.', '--workspace', '/a', '--workspace', '/b'], '/b'],
  ])('%j -> %s', (argv, expected) => {
    expect(workspaceFromArgv(argv)).toBe(expected);
  });

  it.each([
    [['electron', '.', '--workspace']],
    [['electron', '.', '--workspace', '--inspect']],
    [['electron', '.', '--workspace=']],
  ])('refuses a flag without a directory: %j', (argv) => {
    expect(() => workspaceFromArgv(argv)).toThrow(WorkspaceArgumentError);
  });
});

describe('relaunchArgs', () => {
  it('keeps the other arguments and replaces the workspace', () => {
    expect(relaunchArgs(['electron', '.', '--workspace', '/old', '--inspect'], '/new')).toEqual([
      '.',
      '--inspect',
      '--workspace',
      '/new',
    ]);
    expect(relaunchArgs(['RLM Studio', '--workspace=/old'], '/new')).toEqual([
      '--workspace',
      '/new',
    ]);
  });
});
