// host/cli: the `rlm-studio` command (bin/rlm-studio.js runs main.ts).
export { buildProgram } from './program.ts';
export { workspaceOption, type GlobalOptions } from './options.ts';
