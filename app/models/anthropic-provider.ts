// Anthropic's messages API over the official @anthropic-ai/sdk, streamed. System messages become
// the top-level `system` field and same-role neighbours are merged, as the API wants; retries,
// timeouts and cancellation are retry.ts's, the same as for the OpenAI-compatible provider.
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import type { MessageParam, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import {
  completeWithRetries,
  deliverDelta,
  resolveHttpOptions,
  type HttpProviderOptions,
  type ResolvedHttpOptions,
  type StreamedAnswer,
} from './http-options.ts';
import type { ChatMessage, Completion, CompletionRequest, Provider } from './provider.ts';
import type { AttemptProgress } from './retry.ts';
import type { SdkErrorClasses } from './sdk-failure.ts';

const ANTHROPIC_ERRORS: SdkErrorClasses = {
  APIError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
};

export interface AnthropicOptions extends HttpProviderOptions {
  apiKey: string;
  /** The API requires max_tokens on every call; used when the request sets none. */
  defaultMaxTokens?: number | undefined;
}

export class AnthropicProvider implements Provider {
  readonly spec: string;
  private readonly options: ResolvedHttpOptions;
  private readonly defaultMaxTokens: number;
  private readonly client: Anthropic;

  constructor(options: AnthropicOptions) {
    this.options = resolveHttpOptions(options, {
      spec: `anthropic:${options.model}`,
      keySource: 'ANTHROPIC_API_KEY or Settings > Models',
    });
    this.spec = this.options.spec;
    this.defaultMaxTokens = options.defaultMaxTokens ?? 4096;
    // Every option is explicit so that the SDK reads no key, token or profile on its own.
    this.client = new Anthropic({
      apiKey: options.apiKey,
      baseURL: this.options.baseUrl,
      maxRetries: 0,
      timeout: this.options.timeoutMs,
    });
  }

  complete(request: CompletionRequest): Promise<Completion> {
    return completeWithRetries(this.options, ANTHROPIC_ERRORS, request, (signal, progress) =>
      this.attempt(request, signal, progress),
    );
  }

  private async attempt(
    request: CompletionRequest,
    signal: AbortSignal,
    progress: AttemptProgress,
  ): Promise<StreamedAnswer> {
    const { system, messages } = toAnthropicMessages(request.messages);
    const stream = await this.client.messages.create(
      {
        model: this.options.model,
        max_tokens: request.maxTokens ?? this.defaultMaxTokens,
        messages,
        stream: true,
        ...(system === undefined ? {} : { system }),
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        ...(request.stop === undefined || request.stop.length === 0
          ? {}
          : { stop_sequences: request.stop }),
      },
      { signal, maxRetries: 0, timeout: this.options.timeoutMs },
    );
    const answer: StreamedAnswer = {
      text: '',
      usage: undefined,
      model: undefined,
      finishReason: 'other',
    };
    for await (const event of stream) readEvent(event, answer, request, progress);
    return answer;
  }
}

/** System text goes to `system`; the API takes only user and assistant turns, alternating. */
export function toAnthropicMessages(chat: readonly ChatMessage[]): {
  system: string | undefined;
  messages: MessageParam[];
} {
  const systemParts: string[] = [];
  const messages: MessageParam[] = [];
  for (const message of chat) {
    if (message.role === 'system') {
      systemParts.push(message.content);
      continue;
    }
    const previous = messages.at(-1);
    if (previous?.role === message.role && typeof previous.content === 'string') {
      previous.content = `${previous.content}\n\n${message.content}`;
    } else {
      messages.push({ role: message.role, content: message.content });
    }
  }
  return { system: systemParts.length > 0 ? systemParts.join('\n\n') : undefined, messages };
}

function readEvent(
  event: RawMessageStreamEvent,
  answer: StreamedAnswer,
  request: CompletionRequest,
  progress: AttemptProgress,
): void {
  switch (event.type) {
    case 'message_start': {
      const usage = event.message.usage;
      answer.model = event.message.model;
      answer.usage = { inputTokens: promptTokens(usage) ?? 0, outputTokens: usage.output_tokens };
      return;
    }
    case 'content_block_delta':
      if (event.delta.type === 'text_delta') {
        answer.text += event.delta.text;
        deliverDelta(request, event.delta.text, progress);
      }
      return;
    case 'message_delta':
      // Counts in message_delta are cumulative for the whole message.
      answer.usage = {
        inputTokens: promptTokens(event.usage) ?? answer.usage?.inputTokens ?? 0,
        outputTokens: event.usage.output_tokens,
      };
      if (event.delta.stop_reason) answer.finishReason = finishReasonOf(event.delta.stop_reason);
      return;
    default:
      return;
  }
}

/** Cached prompt tokens are counted apart from input_tokens; all of them are prompt tokens. */
function promptTokens(usage: {
  input_tokens: number | null;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
}): number | null {
  // Typed as nullable, but servers that speak this format may also leave the field out.
  if (typeof usage.input_tokens !== 'number') return null;
  return (
    usage.input_tokens +
    (usage.cache_creation_input_tokens ?? 0) +
    (usage.cache_read_input_tokens ?? 0)
  );
}

function finishReasonOf(reason: string): Completion['finishReason'] {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
      return 'length';
    default:
      return 'other';
  }
}
