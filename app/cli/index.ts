// app/cli: the `rlm-studio` command. A composition root: it may wire training/ into app/ later.
export { buildProgram } from './program.ts';
export { cliExtensions, installCliExtensions, type CliExtensions } from './extensions.ts';
export { workspaceOption, type GlobalOptions } from './options.ts';
