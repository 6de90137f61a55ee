// The agent loop and run orchestration against a JSON-command stand-in REPL and a scripted model:
// ids in spawn order, budgets with their named errors, FINAL rules, cancellation, the event log.
import { describe, expect, it } from 'vitest';
import { Budgets, type RunEvent } from '../api/index.ts';
import type { Completion, CompletionRequest, Provider } from '../models/provider.ts';
import type { ReplCallbacks } from '../repl/types.ts';
import { fakeSandbox } from './fake-sandbox.test-support.ts';
import { RlmRun, type RunOptions } from './run.ts';
import { foldRun } from '../run-log/index.ts';

const repl = (command: unknown) => '```repl\n' + JSON.stringify(command) + '\n```';

/** A model that answers by agent id and turn; a function may build the answer from the request. */
function script(
  responses: Record<
    string,
    (string | ((request: CompletionRequest) => Promise<string> | string))[]
  >,
): Provider & { requests: CompletionRequest[] } {
  const requests: CompletionRequest[] = [];
  return {
    spec: 'test:script',
    requests,
    async complete(request): Promise<Completion> {
      requests.push(request);
      const entry = responses[request.agentId]?.[request.turn];
      if (entry === undefined)
        throw new Error(`no scripted response for ${request.agentId} turn ${request.turn}`);
      const text = typeof entry === 'string' ? entry : await entry(request);
      request.onDelta?.(text);
      return {
        text,
        usage: { inputTokens: 10, outputTokens: 5 },
        costUsd: 0.001,
        model: 'test',
        finishReason: 'stop',
        latencyMs: 0,
      };
    },
  };
}

async function runWith(
  provider: Provider,
  budgets: Partial<Budgets> = {},
  extra: Partial<RunOptions> = {},
  wrapSandbox: (sandbox: ReturnType<typeof fakeSandbox>) => RunOptions['sandbox'] = (s) => s,
) {
  const events: RunEvent[] = [];
  const holder: { run?: RlmRun } = {};
  const target = (key: string) => {
    if (!holder.run) throw new Error('the run is not started');
    return { run: holder.run, agentId: key.split('/')[1] ?? '' };
  };
  const callbacks: ReplCallbacks = {
    rlmQuery: (key, prompt, context) =>
      target(key).run.rlmQuery(target(key).agentId, prompt, context),
    rlmQueryBatched: (key, prompts, contexts) =>
      target(key).run.rlmQueryBatched(target(key).agentId, prompts, contexts),
    llmQuery: (key, prompt) => target(key).run.llmQuery(target(key).agentId, prompt),
    llmQueryBatched: (key, prompts) =>
      Promise.all(prompts.map((p) => target(key).run.llmQuery(target(key).agentId, p))),
  };
  const sandbox = fakeSandbox(callbacks);
  const run = new RlmRun({
    runId: 'r1',
    question: 'Which dataset?',
    set: 'demo',
    papers: { p1: '### PAPER: One\n\ntext one', p2: '### PAPER: Two\n\ntext two' },
    provider,
    sandbox: wrapSandbox(sandbox),
    budgets: Budgets.parse(budgets),
    emit: (event) => events.push(event),
    ...extra,
  });
  holder.run = run;
  const outcome = await run.start();
  return { outcome, events, view: foldRun(events), sandbox, run };
}

describe('RlmRun', () => {
  it('spawns batched children in list order, grandchildren below them, and returns the root answer', async () => {
    const provider = script({
      '0': [
        repl({ batched: ['read p1', 'read p2', 'read p3'], keep: 'parts' }),
        repl({ finalVar: 'parts' }),
      ],
      '0.0': [repl({ final: ['span one'] })],
      '0.1': [repl({ rlm: 'deeper', keep: 'deep' }), repl({ finalVar: 'deep' })],
      '0.1.0': ['Found it.\nFINAL(["deep span"])'],
      '0.2': [repl({ final: 'three' })],
    });
    const { outcome, events, view } = await runWith(provider);
    expect(outcome).toEqual({
      status: 'done',
      answer: [['span one'], ['deep span'], 'three'],
      error: null,
    });
    const spawned = events.filter((e) => e.kind === 'agent.spawned').map((e) => e.agentId);
    expect(spawned.slice(0, 4)).toEqual(['0', '0.0', '0.1', '0.2']);
    expect(spawned).toContain('0.1.0');
    expect(view.agents.get('0.1')?.children).toEqual(['0.1.0']);
    expect([...view.agents.values()].every((node) => node.state === 'done')).toBe(true);
    expect(events.at(-1)).toMatchObject({ kind: 'run.finished', status: 'done', agents: 5 });
    expect(view.inputTokens).toBe(10 * provider.requests.length);
  });

  it('fails the agent with the REPL error when its namespace cannot be created, and creates it while the first model call runs', async () => {
    const order: string[] = [];
    const provider = script({
      '0': [
        () => {
          order.push('model 0');
          return repl({ print: 'hi' });
        },
      ],
    });
    const { outcome, events } = await runWith(provider, {}, {}, (sandbox) => ({
      ...sandbox,
      createAgent: async () => {
        order.push('create started');
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('namespace refused');
      },
    }));
    expect(order).toEqual(['create started', 'model 0']);
    expect(outcome).toMatchObject({ status: 'failed', error: { message: 'namespace refused' } });
    expect(events.filter((e) => e.kind === 'repl.output')).toHaveLength(0);
    expect(events.find((e) => e.kind === 'agent.failed')).toMatchObject({ agentId: '0' });
  });

  it('ends only on FINAL as the last line outside code, and treats FINAL_VAR of a missing variable as an error', async () => {
    const provider = script({
      '0': [
        'I might write FINAL(["x"]) later.\nNot yet.\n' + repl({ finalVar: 'nothing' }),
        'Done.\nFINAL([\'a\', "b"])',
      ],
    });
    const { outcome, events } = await runWith(provider);
    expect(outcome.answer).toEqual(['a', 'b']);
    const output = events.find((e) => e.kind === 'repl.output');
    expect(output).toMatchObject({
      stderr: expect.stringContaining("no variable 'nothing'") as unknown,
    });
    expect(events.filter((e) => e.kind === 'turn.started')).toHaveLength(2);
  });

  it('asks for a code block when a reply has none, and rewrites the turn prompt each turn', async () => {
    const provider = script({
      '0': ['Let me think.', repl({ print: 'hello' }), repl({ final: 1 })],
    });
    await runWith(provider);
    const second = provider.requests[1]?.messages ?? [];
    expect(second.some((m) => m.content.includes('no ```repl code block'))).toBe(true);
    const third = provider.requests[2]?.messages ?? [];
    expect(third.filter((m) => m.content.includes('Turn 1 of'))).toHaveLength(0);
    expect(third.at(-1)?.content).toContain('Turn 3 of 10');
    expect(
      third.some((m) => m.role === 'user' && m.content.startsWith('REPL output:\nhello')),
    ).toBe(true);
  });

  it('cuts long REPL output in the next prompt and says how much', async () => {
    const provider = script({ '0': [repl({ print: 'x'.repeat(500) }), repl({ final: 'ok' })] });
    await runWith(provider, {}, { outputLimit: 100 });
    const prompt =
      provider.requests[1]?.messages.find((m) => m.content.startsWith('REPL output:'))?.content ??
      '';
    expect(prompt).toContain('more characters cut');
    expect(prompt.length).toBeLessThan(250);
  });

  it('fails the run when the root runs out of turns', async () => {
    const provider = script({ '0': [repl({ print: 'a' }), repl({ print: 'b' })] });
    const { outcome, view } = await runWith(provider, { maxTurns: 2 });
    expect(outcome.status).toBe('failed');
    expect(outcome.error?.name).toBe('TurnBudgetExceededError');
    expect(view.agents.get('0')?.state).toBe('failed');
  });

  it('refuses children past the depth, per-call and agent budgets with named errors the agent sees', async () => {
    const depth = await runWith(script({ '0': [repl({ rlm: 'x' }), repl({ final: 'went on' })] }), {
      maxDepth: 0,
    });
    expect(depth.outcome.answer).toBe('went on');
    expect(depth.events.find((e) => e.kind === 'repl.output')).toMatchObject({
      stderr: expect.stringContaining('DepthBudgetExceededError') as unknown,
    });
    const wide = await runWith(
      script({ '0': [repl({ batched: ['a', 'b', 'c'] }), repl({ final: 1 })] }),
      { maxChildrenPerCall: 2 },
    );
    expect(wide.events.find((e) => e.kind === 'repl.output')).toMatchObject({
      stderr: expect.stringContaining('ChildrenBudgetExceededError') as unknown,
    });
    const many = await runWith(
      script({ '0': [repl({ batched: ['a', 'b'] }), repl({ final: 1 })] }),
      { maxAgents: 2 },
    );
    expect(many.events.find((e) => e.kind === 'repl.output')).toMatchObject({
      stderr: expect.stringContaining('AgentBudgetExceededError') as unknown,
    });
  });

  it('puts a failed child as an error string in its slot of a batched call', async () => {
    const provider = script({
      '0': [repl({ batched: ['ok', 'fails'], keep: 'parts' }), repl({ finalVar: 'parts' })],
      '0.0': [repl({ final: 'fine' })],
      '0.1': [repl({ print: 'never finishes' }), repl({ print: 'still not' })],
    });
    const { outcome } = await runWith(provider, { maxTurns: 2 });
    expect(outcome.answer).toEqual([
      'fine',
      expect.stringMatching(/^Error: TurnBudgetExceededError/),
    ]);
  });

  it('stops the run at its token budget', async () => {
    const provider = script({
      '0': [repl({ print: 'a' }), repl({ print: 'b' }), repl({ final: 1 })],
    });
    const { outcome } = await runWith(provider, { maxTokens: 20 });
    expect(outcome.status).toBe('failed');
    expect(outcome.error?.name).toBe('TokenBudgetExceededError');
  });

  it('cancels every agent and aborts in-flight model calls', async () => {
    const controller = new AbortController();
    let aborted = false;
    const provider = script({
      '0': [repl({ batched: ['a', 'b'] })],
      '0.0': [
        (request) =>
          new Promise<string>((_resolve, reject) =>
            request.signal?.addEventListener('abort', () => {
              aborted = true;
              reject(new Error('aborted'));
            }),
          ),
      ],
      '0.1': [
        (request) => {
          setTimeout(() => {
            controller.abort();
          }, 10);
          return new Promise<string>((_resolve, reject) =>
            request.signal?.addEventListener('abort', () => {
              reject(new Error('aborted'));
            }),
          );
        },
      ],
    });
    const { outcome, events } = await runWith(provider, {}, { signal: controller.signal });
    expect(outcome.status).toBe('canceled');
    expect(aborted).toBe(true);
    expect(events.at(-1)).toMatchObject({ kind: 'run.finished', status: 'canceled' });
  });

  it('folds the same view from the log whether applied live or at once', async () => {
    const provider = script({
      '0': [repl({ rlm: 'sub', keep: 'x' }), repl({ finalVar: 'x' })],
      '0.0': ['FINAL("leaf")'],
    });
    const { events, view } = await runWith(provider);
    const replayed = foldRun(JSON.parse(JSON.stringify(events)) as RunEvent[]);
    expect([...replayed.agents.keys()]).toEqual([...view.agents.keys()]);
    expect(replayed.answer).toEqual('leaf');
    expect(replayed.agents.get('0')?.turns[0]?.children).toEqual([
      { childId: '0.0', call: 'rlm', prompt: 'sub' },
    ]);
  });
});
