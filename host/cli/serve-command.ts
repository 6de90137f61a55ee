// `rlm-studio serve`: opens the workspace, starts the engine host and the HTTP + WebSocket server,
// prints the URL (with its token) and runs until interrupted.
import { Command, InvalidArgumentError } from 'commander';
import { composeEngine, installSampleWorkspace } from '../index.ts';
import { defaultRendererDir, startServer } from '../serve/index.ts';
import { openWorkspace } from '../../app/store/index.ts';
import { inProcessLocalModels } from '../compose/local-models.ts';
import { workspaceOption, type GlobalOptions } from './options.ts';

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidArgumentError('a port is an integer from 0 to 65535 (0 picks a free one)');
  }
  return port;
}

export function serveCommand(): Command {
  return new Command('serve')
    .description(
      'serve the app to a browser on 127.0.0.1 (what the desktop app shows, without Electron)',
    )
    .option('--port <port>', 'port to listen on (0 picks a free one)', parsePort, 0)
    .option('--renderer <dir>', 'the built renderer to serve', defaultRendererDir())
    .option('--json', 'print {url, port, workspace} as one JSON line instead of prose')
    .option('--no-sample', 'do not give a new workspace the sample papers and demo run')
    .action(
      async (
        options: { port: number; renderer: string; json?: boolean; sample: boolean },
        command: Command,
      ) => {
        const global = command.optsWithGlobals<GlobalOptions>();
        const workspace = openWorkspace(workspaceOption(global));
        const engine = composeEngine({
          workspace,
          shell: 'serve',
          providers: { local: inProcessLocalModels() },
        });
        // A new workspace gets the sample set and demo run in the background (once).
        if (options.sample)
          void installSampleWorkspace({
            workspace,
            papers: engine.papers,
            runStore: engine.runStore,
            emit: (event) => {
              engine.host.emit(event);
            },
          }).catch((error: unknown) => {
            console.error(
              `rlm-studio: the sample workspace was not installed: ${error instanceof Error ? error.message : String(error)}`,
            );
          });
        const server = await startServer({
          host: engine.host,
          rendererDir: options.renderer,
          port: options.port,
        });
        if (options.json) {
          console.log(
            JSON.stringify({ url: server.url, port: server.port, workspace: workspace.dir }),
          );
        } else {
          console.log(`RLM Studio is serving workspace ${workspace.dir}`);
          console.log(`Open this URL in your browser (it carries this start's access token):`);
          console.log(`  ${server.url}`);
          console.log('Press Ctrl+C to stop.');
        }
        await new Promise<void>((resolve) => {
          const stop = () => {
            resolve();
          };
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
        await server.close();
        // A sample install still running stops with the extraction pool (its promise stays pending).
        await engine.dispose();
        workspace.close();
      },
    );
}
