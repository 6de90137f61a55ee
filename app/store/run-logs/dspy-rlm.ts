// DSPy's dspy.RLM predictions -> runs. DSPy has no log of its own: researchers dump
// `pred.toDict()` (the output fields, `trajectory` of {reasoning, code, output} steps and
// `final_reasoning`; newer DSPy names it `repl_trajectory` and adds `history.messages[*].
// repl_entry`), often with the inputs beside it or the prediction under `prediction`, one per JSON
// line, as a JSON array, or a bare trajectory list. Sub-LM calls are not in the prediction: where
// the record carries the LM's history (`lm_history`, `lm_calls`: dspy's `lm.history` entries), the
// root's action calls give each turn its prompt, tokens, cost and time, and the other calls become
// the turns' llm_query calls (by time, else in order of the code's llm_query call sites).
import { Budgets, type RunEventOf } from '../../api/index.ts';
import { RunLogLineError } from './errors.ts';
import { parseTimestamp, RunBuilder, textOf } from './run-builder.ts';
import {
  isRecord,
  type FormatReadResult,
  type ImportedRun,
  type ParsedLine,
  type Record_,
} from './types.ts';

const trajectoryKeys = ['trajectory', 'repl_trajectory', 'iterations', 'steps'] as const;
const notOutputs = new Set([
  ...trajectoryKeys,
  'final_reasoning',
  'history',
  'prediction',
  'lm_history',
  'lm_calls',
  'question',
  'query',
  'task',
  'input',
  'prompt',
  'context',
  'document',
  'documents',
  'id',
  'run_id',
  'model',
  'timestamp',
  'score',
  'gold',
  'iterations_used',
]);
const questionKeys = ['question', 'query', 'task', 'input', 'prompt'] as const;
const forcedExtract = 'Extract forced final output';

interface Step {
  reasoning: string;
  code: string;
  output: string;
}

interface LmCall {
  messages: RunEventOf<'turn.started'>['messages'];
  prompt: string;
  text: string;
  usage: { inputTokens: number; outputTokens: number };
  costUsd: number | null;
  at: number | null;
  model: string | null;
}

/** A step of a DSPy RLM trajectory: `code` and `output` always, `reasoning` optional. */
export function isDspyStep(value: unknown): value is Record_ {
  return isRecord(value) && 'code' in value && 'output' in value && !('type' in value);
}

function stepsIn(record: Record_): unknown[] | null {
  for (const key of trajectoryKeys) {
    const list: unknown = record[key];
    if (!Array.isArray(list)) continue;
    const entries: unknown[] = list;
    // DSPy's own names hold steps whatever is wrong with them (checked later, by field); the
    // aliases others use only where a step has code.
    const dspyName = key === 'trajectory' || key === 'repl_trajectory';
    if (
      dspyName ? entries.every(isRecord) : entries.some((step) => isRecord(step) && 'code' in step)
    )
      return entries;
  }
  const messages = isRecord(record.history) ? record.history.messages : undefined;
  if (Array.isArray(messages) && messages.some((m) => isRecord(m) && isRecord(m.repl_entry)))
    return messages.flatMap((m) => (isRecord(m) && isRecord(m.repl_entry) ? [m.repl_entry] : []));
  return null;
}

/** The prediction of a record: the record itself, or its `prediction`. */
function predictionOf(record: Record_): Record_ | null {
  if (stepsIn(record)) return record;
  return isRecord(record.prediction) && stepsIn(record.prediction) ? record.prediction : null;
}

/** Whether a JSON value looks like a dspy.RLM prediction (or a record holding one) or a step. */
export function looksLikeDspy(value: unknown): boolean {
  return isDspyStep(value) || (isRecord(value) && predictionOf(value) !== null);
}

function checkSteps(list: readonly unknown[], key: string): Step[] | string {
  const steps: Step[] = [];
  for (const [i, raw] of list.entries()) {
    if (!isRecord(raw)) return `${key} step ${i + 1} is not an object`;
    for (const field of ['code', 'output'] as const)
      if (typeof raw[field] !== 'string') return `${key} step ${i + 1} has no '${field}' string`;
    steps.push({
      reasoning: typeof raw.reasoning === 'string' ? raw.reasoning : '',
      code: raw.code as string,
      output: raw.output as string,
    });
  }
  return steps;
}

function messagesOf(value: unknown): RunEventOf<'turn.started'>['messages'] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((m) => ({
    role: m.role === 'system' || m.role === 'assistant' ? m.role : 'user',
    content: textOf(m.content),
  }));
}

function lmCallOf(entry: Record_): LmCall {
  const outputs = Array.isArray(entry.outputs) ? entry.outputs : [];
  const first: unknown = outputs[0];
  const usage = isRecord(entry.usage) ? entry.usage : {};
  const tokens = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : 0;
  return {
    messages: messagesOf(entry.messages),
    prompt: typeof entry.prompt === 'string' ? entry.prompt : '',
    text: isRecord(first) ? textOf(first.text) : textOf(first),
    usage: {
      inputTokens: tokens(usage.prompt_tokens ?? usage.input_tokens),
      outputTokens: tokens(usage.completion_tokens ?? usage.output_tokens),
    },
    costUsd: typeof entry.cost === 'number' && Number.isFinite(entry.cost) ? entry.cost : null,
    at: parseTimestamp(entry.timestamp),
    model: typeof entry.model === 'string' ? entry.model : null,
  };
}

/** The LM history beside the prediction, split into the root's action calls and sub-LM calls. */
function lmCallsOf(record: Record_, prediction: Record_): { root: LmCall[]; sub: LmCall[] } {
  const list = [record.lm_history, record.lm_calls, prediction.lm_history].find(Array.isArray);
  const calls = (Array.isArray(list) ? list : []).filter(isRecord).map(lmCallOf);
  const isAction = (call: LmCall) => call.text.includes('[[ ## code ## ]]');
  return { root: calls.filter(isAction), sub: calls.filter((call) => !isAction(call)) };
}

/**
 * Which step each sub-LM call belongs to: by time where the calls carry it (a step's calls come
 * after its action call and before the next one's), else in order of the code's call sites.
 */
function subCallsByStep(steps: readonly Step[], root: LmCall[], sub: LmCall[]): LmCall[][] {
  const byStep: LmCall[][] = steps.map(() => []);
  if (sub.length === 0 || steps.length === 0) return byStep;
  const timed = root.length === steps.length && [...root, ...sub].every((c) => c.at !== null);
  if (timed) {
    for (const call of sub) {
      let step = 0;
      while (step + 1 < root.length && (root[step + 1]?.at ?? 0) <= (call.at ?? 0)) step++;
      byStep[step]?.push(call);
    }
    return byStep;
  }
  let next = 0;
  steps.forEach((step, i) => {
    const sites = step.code.match(/\bllm_query\s*\(/g)?.length ?? 0;
    byStep[i]?.push(...sub.slice(next, next + sites));
    next += sites;
  });
  // Batched calls cannot be counted from the code: the rest go with the last step that batches.
  const batching = steps.findLastIndex((step) => /\bllm_query_batched\s*\(/.test(step.code));
  byStep[batching >= 0 ? batching : steps.length - 1]?.push(...sub.slice(next));
  return byStep;
}

function questionOf(record: Record_, prediction: Record_): { question: string; context: string } {
  const inputs = isRecord(prediction.history) ? prediction.history.messages : undefined;
  const firstInputs: unknown = Array.isArray(inputs) ? inputs[0] : undefined;
  const holders = [record, prediction, ...(isRecord(firstInputs) ? [firstInputs] : [])];
  const pick = (keys: readonly string[]) => {
    for (const holder of holders)
      for (const key of keys) if (typeof holder[key] === 'string') return holder[key];
    return '';
  };
  return { question: pick(questionKeys), context: pick(['context', 'document', 'documents']) };
}

/** The output fields: one is the answer itself, several an object; else SUBMIT's printed dict. */
function answerOf(prediction: Record_, steps: readonly Step[]): { answer: unknown } | null {
  const outputs = Object.entries(prediction).filter(([key]) => !notOutputs.has(key));
  if (outputs.length === 1) return { answer: outputs[0]?.[1] };
  if (outputs.length > 1) return { answer: Object.fromEntries(outputs) };
  const submitted = steps.at(-1)?.output;
  return submitted?.startsWith('FINAL: ') ? { answer: submitted.slice('FINAL: '.length) } : null;
}

const replError = (output: string) => {
  const match = /^\[(Error|Type Error)\]\s*([\s\S]*)$/.exec(output);
  return match
    ? { type: match[1] === 'Type Error' ? 'TypeError' : 'Error', message: match[2] ?? '' }
    : null;
};

function convert(record: Record_, prediction: Record_, steps: Step[], id: string, now: number) {
  const { question, context } = questionOf(record, prediction);
  const calls = lmCallsOf(record, prediction);
  const subByStep = subCallsByStep(steps, calls.root, calls.sub);
  const model =
    typeof record.model === 'string' ? record.model : (calls.root[0]?.model ?? 'dspy.RLM');
  const createdAt = parseTimestamp(record.timestamp) ?? calls.root[0]?.at ?? now;
  const b = new RunBuilder(createdAt, {
    runId: id,
    question,
    set: '',
    papers: [],
    model,
    budgets: Budgets.parse({ maxTurns: Math.min(100, Math.max(1, steps.length)) }),
    codeBlocks: 'first',
    prompts: 'dspy',
  });
  b.push({
    kind: 'agent.spawned',
    at: b.at(),
    agentId: '0',
    parentId: null,
    depth: 0,
    prompt: question,
    contextChars: context.length,
  });
  const answer = answerOf(prediction, steps);
  let llm = 0;
  for (const [turn, step] of steps.entries()) {
    const action = calls.root.length === steps.length ? calls.root[turn] : undefined;
    const start = b.at(action?.at);
    const messages = action?.messages.length
      ? action.messages
      : turn === 0 && question
        ? [{ role: 'user' as const, content: question }]
        : [];
    b.push({ kind: 'turn.started', at: start, agentId: '0', turn, messages });
    const fenced = `\`\`\`python\n${step.code}\n\`\`\``;
    b.push({
      kind: 'model.done',
      at: b.at(),
      agentId: '0',
      turn,
      text: step.reasoning ? `${step.reasoning}\n\n${fenced}` : fenced,
      usage: action?.usage ?? { inputTokens: 0, outputTokens: 0 },
      costUsd: action?.costUsd ?? null,
      latencyMs: 0,
      finishReason: 'stop',
    });
    b.push({ kind: 'code.started', at: b.at(), agentId: '0', turn, block: 0, code: step.code });
    for (const call of subByStep[turn] ?? []) {
      const at = b.at(call.at);
      const prompt = call.prompt || (call.messages.at(-1)?.content ?? '');
      b.push({ kind: 'child.call', at, agentId: '0', turn, childId: null, call: 'llm', prompt });
      b.push({
        kind: 'model.done',
        at,
        agentId: '0:llm',
        turn: llm++,
        text: call.text,
        usage: call.usage,
        costUsd: call.costUsd,
        latencyMs: 0,
        finishReason: 'stop',
      });
      b.push({
        kind: 'child.returned',
        at,
        agentId: '0',
        childId: null,
        answer: call.text,
        error: null,
      });
    }
    b.push({
      kind: 'repl.output',
      at: b.at(),
      agentId: '0',
      turn,
      block: 0,
      stdout: step.output,
      stderr: '',
      error: replError(step.output),
      durationMs: 0,
      variables: [],
    });
  }
  if (answer)
    b.push({
      kind: 'final.answer',
      at: b.at(),
      agentId: '0',
      turn: Math.max(0, steps.length - 1),
      answer: answer.answer,
      via: 'FINAL_VAR',
    });
  const forced = prediction.final_reasoning === forcedExtract;
  const events = b.finish(
    answer
      ? { status: 'done', answer: answer.answer, error: null }
      : {
          status: 'interrupted',
          answer: null,
          error: {
            name: 'ImportedRunUnfinishedError',
            message: forced
              ? 'DSPy extracted the outputs after max_iters, but the record keeps no output field'
              : 'the record has no output field and no SUBMIT: the run did not finish',
          },
        },
  );
  return { question, model, createdAt, events };
}

/** Every record (or run of consecutive bare steps) is a run; a malformed one is a line error. */
export function readDspy(
  lines: readonly ParsedLine[],
  newId: () => string,
  now: number,
): FormatReadResult {
  const problems: RunLogLineError[] = [];
  const runs: ImportedRun[] = [];
  const add = (
    record: Record_,
    prediction: Record_,
    list: readonly unknown[],
    line: number,
    key: string,
  ) => {
    const steps = checkSteps(list, key);
    if (typeof steps === 'string') {
      problems.push(new RunLogLineError(line, `a DSPy RLM record whose ${steps}`));
      return;
    }
    const id = newId();
    const run = convert(record, prediction, steps, id, now);
    runs.push({ id, key: `line:${line}`, set: '', parentRunId: null, score: null, ...run });
  };
  let bare: { line: number; steps: unknown[] } | null = null;
  const flushBare = () => {
    if (bare) add({}, {}, bare.steps, bare.line, 'trajectory');
    bare = null;
  };
  for (const { line, value } of lines) {
    if (isDspyStep(value)) {
      bare ??= { line, steps: [] };
      bare.steps.push(value);
      continue;
    }
    flushBare();
    const prediction = isRecord(value) ? predictionOf(value) : null;
    if (!isRecord(value) || !prediction) {
      problems.push(
        new RunLogLineError(
          line,
          'not a DSPy RLM record: no trajectory (or repl_trajectory) of {reasoning, code, output} steps',
        ),
      );
      continue;
    }
    const list = stepsIn(prediction) ?? [];
    const key = trajectoryKeys.find((k) => Array.isArray(prediction[k])) ?? 'history';
    add(value, prediction, list, line, key);
  }
  flushBare();
  return { runs, problems };
}
