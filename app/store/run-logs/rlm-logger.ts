// alexzhang13/rlm logs (RLMLogger JSONL, RLM-SPEC section 6) -> runs. A `metadata` line sets the
// model and limits, each `run_context` line starts a run, `iteration` lines are the root's turns.
// A sub-call whose `metadata` holds a trajectory becomes a real child agent (tree path ids, any
// depth); one without is a plain llm_query. Sub-call usage is known per call only: a child's is
// recorded on its last turn.
import { Budgets, type RunEvent, type RunEventOf } from '../../api/index.ts';
import { RunLogLineError } from './errors.ts';
import {
  errorFromStderr,
  parseTimestamp,
  pythonRepr,
  pythonType,
  RunBuilder,
  textOf,
} from './run-builder.ts';
import {
  isRecord,
  type FormatReadResult,
  type ImportedRun,
  type ParsedLine,
  type Record_,
} from './types.ts';

interface Segment {
  context: Record_ | null;
  iterations: Record_[];
}

const num = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) ? value : 0;
const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

function usageOf(summary: unknown): { inputTokens: number; outputTokens: number } {
  const models = isRecord(summary) ? summary.model_usage_summaries : undefined;
  let inputTokens = 0;
  let outputTokens = 0;
  if (isRecord(models))
    for (const usage of Object.values(models)) {
      if (!isRecord(usage)) continue;
      inputTokens += Math.round(num(usage.total_input_tokens));
      outputTokens += Math.round(num(usage.total_output_tokens));
    }
  return { inputTokens, outputTokens };
}

function messagesOf(prompt: unknown): RunEventOf<'turn.started'>['messages'] {
  if (typeof prompt === 'string') return [{ role: 'user', content: prompt }];
  if (!Array.isArray(prompt))
    return prompt === undefined ? [] : [{ role: 'user', content: textOf(prompt) }];
  return prompt.map((message) => {
    const role = isRecord(message) ? message.role : undefined;
    return {
      role: role === 'system' || role === 'assistant' ? role : 'user',
      content: isRecord(message) ? textOf(message.content) : textOf(message),
    };
  });
}

function checkIteration(value: Record_): string | null {
  if (typeof value.response !== 'string') return 'an iteration without a response string';
  if (value.code_blocks !== undefined && !Array.isArray(value.code_blocks))
    return "an iteration whose 'code_blocks' is not a list";
  return null;
}

/** A sub-call's prompt: a string, or the last user message of a message list. */
function subPrompt(prompt: unknown): string {
  if (!Array.isArray(prompt)) return textOf(prompt);
  const users = messagesOf(prompt).filter((message) => message.role === 'user');
  return users.at(-1)?.content ?? textOf(prompt);
}

class AgentConverter {
  readonly #builder: RunBuilder;
  constructor(builder: RunBuilder) {
    this.#builder = builder;
  }

  /** The agent's turns; returns its final answer when one of them gave it. */
  turns(
    agentId: string,
    depth: number,
    iterations: readonly unknown[],
  ): { found: boolean; answer: unknown } {
    const b = this.#builder;
    const counters = { children: 0, llm: 0 };
    for (const [turn, raw] of iterations.entries()) {
      const it = isRecord(raw) ? raw : {};
      const end = parseTimestamp(it.timestamp);
      const iterationMs = num(it.iteration_time) * 1000;
      const blocks = Array.isArray(it.code_blocks) ? it.code_blocks.filter(isRecord) : [];
      const execMs = blocks.reduce(
        (sum, block) => sum + num(isRecord(block.result) ? block.result.execution_time : 0) * 1000,
        0,
      );
      const start = b.at(end !== null ? end - iterationMs : null);
      b.push({ kind: 'turn.started', at: start, agentId, turn, messages: messagesOf(it.prompt) });
      const modelMs = Math.max(0, iterationMs - execMs);
      const response = textOf(it.response);
      b.push({
        kind: 'model.done',
        at: b.at(start + modelMs),
        agentId,
        turn,
        text: response,
        usage: { inputTokens: 0, outputTokens: 0 },
        costUsd: null,
        latencyMs: modelMs,
        finishReason: 'stop',
      });
      for (const [block, codeBlock] of blocks.entries())
        this.#block(agentId, depth, turn, block, codeBlock, counters);
      if (it.final_answer !== null && it.final_answer !== undefined) {
        b.push({
          kind: 'final.answer',
          at: b.at(end),
          agentId,
          turn,
          answer: it.final_answer,
          via: /FINAL_VAR\s*\(/.test(response) ? 'FINAL_VAR' : 'FINAL',
        });
        return { found: true, answer: it.final_answer };
      }
    }
    return { found: false, answer: null };
  }

  #block(
    agentId: string,
    depth: number,
    turn: number,
    block: number,
    codeBlock: Record_,
    counters: { children: number; llm: number },
  ): void {
    const b = this.#builder;
    const result = isRecord(codeBlock.result) ? codeBlock.result : {};
    const started = b.at();
    b.push({
      kind: 'code.started',
      at: started,
      agentId,
      turn,
      block,
      code: textOf(codeBlock.code),
    });
    // Some versions of the logger name the list llm_calls.
    const listed = result.rlm_calls ?? result.llm_calls;
    const calls = Array.isArray(listed) ? listed.filter(isRecord) : [];
    for (const call of calls) this.#call(agentId, depth, turn, call, counters);
    const stderr = textOf(result.stderr);
    const locals = isRecord(result.locals) ? result.locals : {};
    const durationMs = num(result.execution_time) * 1000;
    b.push({
      kind: 'repl.output',
      at: b.at(started + durationMs),
      agentId,
      turn,
      block,
      stdout: textOf(result.stdout),
      stderr,
      error: errorFromStderr(stderr),
      durationMs,
      variables: Object.entries(locals).map(([name, value]) => ({
        name,
        type: pythonType(value),
        repr: pythonRepr(value),
      })),
    });
  }

  /** One sub-call of a turn: a plain llm_query, or (with a trajectory) a child agent. */
  #call(
    agentId: string,
    depth: number,
    turn: number,
    call: Record_,
    counters: { children: number; llm: number },
  ): void {
    const prompt = subPrompt(call.prompt);
    const response = textOf(call.response);
    const error =
      typeof call.error === 'string' && call.error.length > 0
        ? {
            name: typeof call.error_type === 'string' ? call.error_type : 'SubCallError',
            message: call.error,
          }
        : null;
    const trajectory = isRecord(call.metadata)
      ? call.metadata.iterations
      : Array.isArray(call.metadata)
        ? call.metadata
        : undefined;
    const answer = error ? null : response;
    if (!Array.isArray(trajectory)) {
      const b = this.#builder;
      const n = counters.llm++;
      b.push({ kind: 'child.call', at: b.at(), agentId, turn, childId: null, call: 'llm', prompt });
      b.push({
        kind: 'model.done',
        at: b.at(),
        agentId: `${agentId}:llm`,
        turn: n,
        text: response,
        usage: usageOf(call.usage_summary),
        costUsd: null,
        latencyMs: num(call.execution_time) * 1000,
        finishReason: error ? 'error' : 'stop',
      });
      b.push({ kind: 'child.returned', at: b.at(), agentId, childId: null, answer, error });
      return;
    }
    const childId = `${agentId}.${counters.children++}`;
    const end = this.#child(agentId, childId, depth + 1, turn, prompt, call, trajectory);
    const b = this.#builder;
    if (error) b.push({ kind: 'agent.failed', at: end.at, agentId: childId, error });
    else if (!end.found) {
      b.push({
        kind: 'final.answer',
        at: end.at,
        agentId: childId,
        turn: Math.max(0, trajectory.length - 1),
        answer: response,
        via: 'FINAL',
      });
    }
    b.push({ kind: 'child.returned', at: end.at, agentId, childId, answer, error });
  }

  /**
   * A child agent from a sub-call's trajectory: called, spawned, its turns (the call's usage on its
   * last model answer). Returns when it ended and whether its turns gave a final answer.
   */
  #child(
    agentId: string,
    childId: string,
    depth: number,
    turn: number,
    prompt: string,
    call: Record_,
    trajectory: unknown[],
  ): { at: number; found: boolean } {
    const b = this.#builder;
    const callStart = b.at();
    b.push({ kind: 'child.call', at: callStart, agentId, turn, childId, call: 'rlm', prompt });
    b.push({
      kind: 'agent.spawned',
      at: callStart,
      agentId: childId,
      parentId: agentId,
      depth,
      prompt,
      contextChars: prompt.length,
    });
    const outcome = this.turns(childId, depth, trajectory);
    const lastModel = b.events.findLast(
      (event): event is RunEventOf<'model.done'> =>
        event.kind === 'model.done' && event.agentId === childId,
    );
    if (lastModel) lastModel.usage = usageOf(call.usage_summary);
    return { at: b.at(callStart + num(call.execution_time) * 1000), found: outcome.found };
  }
}

/** The question: root_prompt when the log has one, else the prompt (the context), cut to 20,000. */
function questionOf(segment: Segment): string {
  const context = segment.context;
  if (context) {
    if (typeof context.root_prompt === 'string' && context.root_prompt.length > 0)
      return context.root_prompt.slice(0, 20_000);
    return textOf(context.prompt).slice(0, 20_000);
  }
  const first = segment.iterations[0];
  const users = messagesOf(first?.prompt).filter((message) => message.role === 'user');
  return users.at(-1)?.content.slice(0, 2000) ?? '';
}

function convert(meta: Record_ | null, segment: Segment, id: string, now: number): ImportedRun {
  const first = segment.iterations[0];
  const firstEnd = parseTimestamp(first?.timestamp);
  const createdAt =
    parseTimestamp(segment.context?.timestamp) ??
    (firstEnd !== null ? firstEnd - num(first?.iteration_time) * 1000 : null) ??
    parseTimestamp(meta?.timestamp) ??
    now;
  const question = questionOf(segment);
  const model = typeof meta?.root_model === 'string' ? meta.root_model : 'unknown';
  const maxIterations = num(meta?.max_iterations);
  const builder = new RunBuilder(createdAt, {
    runId: id,
    question,
    set: '',
    papers: [],
    model,
    budgets: Budgets.parse({
      ...(maxIterations > 0 ? { maxTurns: clamp(Math.round(maxIterations), 1, 100) } : {}),
      ...(meta?.max_depth !== undefined
        ? { maxDepth: clamp(Math.round(num(meta.max_depth)), 0, 10) }
        : {}),
    }),
    codeBlocks: 'all',
    prompts: 'rlm-log',
  });
  builder.push({
    kind: 'agent.spawned',
    at: builder.at(),
    agentId: '0',
    parentId: null,
    depth: 0,
    prompt: question,
    contextChars: textOf(segment.context?.prompt).length,
  });
  const outcome = new AgentConverter(builder).turns('0', 0, segment.iterations);
  const outOfTurns = maxIterations > 0 && segment.iterations.length >= maxIterations;
  const events: RunEvent[] = builder.finish(
    outcome.found
      ? { status: 'done', answer: outcome.answer, error: null }
      : outOfTurns
        ? {
            status: 'failed',
            answer: null,
            error: {
              name: 'TurnBudgetExceededError',
              message: `the root used all ${maxIterations} iterations without a final answer`,
            },
          }
        : {
            status: 'interrupted',
            answer: null,
            error: {
              name: 'ImportedRunUnfinishedError',
              message: 'the log ends before the root agent gave a final answer',
            },
          },
  );
  return { id, question, set: '', model, createdAt, parentRunId: null, score: null, events };
}

/** `now` dates a run whose log carries no timestamp at all. */
export function readRlmLog(
  lines: readonly ParsedLine[],
  newId: () => string,
  now: number,
): FormatReadResult {
  const problems: RunLogLineError[] = [];
  const runs: ImportedRun[] = [];
  let meta: Record_ | null = null;
  let segment: Segment | null = null;
  let segmentMeta: Record_ | null = null;
  const close = () => {
    if (segment && (segment.context || segment.iterations.length > 0))
      runs.push(convert(segmentMeta, segment, newId(), now));
    segment = null;
  };
  for (const { line, value } of lines) {
    if (!isRecord(value)) {
      problems.push(new RunLogLineError(line, 'not a JSON object'));
      continue;
    }
    switch (value.type) {
      case 'metadata':
        close();
        meta = value;
        break;
      case 'run_context':
        close();
        segment = { context: value, iterations: [] };
        segmentMeta = meta;
        break;
      case 'iteration': {
        const problem = checkIteration(value);
        if (problem) {
          problems.push(new RunLogLineError(line, problem));
          break;
        }
        if (!segment) {
          segment = { context: null, iterations: [] };
          segmentMeta = meta;
        }
        segment.iterations.push(value);
        break;
      }
      default:
        problems.push(
          new RunLogLineError(
            line,
            `an entry of type ${JSON.stringify(value.type ?? null)}, which an rlm log does not have`,
          ),
        );
    }
  }
  close();
  return { runs, problems };
}
