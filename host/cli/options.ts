// Options every subcommand shares, and the parsers of numeric option values.
import { InvalidArgumentError } from 'commander';
import { defaultWorkspaceDir } from '../../app/store/index.ts';

export interface GlobalOptions {
  workspace?: string;
}

export function workspaceOption(options: GlobalOptions): string {
  return options.workspace ?? process.env.RLM_STUDIO_WORKSPACE ?? defaultWorkspaceDir();
}

export function wholeNumber(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new InvalidArgumentError('expected a whole number of at least 1');
  return number;
}

export function integer(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number)) throw new InvalidArgumentError('expected a whole number');
  return number;
}

export function positive(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new InvalidArgumentError('expected a positive number');
  return number;
}

export function fraction(value: string): number {
  const number = Number(value);
  if (!(number >= 0 && number <= 1)) throw new InvalidArgumentError('expected a number in [0, 1]');
  return number;
}
