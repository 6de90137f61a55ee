// Chat completions, streamed, for any OpenAI-compatible server (OpenAI, vLLM, SGLang, Ollama,
// LM Studio), over the lean client of sse-client.ts rather than the openai SDK: the SDK costs about
// six times the CPU per call, which 512 concurrent agents cannot afford. The chunk types are the
// SDK's, so the wire format stays the documented one. retry.ts owns retries, timeouts and
// cancellation, so both HTTP providers back off, time out and cancel the same way.
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import {
  completeWithRetries,
  deliverDelta,
  resolveHttpOptions,
  type HttpProviderOptions,
  type ResolvedHttpOptions,
  type StreamedAnswer,
} from './http-options.ts';
import type { Completion, CompletionRequest, Provider } from './provider.ts';
import type { AttemptProgress } from './retry.ts';
import type { SdkErrorClasses } from './sdk-failure.ts';
import {
  SseAbortError,
  SseClient,
  SseConnectionError,
  SseStatusError,
  SseTimeoutError,
} from './sse-client.ts';

const SSE_ERRORS: SdkErrorClasses = {
  APIError: SseStatusError,
  APIConnectionError: SseConnectionError,
  APIConnectionTimeoutError: SseTimeoutError,
  APIUserAbortError: SseAbortError,
};

/** Sent to servers that need no key: vLLM's convention is 'EMPTY'. */
const NO_KEY = 'EMPTY';

export interface OpenAICompatibleOptions extends HttpProviderOptions {
  /**
   * OpenAI's newer models take `max_completion_tokens` and refuse `max_tokens`; most self-hosted
   * servers know only `max_tokens`. Defaults to 'max_tokens'.
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens' | undefined;
}

export class OpenAICompatibleProvider implements Provider {
  readonly spec: string;
  private readonly options: ResolvedHttpOptions;
  private readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';
  private readonly client = new SseClient();
  private readonly endpoint: string;
  private readonly headers: Record<string, string>;

  constructor(options: OpenAICompatibleOptions) {
    this.options = resolveHttpOptions(options, {
      spec: `openai-compatible:${options.model}@${options.baseUrl}`,
      keySource: 'the API key set for this endpoint in Settings > Models',
    });
    this.spec = this.options.spec;
    this.maxTokensField = options.maxTokensField ?? 'max_tokens';
    this.endpoint = `${this.options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.headers = {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: `Bearer ${this.options.apiKey ?? NO_KEY}`,
    };
  }

  complete(request: CompletionRequest): Promise<Completion> {
    return completeWithRetries(this.options, SSE_ERRORS, request, (signal, progress) =>
      this.attempt(request, signal, progress),
    );
  }

  private async attempt(
    request: CompletionRequest,
    signal: AbortSignal,
    progress: AttemptProgress,
  ): Promise<StreamedAnswer> {
    const body = JSON.stringify({
      model: this.options.model,
      messages: request.messages.map((message) => ({
        role: message.role,
        content: message.content,
      })),
      stream: true,
      stream_options: { include_usage: true },
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.maxTokens === undefined ? {} : { [this.maxTokensField]: request.maxTokens }),
      ...(request.stop === undefined || request.stop.length === 0 ? {} : { stop: request.stop }),
    });
    const stream = this.client.stream({ url: this.endpoint, headers: this.headers, body, signal });
    const answer: StreamedAnswer = {
      text: '',
      usage: undefined,
      model: undefined,
      finishReason: 'other',
    };
    for await (const chunk of stream) {
      if (!isChunk(chunk)) {
        throw new SseStatusError(undefined, undefined, {
          error: { message: `not a chat completion chunk: ${JSON.stringify(chunk).slice(0, 200)}` },
        });
      }
      readChunk(chunk, answer, request, progress);
    }
    return answer;
  }
}

function readChunk(
  chunk: ChatCompletionChunk,
  answer: StreamedAnswer,
  request: CompletionRequest,
  progress: AttemptProgress,
): void {
  if (chunk.model) answer.model = chunk.model;
  // With include_usage the last chunk carries the counts and no choices.
  if (chunk.usage) {
    answer.usage = {
      inputTokens: chunk.usage.prompt_tokens,
      outputTokens: chunk.usage.completion_tokens,
    };
  }
  const choice = chunk.choices[0];
  if (!choice) return;
  const text = choice.delta.content ?? '';
  answer.text += text;
  deliverDelta(request, text, progress);
  if (choice.finish_reason) answer.finishReason = finishReasonOf(choice.finish_reason);
}

function isChunk(value: unknown): value is ChatCompletionChunk {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { choices?: unknown }).choices)
  );
}

function finishReasonOf(reason: string): Completion['finishReason'] {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    default:
      return 'other';
  }
}
