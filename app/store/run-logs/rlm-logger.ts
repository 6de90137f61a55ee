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
  /** Its place among the file's runs (a followed file's runs are told apart by it). */
  index: number;
  context: Record_ | null;
  iterations: Record_[];
}

const num = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) ? value : 0;
const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

interface CallUsage {
  usage: { inputTokens: number; outputTokens: number };
  /** `total_cost` where the provider reported one (rlm 0.1.3), else null: unknown, not free. */
  costUsd: number | null;
}

function usageOf(summary: unknown): CallUsage {
  const models = isRecord(summary) ? summary.model_usage_summaries : undefined;
  let inputTokens = 0;
  let outputTokens = 0;
  let modelCost: number | null = null;
  if (isRecord(models))
    for (const usage of Object.values(models)) {
      if (!isRecord(usage)) continue;
      inputTokens += Math.round(num(usage.total_input_tokens));
      outputTokens += Math.round(num(usage.total_output_tokens));
      if (typeof usage.total_cost === 'number') modelCost = (modelCost ?? 0) + usage.total_cost;
    }
  const total = isRecord(summary) ? summary.total_cost : undefined;
  return {
    usage: { inputTokens, outputTokens },
    costUsd: typeof total === 'number' && Number.isFinite(total) ? total : modelCost,
  };
}

/** A fork's per-iteration root usage (`root_usage`), else nothing: upstream never logs it. */
function rootUsageOf(iteration: Record_): CallUsage {
  const usage = isRecord(iteration.root_usage) ? iteration.root_usage : {};
  return {
    usage: {
      inputTokens: Math.round(num(usage.total_input_tokens ?? usage.input_tokens)),
      outputTokens: Math.round(num(usage.total_output_tokens ?? usage.output_tokens)),
    },
    costUsd: typeof usage.total_cost === 'number' ? usage.total_cost : null,
  };
}

/**
 * The final answer of an iteration: `final_answer` (a string, or the old `[type, text]` tuple),
 * else the first code block whose result carries one (rlm 0.1.3's `answer` dict, FINAL_VAR called
 * in the REPL). `via` says whether it came from the response's FINAL(...) or from a REPL value.
 */
function finalAnswerOf(
  it: Record_,
  blocks: readonly Record_[],
): { answer: unknown; via: 'FINAL' | 'FINAL_VAR' } | null {
  const given: unknown = Array.isArray(it.final_answer) ? it.final_answer[1] : it.final_answer;
  const response = textOf(it.response);
  if (given !== null && given !== undefined)
    return {
      answer: given,
      via:
        /^\s*FINAL\(/m.test(response) && !/FINAL_VAR\s*\(/.test(response) ? 'FINAL' : 'FINAL_VAR',
    };
  for (const block of blocks) {
    const result = isRecord(block.result) ? block.result : {};
    if (result.final_answer !== null && result.final_answer !== undefined)
      return { answer: result.final_answer, via: 'FINAL_VAR' };
  }
  // The REPL's `answer` dict once the code set ready (its locals are logged as reprs or values).
  for (const block of blocks) {
    const locals =
      isRecord(block.result) && isRecord(block.result.locals) ? block.result.locals : {};
    const answer = readyAnswer(locals.answer);
    if (answer !== null) return { answer, via: 'FINAL_VAR' };
  }
  return null;
}

/** `{"content": ..., "ready": True}` as a value or as its Python repr; null until ready. */
function readyAnswer(value: unknown): string | null {
  if (isRecord(value)) return value.ready === true ? textOf(value.content) : null;
  if (typeof value !== 'string' || !/['"]ready['"]:\s*True/.test(value)) return null;
  const content = /['"]content['"]:\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/.exec(value);
  return content ? (content[1] ?? content[2] ?? '').replace(/\\(.)/g, '$1') : null;
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
        ...rootUsageOf(it),
        latencyMs: modelMs,
        finishReason: typeof it.finish_reason === 'string' ? it.finish_reason : 'stop',
      });
      for (const [block, codeBlock] of blocks.entries())
        this.#block(agentId, depth, turn, block, codeBlock, counters);
      const final = finalAnswerOf(it, blocks);
      if (final) {
        b.push({ kind: 'final.answer', at: b.at(end), agentId, turn, ...final });
        return { found: true, answer: final.answer };
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
        ...usageOf(call.usage_summary),
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
    if (lastModel) Object.assign(lastModel, usageOf(call.usage_summary));
    return { at: b.at(callStart + num(call.execution_time) * 1000), found: outcome.found };
  }
}

/** The per-turn instructions the rlm loop adds as user messages: never the question. */
const instruction =
  /^(You have not interacted with the REPL[\s\S]*?\n\n)?Turn \d+\/\d+:|^You have not interacted with the REPL|^The history before is your previous interactions|^You have prior REPL outputs|^Code executed:|^Please provide a final answer/;
/** The context line of the root prompt, either wording: "a str of N total characters" (0.1.3), "with N". */
const contextLine = /Your context is an? [\w[\], ]+? (?:of|with) ([\d,]+) total characters/;
/** rlm 0.1.3 puts the question before the context line: "Answer the following: Q\n\nYour context is". */
const answerTheFollowing = /^Answer the following: ([\s\S]*?)\n\nYour context is/;
/** Older prompts quote it in the turn instruction: `to answer the original prompt: "Q".` */
const originalPrompt = /answer the original prompt: "([\s\S]*?)"\.?/;

/**
 * The question: run_context's root_prompt or prompt (the jupyter branch), else the root prompt's
 * "Answer the following:" line (0.1.3) or the question the old instruction quotes, else the
 * first user message that is neither an instruction nor the context line. Cut to 20,000.
 */
function questionOf(segment: Segment): string {
  const context = segment.context;
  if (context) {
    if (typeof context.root_prompt === 'string' && context.root_prompt.length > 0)
      return context.root_prompt.slice(0, 20_000);
    return textOf(context.prompt).slice(0, 20_000);
  }
  const messages = messagesOf(segment.iterations[0]?.prompt).filter((m) => m.role !== 'system');
  for (const { content } of messages) {
    const asked = answerTheFollowing.exec(content) ?? originalPrompt.exec(content);
    if (asked?.[1]) return asked[1].trim().slice(0, 20_000);
  }
  const own = messages.find(
    (m) => m.role === 'user' && !instruction.test(m.content) && !contextLine.test(m.content),
  );
  return own?.content.slice(0, 20_000) ?? '';
}

/** The context's size: run_context's payload, else the number the root prompt's context line gives. */
function contextCharsOf(segment: Segment): number {
  if (segment.context) return textOf(segment.context.prompt).length;
  for (const { content } of messagesOf(segment.iterations[0]?.prompt)) {
    const size = contextLine.exec(content)?.[1];
    if (size) return Number(size.replace(/,/g, ''));
  }
  return 0;
}

/**
 * One run. `open`: the log may still grow (a followed file's last run): a run without a final
 * answer gets no run.finished yet, rather than an interrupted one.
 */
function convert(
  meta: Record_ | null,
  segment: Segment,
  id: string,
  now: number,
  open: boolean,
): ImportedRun {
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
  // A branch of the logger names it recursive_max_depth.
  const maxDepth = meta?.recursive_max_depth ?? meta?.max_depth;
  const builder = new RunBuilder(createdAt, {
    runId: id,
    question,
    set: '',
    papers: [],
    model,
    budgets: Budgets.parse({
      ...(maxIterations > 0 ? { maxTurns: clamp(Math.round(maxIterations), 1, 100) } : {}),
      ...(maxDepth !== undefined ? { maxDepth: clamp(Math.round(num(maxDepth)), 0, 10) } : {}),
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
    contextChars: contextCharsOf(segment),
  });
  const outcome = new AgentConverter(builder).turns('0', 0, segment.iterations);
  const outOfTurns = maxIterations > 0 && segment.iterations.length >= maxIterations;
  const base = { id, key: `run:${segment.index}`, question, set: '', model, createdAt };
  if (open && !outcome.found && !outOfTurns)
    return { ...base, parentRunId: null, score: null, events: builder.events };
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
  return { ...base, parentRunId: null, score: null, events };
}

/** The iteration's number, when the line has one. */
function iterationNumber(value: Record_): number | null {
  return typeof value.iteration === 'number' && Number.isFinite(value.iteration)
    ? value.iteration
    : null;
}

/**
 * `now` dates a run whose log carries no timestamp at all. Runs are told apart by `run_context`
 * lines (the jupyter branch) or, as rlm 0.1.3 writes them with no separator, by the iteration
 * count starting again. `open`: the file may still grow, so its last run may be unfinished.
 */
export function readRlmLog(
  lines: readonly ParsedLine[],
  newId: () => string,
  now: number,
  open = false,
): FormatReadResult {
  const problems: RunLogLineError[] = [];
  const segments: { meta: Record_ | null; segment: Segment }[] = [];
  let meta: Record_ | null = null;
  let segment: Segment | null = null;
  const start = (context: Record_ | null): Segment => {
    const fresh: Segment = { index: segments.length, context, iterations: [] };
    segments.push({ meta, segment: fresh });
    return fresh;
  };
  for (const { line, value } of lines) {
    if (!isRecord(value)) {
      problems.push(new RunLogLineError(line, 'not a JSON object'));
      continue;
    }
    switch (value.type) {
      case 'metadata':
        meta = value;
        segment = null;
        break;
      case 'run_context':
        segment = start(value);
        break;
      case 'iteration': {
        const problem = checkIteration(value);
        if (problem) {
          problems.push(new RunLogLineError(line, `an rlm log line: ${problem}`));
          break;
        }
        segment ??= start(null);
        const last = segment.iterations.at(-1);
        const n = iterationNumber(value);
        const previous = last ? iterationNumber(last) : null;
        if (n !== null && previous !== null && n <= previous) segment = start(null);
        segment.iterations.push(value);
        break;
      }
      default:
        // Forks add entry types of their own ("context", "model_response"): skipped, said.
        problems.push(
          new RunLogLineError(
            line,
            `an rlm log entry of type ${JSON.stringify(value.type ?? null)}, which this reader does not know`,
          ),
        );
    }
  }
  const kept = segments.filter(({ segment: s }) => s.context !== null || s.iterations.length > 0);
  const runs = kept.map(({ meta: m, segment: s }, i) =>
    convert(m, s, newId(), now, open && i === kept.length - 1),
  );
  return { runs, problems };
}
