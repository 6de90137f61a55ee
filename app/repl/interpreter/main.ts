// Entry of the interpreter process (forked by ReplSandbox under Node's permission model): one
// Pyodide hosting many agents. It answers the host's messages; model code never sees this file.
import { defineChild, startWorker } from '../../children/index.ts';
import type { HostMessage, InterpreterMessage, InterpreterSettings } from '../protocol.ts';
import { MessageBatch } from '../message-batch.ts';
import { boot, type Interpreter, type PyAgent } from './boot.ts';
import { RunTable, type RunState } from './runs.ts';

const started = performance.now();
const settings = JSON.parse(process.argv[2] ?? '{}') as InterpreterSettings;

const outbox = new MessageBatch<InterpreterMessage>((frame) => {
  if (process.connected) process.send?.(frame);
});

function send(message: InterpreterMessage): void {
  outbox.send(message);
}

function fatal(message: string): never {
  send({ kind: 'fatal', message });
  outbox.flush();
  process.exit(70);
}

const cancelSlots = new Int32Array(new SharedArrayBuffer(4 * 1024));
/** The cancel pipe's reader: cancel-watch.ts here, or cancel-watch.mjs beside interpreter.mjs. */
const cancelWatchChild = defineChild(import.meta.url, {
  source: './cancel-watch.ts',
  bundled: 'cancel-watch.mjs',
});
const cancelWatch = startWorker(cancelWatchChild, {
  workerData: { slots: cancelSlots.buffer },
});
cancelWatch.unref();
const runs = new RunTable(settings, send, cancelSlots);
const agents = new Map<string, PyAgent>();

/** Pyodide marks errors after which the interpreter cannot continue (e.g. a JS stack overflow). */
function fatalReason(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const marked = (error as Error & { pyodide_fatal_error?: boolean }).pyodide_fatal_error === true;
  if (!marked && !/fatal error/i.test(error.message)) return null;
  if (error instanceof RangeError) {
    return 'Python overflowed the interpreter stack (nesting too deep, e.g. repr() or == of a list nested thousands of levels)';
  }
  return `Pyodide failed: ${error.message.slice(0, 500)}`;
}

async function runCode(
  interpreter: Interpreter,
  message: Extract<HostMessage, { kind: 'run' }>,
): Promise<void> {
  const agent = agents.get(message.agentId);
  if (!agent || runs.isBusy(message.agentId)) {
    const why = agent ? 'is already running code' : 'does not exist in the interpreter';
    const report = {
      error: { type: 'ReplError', message: `agent ${message.agentId} ${why}` },
      final: null,
      variables: [],
      traceback: '',
      notes: [],
    };
    send({
      kind: 'result',
      runId: message.runId,
      outcome: { stdout: '', stderr: '', droppedChars: 0, report },
    });
    return;
  }
  const run = runs.start(message);
  let reportJson: unknown;
  try {
    reportJson = await interpreter.runner.run.callPromising(agent, message.code);
  } catch (error) {
    const reason = fatalReason(error);
    if (reason !== null) fatal(`${reason}, in a run of agent ${message.agentId}`);
    reportJson = JSON.stringify({
      error: { type: 'ReplInternalError', message: String(error).slice(-2000) },
      final: null,
      variables: [],
      traceback: '',
      notes: [],
    });
  } finally {
    runs.finish(run);
  }
  send({ kind: 'result', runId: message.runId, outcome: outcomeOf(run, String(reportJson)) });
}

function outcomeOf(run: RunState, reportJson: string) {
  return {
    stdout: run.stdout.join(''),
    stderr: run.stderr.join(''),
    droppedChars: run.droppedChars,
    report: JSON.parse(reportJson) as never,
  };
}

function createAgent(
  interpreter: Interpreter,
  message: Extract<HostMessage, { kind: 'create' }>,
): void {
  try {
    agents.get(message.agentId)?.destroy();
    if (message.context !== undefined)
      interpreter.runner.load_context(message.contextId, message.context);
    agents.set(
      message.agentId,
      interpreter.runner.create_agent(message.agentId, message.contextId),
    );
    send({ kind: 'created', agentId: message.agentId, error: null });
  } catch (error) {
    const reason = fatalReason(error);
    if (reason !== null) fatal(reason);
    send({ kind: 'created', agentId: message.agentId, error: String(error).slice(-2000) });
  }
}

function handle(interpreter: Interpreter, message: HostMessage): void {
  switch (message.kind) {
    case 'create':
      createAgent(interpreter, message);
      return;
    case 'run':
      void runCode(interpreter, message);
      return;
    case 'cancel':
      runs.cancel(message.runId);
      return;
    case 'reply':
      runs.reply(message.callId, message.envelope);
      return;
    case 'forget-context':
      interpreter.runner.forget_context(message.contextId);
      return;
    case 'dispose-agent':
      agents.get(message.agentId)?.destroy();
      agents.delete(message.agentId);
      return;
    case 'ping':
      send({ kind: 'pong', seq: message.seq });
      return;
  }
}

process.on('disconnect', () => process.exit(0));
try {
  const interpreter = await boot(settings, runs.host, () => runs.shouldInterrupt());
  process.on('message', (frame: HostMessage[]) => {
    for (const message of frame) handle(interpreter, message);
  });
  send({
    kind: 'ready',
    startupMs: performance.now() - started,
    pythonVersion: interpreter.pythonVersion,
  });
  outbox.flush();
} catch (error) {
  fatal(
    `the interpreter could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
}
