// The run part of the contract: a run is an append-only log of these events (persisted as they
// happen, streamed to front ends). The agent tree, timelines and totals are pure functions of it.
import { z } from 'zod';

const at = z.number();
const agentId = z.string().regex(/^0(\.\d+)*$/, "an agent path like '0' or '0.1.2'");
const turn = z.number().int().nonnegative();
/** Who called the model: an agent, or an agent's plain llm_query calls ('0.1:llm', turn = call n). */
const callerId = z.string().regex(/^0(\.\d+)*(:llm)?$/, "an agent path, optionally with ':llm'");

export const JsonValue: z.ZodType = z.unknown();

export const Budgets = z.object({
  maxTurns: z.number().int().min(1).max(100).default(10),
  maxDepth: z.number().int().min(0).max(10).default(2),
  maxChildrenPerCall: z.number().int().min(1).max(64).default(8),
  maxAgents: z.number().int().min(1).max(10_000).default(64),
  maxTokens: z.number().int().min(1).default(2_000_000),
  wallTimeMs: z
    .number()
    .int()
    .min(1)
    .default(30 * 60_000),
  maxInFlightCalls: z.number().int().min(1).max(4096).default(32),
});
export type Budgets = z.infer<typeof Budgets>;

export const CodeBlockPolicy = z.enum(['first', 'last', 'all']);
export type CodeBlockPolicy = z.infer<typeof CodeBlockPolicy>;

export const RunStatus = z.enum(['running', 'done', 'failed', 'canceled', 'interrupted']);
export type RunStatus = z.infer<typeof RunStatus>;

export const ErrorInfo = z.object({ name: z.string(), message: z.string() });

export const Usage = z.object({ inputTokens: z.number().int(), outputTokens: z.number().int() });

export const RunEvent = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('run.started'),
    at,
    runId: z.string(),
    question: z.string(),
    set: z.string(),
    papers: z.array(z.string()),
    model: z.string(),
    budgets: Budgets,
    codeBlocks: CodeBlockPolicy,
    prompts: z.string(),
    forkOf: z.object({ runId: z.string(), agentId, turn }).optional(),
  }),
  z.object({
    kind: z.literal('agent.spawned'),
    at,
    agentId,
    parentId: agentId.nullable(),
    depth: z.number().int(),
    prompt: z.string(),
    contextChars: z.number().int(),
  }),
  z.object({
    kind: z.literal('turn.started'),
    at,
    agentId,
    turn,
    messages: z.array(
      z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() }),
    ),
  }),
  z.object({ kind: z.literal('model.delta'), at, agentId: callerId, turn, text: z.string() }),
  z.object({
    kind: z.literal('model.done'),
    at,
    agentId: callerId,
    turn,
    text: z.string(),
    usage: Usage,
    costUsd: z.number().nullable(),
    latencyMs: z.number(),
    finishReason: z.string(),
  }),
  z.object({
    kind: z.literal('code.started'),
    at,
    agentId,
    turn,
    block: z.number().int(),
    code: z.string(),
  }),
  z.object({
    kind: z.literal('repl.output'),
    at,
    agentId,
    turn,
    block: z.number().int(),
    stdout: z.string(),
    stderr: z.string(),
    error: z.object({ type: z.string(), message: z.string() }).nullable(),
    durationMs: z.number(),
    variables: z.array(z.object({ name: z.string(), type: z.string(), repr: z.string() })),
  }),
  z.object({
    kind: z.literal('child.call'),
    at,
    agentId,
    turn,
    childId: agentId.nullable(),
    call: z.enum(['rlm', 'llm']),
    prompt: z.string(),
  }),
  z.object({
    kind: z.literal('child.returned'),
    at,
    agentId,
    childId: agentId.nullable(),
    answer: JsonValue,
    error: ErrorInfo.nullable(),
  }),
  z.object({
    kind: z.literal('final.answer'),
    at,
    agentId,
    turn,
    answer: JsonValue,
    via: z.enum(['FINAL', 'FINAL_VAR']),
  }),
  z.object({ kind: z.literal('agent.failed'), at, agentId, error: ErrorInfo }),
  z.object({
    kind: z.literal('run.finished'),
    at,
    status: RunStatus.exclude(['running']),
    answer: JsonValue,
    agents: z.number().int(),
    turns: z.number().int(),
    usage: Usage,
    costUsd: z.number().nullable(),
    durationMs: z.number(),
    error: ErrorInfo.nullable(),
  }),
]);
export type RunEvent = z.infer<typeof RunEvent>;
export type RunEventKind = RunEvent['kind'];
export type RunEventOf<K extends RunEventKind> = Extract<RunEvent, { kind: K }>;

export const RunSummary = z.object({
  id: z.string(),
  createdAt: z.number(),
  finishedAt: z.number().nullable(),
  status: RunStatus,
  question: z.string(),
  set: z.string(),
  model: z.string(),
  answer: JsonValue,
  agents: z.number().int(),
  turns: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  costUsd: z.number().nullable(),
  error: ErrorInfo.nullable(),
  parentRunId: z.string().nullable(),
  /** The run's score (0-1) when something scored it: an eval, an imported SkyRL reward. */
  score: z.number().nullable(),
  /** Where the run came from: 'live', 'demo', 'synthetic', or the import format ('ours', 'rlm-log', 'skyrl'). */
  source: z.string(),
});
export type RunSummaryPayload = z.infer<typeof RunSummary>;

/** Filters of the Runs view; every field narrows, none given lists every run. */
export const RunFilter = z
  .object({
    status: z.array(RunStatus).optional(),
    /** Case-insensitive substring of the model spec. */
    model: z.string().max(500).optional(),
    /** The paper set, exactly. */
    set: z.string().max(500).optional(),
    minScore: z.number().optional(),
    maxScore: z.number().optional(),
    /** Wall time of finished runs, finished_at - created_at. */
    minDurationMs: z.number().optional(),
    maxDurationMs: z.number().optional(),
    /** Created at or after / before (ms since the epoch). */
    from: z.number().optional(),
    to: z.number().optional(),
    /** Case-insensitive substring of the question, the answer, the model or the run id. */
    text: z.string().max(500).optional(),
    source: z.string().max(100).optional(),
    parentRunId: z.string().optional(),
    limit: z.number().int().min(1).max(100_000).optional(),
  })
  .strict();
export type RunFilter = z.infer<typeof RunFilter>;

export const RunLogFormat = z.enum(['ours', 'rlm-log', 'skyrl', 'dspy', 'nano-rlm']);
export const RunLogFormatChoice = z.enum(['auto', ...RunLogFormat.options]);

/** A line that could not be read (in a folder: which file). */
const RunLogProblem = z.object({
  line: z.number().int(),
  file: z.string().optional(),
  name: z.string(),
  message: z.string(),
});

/** A log being followed as another tool writes it (runs.follow). */
export const FollowState = z.object({
  followId: z.string(),
  path: z.string(),
  state: z.enum(['following', 'ended']),
  /** Why it ended: 'answered' (every run gave its answer), 'idle', 'stopped', or an error. */
  ended: z.string().nullable(),
  runs: z.array(
    z.object({
      runId: z.string(),
      source: z.string(),
      format: RunLogFormat,
      question: z.string(),
      status: RunStatus,
      events: z.number().int(),
    }),
  ),
  problems: z.array(RunLogProblem),
});
export type FollowStatePayload = z.infer<typeof FollowState>;

export const ImportReport = z.object({
  format: RunLogFormat,
  runs: z.array(
    z.object({
      runId: z.string(),
      question: z.string(),
      model: z.string(),
      status: z.string(),
      agents: z.number().int(),
      turns: z.number().int(),
      /** The id the file gave the run when that id was taken in this workspace. */
      renamedFrom: z.string().nullable(),
    }),
  ),
  problems: z.array(RunLogProblem),
});

export const runCommands = {
  'runs.start': {
    summary: 'Starts an RLM run over a paper set; its events stream as runs.event.',
    request: z
      .object({
        set: z.string().min(1),
        question: z.string().min(1).max(20_000),
        model: z.string().min(1),
        budgets: Budgets.partial().optional(),
        codeBlocks: CodeBlockPolicy.optional(),
        prompts: z.enum(['long', 'short']).optional(),
      })
      .strict(),
    response: z.object({ runId: z.string() }),
  },
  'runs.cancel': {
    summary: 'Cancels a running run (every agent, in-flight calls, the REPL).',
    request: z.object({ runId: z.string() }).strict(),
    response: z.object({ canceled: z.boolean() }),
  },
  'runs.list': {
    summary: 'The runs of the workspace that pass the filters, newest first.',
    request: RunFilter,
    response: z.object({ runs: z.array(RunSummary) }),
  },
  'runs.events': {
    summary: "A run's whole event log.",
    request: z.object({ runId: z.string() }).strict(),
    response: z.object({ run: RunSummary, events: z.array(RunEvent) }),
  },
  'runs.fork': {
    summary:
      "Forks a stored run at an agent's turn with edited code (or response): earlier turns are rebuilt from the log, the model runs live after the fork; a new run linked to its parent.",
    request: z
      .object({
        runId: z.string(),
        agentId,
        turn,
        code: z.string().optional(),
        response: z.string().optional(),
        /** The live model after the fork point; default the parent's. */
        model: z.string().min(1).optional(),
      })
      .strict()
      .refine((value) => value.code !== undefined || value.response !== undefined, {
        error: 'give code or response',
        path: ['code'],
      }),
    response: z.object({ runId: z.string() }),
  },
  'runs.synthetic': {
    summary:
      'Creates a synthetic run (default 512 agents, 5,000 turns; for benchmarks and demos): stored at once, or live, its events streamed as runs.event at eventsPerSecond.',
    request: z
      .object({
        agents: z.number().int().min(1).max(10_000).default(512),
        turns: z.number().int().min(1).max(1_000_000).default(5000),
        seed: z.number().int().default(1),
        live: z.boolean().default(false),
        eventsPerSecond: z.number().min(1).max(100_000).default(100),
      })
      .strict(),
    response: z.object({ runId: z.string(), events: z.number().int() }),
  },
  'runs.delete': {
    summary: 'Deletes a finished run and its events (a running run must be canceled first).',
    request: z.object({ runId: z.string() }).strict(),
    response: z.object({ deleted: z.boolean() }),
  },
  'runs.export': {
    summary:
      'Runs as JSON lines (per run a header with its summary, then its events), as rlm-studio import reads them.',
    request: z.object({ runIds: z.array(z.string()).min(1).max(10_000) }).strict(),
    response: z.object({ text: z.string(), fileName: z.string() }),
  },
  'runs.import': {
    summary:
      'Imports a run log (our export, an alexzhang13/rlm log or a SkyRL eval dump); bad lines are reported, the rest imports.',
    request: z
      .object({
        text: z.string().min(1),
        format: RunLogFormatChoice.default('auto'),
        /** The file name, for messages. */
        name: z.string().max(500).optional(),
      })
      .strict(),
    response: ImportReport,
  },
  'runs.importPath': {
    summary:
      'Imports every log at a path the engine can read: a file, a nano-rlm session folder, a folder of sessions or of log files.',
    request: z
      .object({ path: z.string().min(1).max(4096), format: RunLogFormatChoice.default('auto') })
      .strict(),
    response: z.object({
      path: z.string(),
      logs: z.array(ImportReport.extend({ source: z.string() })),
      failures: z.array(z.object({ source: z.string(), name: z.string(), message: z.string() })),
    }),
  },
  'runs.follow': {
    summary:
      'Follows a log another tool is still writing (an rlm JSONL, a nano-rlm session folder, a folder of them): its runs grow live as runs.event; the follow ends at the final answers, when the files stay quiet for idleSeconds, or at runs.unfollow.',
    request: z
      .object({
        path: z.string().min(1).max(4096),
        format: RunLogFormatChoice.default('auto'),
        idleSeconds: z.number().min(0.1).max(86_400).default(60),
      })
      .strict(),
    response: FollowState,
  },
  'runs.follows': {
    summary: 'The logs followed since the engine started, ongoing and ended.',
    request: z.object({}).strict(),
    response: z.object({ follows: z.array(FollowState) }),
  },
  'runs.unfollow': {
    summary: 'Stops following a log; its runs still open end interrupted.',
    request: z.object({ followId: z.string() }).strict(),
    response: FollowState,
  },
} as const;

export const runEvents = [
  z.object({
    kind: z.literal('runs.event'),
    at: z.number(),
    runId: z.string(),
    /**
     * The event's index in the run's log. A view opening a live run subscribes first, then reads
     * runs.events (n events) and applies the streamed events with seq >= n: none lost, none twice.
     */
    seq: z.number().int().optional(),
    event: RunEvent,
  }),
  /** A followed log changed: a run appeared, grew, ended, or the follow ended. */
  z.object({ kind: z.literal('runs.followChanged'), at: z.number(), follow: FollowState }),
  /** Runs appeared or went away without a live run's events: imports, deletes, the demo run. */
  z.object({
    kind: z.literal('runs.changed'),
    at: z.number(),
    change: z.enum(['imported', 'deleted', 'created']),
    runIds: z.array(z.string()),
  }),
] as const;
