// One agent's turn loop (RLM-SPEC section 3): call the model, run its code, stop at a final
// answer. The turn prompt is rewritten every turn (history keeps only code and output pairs), so
// turns share no prefix: what step-wise training expects.
import type { ChatMessage } from '../models/provider.ts';
import type { ExecutionResult } from '../repl/types.ts';
import { parseAnswerLiteral, type Literal } from './literal.ts';
import { parseResponse } from './response.ts';
import { TurnBudgetExceededError } from './errors.ts';
import { formatCount } from './prompts.ts';
import type { RunContext } from './run-context.ts';

export const defaultOutputLimit = 20_000;

export interface AgentSpec {
  id: string;
  parentId: string | null;
  depth: number;
  /** The question (root) or the sub-question (child). */
  prompt: string;
  context: string | Record<string, string>;
}

export function truncateOutput(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = text.length - limit;
  return `${text.slice(0, limit)}\n[... ${formatCount(cut)} more characters cut: print smaller slices]`;
}

export function formatExecution(result: ExecutionResult): string {
  const parts: string[] = [];
  if (result.stdout.length > 0) parts.push(result.stdout.trimEnd());
  if (result.stderr.length > 0) parts.push(result.stderr.trimEnd());
  if (result.error && !result.stderr.includes(result.error.type))
    parts.push(`${result.error.type}: ${result.error.message}`);
  return parts.length > 0 ? parts.join('\n') : '(no output)';
}

function describeContext(context: AgentSpec['context']): string {
  if (typeof context === 'string') {
    return `Your context is a string of ${formatCount(context.length)} characters.`;
  }
  const entries = Object.entries(context);
  const total = entries.reduce((sum, [, text]) => sum + text.length, 0);
  const sizes = entries.map(([id, text]) => `${id}: ${formatCount(text.length)}`).join(', ');
  return `Your context is a dict of ${entries.length} papers, ${formatCount(total)} characters in total (characters per paper: ${sizes}).`;
}

function turnPrompt(agent: AgentSpec, turn: number, maxTurns: number): string {
  const head = agent.parentId === null ? `Question: ${agent.prompt}` : `Your task: ${agent.prompt}`;
  const last = turn === maxTurns - 1;
  const next = last
    ? 'This is your LAST turn: end now with FINAL_VAR(...) or a final FINAL(...) line.'
    : 'Write your next ```repl block, or finish with FINAL_VAR(...).';
  // The question last, next to where the answer starts: small models read what is near.
  return `Turn ${turn + 1} of ${maxTurns}. ${next}\n\n${head}`;
}

/**
 * The value of FINAL(...): a literal as written; an expression over the agent's variables
 * (`FINAL(evidence)`, `FINAL([first, second])`) evaluated in its REPL; else the text itself.
 */
async function finalValue(run: RunContext, agentId: string, text: string): Promise<Literal> {
  const literal = parseAnswerLiteral(text);
  const expression = text.trim();
  if (literal !== expression || !/^[A-Za-z_[(]/.test(expression) || expression.includes('\n'))
    return literal;
  // Wrapped in a list so a string value is the answer, not a variable name for FINAL_VAR.
  const result = await run.execute(agentId, `FINAL_VAR([${expression}])`);
  const value = result.final && result.error === null ? result.final.value : null;
  return Array.isArray(value) && value.length === 1 ? (value[0] as Literal) : literal;
}

/**
 * A turn's code blocks in order, each's output recorded; stops at the first that calls FINAL_VAR
 * (the blocks after it do not run).
 */
async function runBlocks(
  run: RunContext,
  agentId: string,
  turn: number,
  blocks: readonly string[],
): Promise<{ outputs: string[]; final: { value: Literal } | null }> {
  const outputs: string[] = [];
  for (const [block, code] of blocks.entries()) {
    run.emit({ kind: 'code.started', at: Date.now(), agentId, turn, block, code });
    const result = await run.execute(agentId, code);
    run.emit({
      kind: 'repl.output',
      at: Date.now(),
      agentId,
      turn,
      block,
      stdout: result.stdout,
      stderr: result.stderr,
      error: result.error,
      durationMs: result.durationMs,
      variables: result.variables,
    });
    outputs.push(formatExecution(result));
    if (result.final) return { outputs, final: { value: result.final.value } };
  }
  return { outputs, final: null };
}

export async function runAgentLoop(run: RunContext, agent: AgentSpec): Promise<Literal> {
  const { budgets } = run;
  const system = run.systemPrompt(agent);
  const opening: ChatMessage = { role: 'user', content: describeContext(agent.context) };
  const history: ChatMessage[] = [];
  for (let turn = 0; turn < budgets.maxTurns; turn++) {
    run.checkAlive();
    run.setTurn(agent.id, turn);
    const messages: ChatMessage[] = [
      { role: 'system', content: system },
      opening,
      ...history,
      { role: 'user', content: turnPrompt(agent, turn, budgets.maxTurns) },
    ];
    run.emit({ kind: 'turn.started', at: Date.now(), agentId: agent.id, turn, messages });
    const completion = await run.complete(agent.id, turn, messages);
    const parsed = parseResponse(completion.text, run.codeBlocks);
    if (parsed.toRun.length === 0 && parsed.final === null) {
      history.push(
        { role: 'assistant', content: completion.text },
        {
          role: 'user',
          content:
            'Your reply had no ```repl code block and no final answer. Write code in a ```repl block, or end with FINAL(...) as the last line.',
        },
      );
      continue;
    }
    const { outputs, final } = await runBlocks(run, agent.id, turn, parsed.toRun);
    if (final) {
      const answer = final.value;
      run.emit({
        kind: 'final.answer',
        at: Date.now(),
        agentId: agent.id,
        turn,
        answer,
        via: 'FINAL_VAR',
      });
      return answer;
    }
    if (parsed.final !== null) {
      const answer = await finalValue(run, agent.id, parsed.final);
      run.emit({
        kind: 'final.answer',
        at: Date.now(),
        agentId: agent.id,
        turn,
        answer,
        via: 'FINAL',
      });
      return answer;
    }
    const codeShown = parsed.toRun.map((code) => '```repl\n' + code.trimEnd() + '\n```').join('\n');
    history.push(
      { role: 'assistant', content: codeShown },
      {
        role: 'user',
        content: `REPL output:\n${truncateOutput(outputs.join('\n'), run.outputLimit)}`,
      },
    );
  }
  throw new TurnBudgetExceededError(agent.id, budgets.maxTurns);
}
