// SkyRL eval dumps (RLM-SPEC section 6) -> runs. Each row is one model step
// {input_prompt, output_response, score, stop_reason, env_class, env_extras, data_source}. Rows
// that carry `rlm_metadata` {trajectory_id, depth, child_index, step_index} (top level, in
// env_metrics or in env_extras) are grouped into one run per trajectory: depth 0 steps are the
// root's turns, depth 1 steps with child_index k the turns of child 0.k. A row without it is a
// run of one turn. The dump keeps no REPL output and no spawn point: children are attached to the
// first root turn whose code calls rlm_query (else the last), code blocks are read from the
// response, and their output is left empty. Aggregated-metrics lines are skipped.
import { Budgets, type RunEvent } from '../../api/index.ts';
import { parseResponse } from '../../rlm/index.ts';
import { RunLogLineError } from './errors.ts';
import { RunBuilder, textOf } from './run-builder.ts';
import {
  isRecord,
  type FormatReadResult,
  type ImportedRun,
  type ParsedLine,
  type Record_,
} from './types.ts';

interface Step {
  line: number;
  row: Record_;
  trajectoryId: string | null;
  depth: number;
  childIndex: number | null;
  stepIndex: number;
  meta: Record_;
}

function metadataOf(row: Record_): Record_ | null {
  for (const holder of [row, row.env_metrics, row.env_extras, row.metrics]) {
    if (isRecord(holder) && isRecord(holder.rlm_metadata)) return holder.rlm_metadata;
  }
  return null;
}

/** The question: the last user turn of a chat-templated prompt, else the prompt itself. */
export function lastUserMessage(prompt: string): string {
  const patterns = [
    /<\|im_start\|>user\n([\s\S]*?)<\|im_end\|>/g,
    /<\|start_header_id\|>user<\|end_header_id\|>\n\n([\s\S]*?)<\|eot_id\|>/g,
  ];
  for (const pattern of patterns) {
    const matches = [...prompt.matchAll(pattern)];
    const last = matches.at(-1)?.[1];
    if (last !== undefined) return last.trim();
  }
  return prompt.trim();
}

function isMetricsLine(row: Record_): boolean {
  const keys = Object.keys(row);
  return keys.length > 0 && keys.every((key) => key.includes('/')) && !('input_prompt' in row);
}

function stepOf(line: number, row: Record_): Step {
  const meta = metadataOf(row) ?? {};
  const trajectory = meta.trajectory_id;
  return {
    line,
    row,
    trajectoryId:
      typeof trajectory === 'string' || typeof trajectory === 'number' ? String(trajectory) : null,
    depth: typeof meta.depth === 'number' ? meta.depth : 0,
    childIndex: typeof meta.child_index === 'number' ? meta.child_index : null,
    stepIndex: typeof meta.step_index === 'number' ? meta.step_index : 0,
    meta,
  };
}

function emitTurn(b: RunBuilder, agentId: string, turn: number, step: Step): string {
  const prompt = textOf(step.row.input_prompt);
  const response = textOf(step.row.output_response);
  const at = b.at();
  b.push({
    kind: 'turn.started',
    at,
    agentId,
    turn,
    messages: [{ role: 'user', content: prompt }],
  });
  b.push({
    kind: 'model.done',
    at,
    agentId,
    turn,
    text: response,
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: null,
    latencyMs: 0,
    finishReason: typeof step.row.stop_reason === 'string' ? step.row.stop_reason : 'unknown',
  });
  for (const [block, code] of parseResponse(response, 'all').blocks.entries())
    b.push({ kind: 'code.started', at, agentId, turn, block, code });
  return response;
}

/** A reward: a number, or token-level rewards (a list) summed as SkyRL does. */
function scoreOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'number'))
    return value.reduce((sum, item) => sum + item, 0);
  return null;
}

function convert(steps: Step[], id: string, createdAt: number): ImportedRun {
  const roots = steps.filter((step) => step.depth === 0).sort((a, b) => a.stepIndex - b.stepIndex);
  const children = new Map<number, Step[]>();
  for (const step of steps)
    if (step.depth > 0) {
      const index = step.childIndex ?? 0;
      children.set(index, [...(children.get(index) ?? []), step]);
    }
  const row = (roots[0] ?? steps[0])?.row ?? {};
  const question = questionOf(row);
  const set = typeof row.data_source === 'string' ? row.data_source : '';
  const model = `skyrl:${typeof row.env_class === 'string' ? row.env_class : 'unknown'}`;
  const last = roots.at(-1) ?? steps.at(-1);
  const score = scoreOf(last?.row.score);
  const b = new RunBuilder(createdAt, {
    runId: id,
    question,
    set,
    papers: [],
    model,
    budgets: Budgets.parse({}),
    codeBlocks: 'all',
    prompts: 'skyrl',
  });
  b.push({
    kind: 'agent.spawned',
    at: createdAt,
    agentId: '0',
    parentId: null,
    depth: 0,
    prompt: question,
    contextChars: 0,
  });
  // The children hang off the root turn that called rlm_query (else its first turn).
  const spawnTurn = Math.max(
    0,
    roots.findIndex((step) => textOf(step.row.output_response).includes('rlm_query')),
  );
  for (const [turn, step] of roots.entries()) {
    emitTurn(b, '0', turn, step);
    if (turn !== spawnTurn) continue;
    for (const [index, childSteps] of [...children.entries()].sort((x, y) => x[0] - y[0]))
      emitChild(b, turn, `0.${index}`, childSteps);
  }
  const finalAnswer = last?.meta.final_answer ?? null;
  if (finalAnswer !== null && roots.length > 0)
    b.push({
      kind: 'final.answer',
      at: b.at(),
      agentId: '0',
      turn: roots.length - 1,
      answer: finalAnswer,
      via: 'FINAL_VAR',
    });
  const stop = typeof last?.row.stop_reason === 'string' ? last.row.stop_reason : null;
  const events: RunEvent[] = b.finish(
    finalAnswer !== null || stop === 'stop' || stop === null
      ? { status: 'done', answer: finalAnswer, error: null }
      : {
          status: 'failed',
          answer: null,
          error: { name: 'SkyRlStopError', message: `the rollout stopped: ${stop}` },
        },
  );
  return { id, question, set, model, createdAt, parentRunId: null, score, events };
}

/** The question: from env_extras (or its extra_info), else the prompt's last user message. */
function questionOf(row: Record_): string {
  const extras = isRecord(row.env_extras) ? row.env_extras : {};
  const extraInfo = isRecord(extras.extra_info) ? extras.extra_info : {};
  if (typeof extras.question === 'string') return extras.question;
  if (typeof extraInfo.question === 'string') return extraInfo.question;
  return lastUserMessage(textOf(row.input_prompt)).slice(0, 4000);
}

/** One child of the root: called, spawned, its turns, its answer, returned. */
function emitChild(b: RunBuilder, turn: number, childId: string, childSteps: Step[]): void {
  childSteps.sort((x, y) => x.stepIndex - y.stepIndex);
  const prompt = lastUserMessage(textOf(childSteps[0]?.row.input_prompt)).slice(0, 4000);
  b.push({ kind: 'child.call', at: b.at(), agentId: '0', turn, childId, call: 'rlm', prompt });
  b.push({
    kind: 'agent.spawned',
    at: b.at(),
    agentId: childId,
    parentId: '0',
    depth: 1,
    prompt,
    contextChars: 0,
  });
  let response = '';
  for (const [childTurn, childStep] of childSteps.entries())
    response = emitTurn(b, childId, childTurn, childStep);
  const answer = parseResponse(response, 'all').final ?? response;
  b.push({
    kind: 'final.answer',
    at: b.at(),
    agentId: childId,
    turn: childSteps.length - 1,
    answer,
    via: 'FINAL',
  });
  b.push({ kind: 'child.returned', at: b.at(), agentId: '0', childId, answer, error: null });
}

export function readSkyRl(
  lines: readonly ParsedLine[],
  newId: () => string,
  createdAt: number,
): FormatReadResult {
  const problems: RunLogLineError[] = [];
  const groups = new Map<string, Step[]>();
  const order: Step[][] = [];
  for (const { line, value } of lines) {
    if (!isRecord(value)) {
      problems.push(new RunLogLineError(line, 'not a JSON object'));
      continue;
    }
    if (isMetricsLine(value)) continue;
    if (typeof value.input_prompt !== 'string' || typeof value.output_response !== 'string') {
      problems.push(
        new RunLogLineError(line, "a row without 'input_prompt' and 'output_response' strings"),
      );
      continue;
    }
    const step = stepOf(line, value);
    const existing = step.trajectoryId !== null ? groups.get(step.trajectoryId) : undefined;
    if (existing) existing.push(step);
    else {
      const group = [step];
      if (step.trajectoryId !== null) groups.set(step.trajectoryId, group);
      order.push(group);
    }
  }
  // Runs of one dump share its import time; a millisecond apart keeps them in file order.
  return {
    runs: order.map((group, index) => convert(group, newId(), createdAt + index)),
    problems,
  };
}
