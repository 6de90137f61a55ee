// The Provider interface: how the RLM loop, the judge and llm_query talk to a model, whatever
// serves it (an OpenAI-compatible server, Anthropic, a script, a stored run, a local model).
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface CompletionRequest {
  messages: ChatMessage[];
  /** Which agent asks (tree path like '0.1'); scripted and replay providers answer by it. */
  agentId: string;
  /** Which turn of that agent (0-based); scripted and replay providers answer by it. */
  turn: number;
  temperature?: number;
  maxTokens?: number;
  /** Sampling seed, for providers that take one (local models): the same seed, the same reply. */
  seed?: number;
  stop?: string[];
  signal?: AbortSignal;
  /** Streamed text as it arrives. */
  onDelta?: (text: string) => void;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** True when the server sent no counts and these are a chars/4 estimate. */
  estimated?: boolean;
}

export interface Completion {
  text: string;
  usage: TokenUsage;
  /** USD, when the provider knows its prices; null otherwise. */
  costUsd: number | null;
  model: string;
  finishReason: 'stop' | 'length' | 'other';
  latencyMs: number;
}

export interface Provider {
  /** The spec it was made from, e.g. 'openai:gpt-4o-mini' or 'scripted:demo.json'. */
  readonly spec: string;
  complete(request: CompletionRequest): Promise<Completion>;
}
