// `scripted:FILE`: answers from a JSON script mapping agent ids to their responses, turn by turn
// (`{"0": ["...", "..."], "0.0": ["..."]}`, or `{"delayMs": 200, "responses": {...}}` for demos).
// Used by tests, demos and the overhead benchmark; an agent that runs out of lines fails loudly.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { cannedCompletion } from './canned-answer.ts';
import { InvalidScriptError, ScriptExhaustedError } from './errors.ts';
import type { Completion, CompletionRequest, Provider } from './provider.ts';

export type ModelScript = Readonly<Record<string, readonly string[]>>;

export interface ScriptedProviderOptions {
  /** Spread over the chunks of each response, so a demo streams visibly. */
  delayMs?: number | undefined;
  /** Shown in errors: the file name, or 'given in code'. */
  source?: string | undefined;
  spec?: string | undefined;
}

/** A tree path, optionally with the kind of call made from it: '0', '0.1.2', '0.1:llm'. */
const AGENT_ID = /^\d+(\.\d+)*(:[a-z][a-z0-9_-]*)?$/;

const responsesSchema = z.record(
  z.string(),
  z.array(z.string({ error: 'each response must be a string' }), {
    error: 'each agent needs a list of response strings',
  }),
);

const wrappedSchema = z.strictObject({
  delayMs: z.number().nonnegative().optional(),
  responses: responsesSchema,
});

export class ScriptedProvider implements Provider {
  readonly spec: string;
  private readonly script: ModelScript;
  private readonly delayMs: number;
  private readonly source: string;

  constructor(script: ModelScript, options: ScriptedProviderOptions = {}) {
    this.source = options.source ?? 'given in code';
    this.spec = options.spec ?? 'scripted:(inline)';
    this.script = script;
    this.delayMs = options.delayMs ?? 0;
  }

  /** Reads and checks a script file; every problem is an InvalidScriptError naming the file. */
  static async fromFile(path: string, spec = `scripted:${path}`): Promise<ScriptedProvider> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new InvalidScriptError(`'${path}'`, `it cannot be read (${reason})`);
    }
    const { responses, delayMs } = parseScript(text, `'${path}'`);
    return new ScriptedProvider(responses, { delayMs, source: `'${path}'`, spec });
  }

  /** Builds from an already-parsed object, checking its shape as for a file. */
  static fromObject(value: unknown, options: ScriptedProviderOptions = {}): ScriptedProvider {
    const source = options.source ?? 'given in code';
    const { responses, delayMs } = checkScript(value, source);
    return new ScriptedProvider(responses, {
      ...options,
      delayMs: options.delayMs ?? delayMs,
      source,
    });
  }

  /** How many responses each agent has (for the UI and for checking a demo before it runs). */
  get agents(): ReadonlyMap<string, number> {
    return new Map(Object.entries(this.script).map(([id, lines]) => [id, lines.length]));
  }

  complete(request: CompletionRequest): Promise<Completion> {
    const lines = Object.hasOwn(this.script, request.agentId)
      ? this.script[request.agentId]
      : undefined;
    const text = lines?.[request.turn];
    if (text === undefined) {
      return Promise.reject(
        new ScriptExhaustedError(request.agentId, lines?.length ?? 0, request.turn, this.source),
      );
    }
    return cannedCompletion(this.spec, 'scripted', text, request, this.delayMs);
  }
}

export function parseScript(
  text: string,
  source: string,
): { responses: ModelScript; delayMs: number } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidScriptError(source, `it is not JSON (${reason})`);
  }
  return checkScript(value, source);
}

function checkScript(value: unknown, source: string): { responses: ModelScript; delayMs: number } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'a list' : value === null ? 'null' : typeof value;
    throw new InvalidScriptError(source, `the top level is ${kind}, not an object`);
  }
  if ('responses' in value || 'delayMs' in value) {
    const result = wrappedSchema.safeParse(value);
    if (!result.success) throw new InvalidScriptError(source, describeIssues(result.error));
    return {
      responses: checkAgentIds(result.data.responses, source),
      delayMs: result.data.delayMs ?? 0,
    };
  }
  const result = responsesSchema.safeParse(value);
  if (!result.success) throw new InvalidScriptError(source, describeIssues(result.error));
  return { responses: checkAgentIds(result.data, source), delayMs: 0 };
}

function checkAgentIds(responses: ModelScript, source: string): ModelScript {
  const bad = Object.keys(responses).filter((id) => !AGENT_ID.test(id));
  if (bad.length > 0) {
    const names = bad
      .slice(0, 5)
      .map((id) => `"${id}"`)
      .join(', ');
    throw new InvalidScriptError(
      source,
      `${names} ${bad.length === 1 ? 'is not an agent id' : 'are not agent ids'}; agent ids are tree paths like "0" or "0.1.2", or a call made from one like "0.1:llm"`,
    );
  }
  return responses;
}

/** `at "0.1"[2]: each response must be a string`, for at most five problems. */
function describeIssues(error: z.ZodError): string {
  const problems = error.issues.map((issue) => {
    const where = issue.path
      .map((part) => (typeof part === 'number' ? `[${part}]` : `"${String(part)}"`))
      .join('');
    return `${where === '' ? '' : `at ${where}: `}${issue.message}`;
  });
  return problems.slice(0, 5).join('; ');
}
