// Token counts and prices: a rough chars/4 estimate for servers that report no usage, and list
// prices (USD per 1M tokens) of well-known hosted models. Unknown models cost null, never a guess.
import type { ChatMessage, TokenUsage } from './provider.ts';

export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

const price = (inputPerMillion: number, outputPerMillion: number): ModelPrice => ({
  inputPerMillion,
  outputPerMillion,
});

/**
 * Vendors' list prices for standard (non-batch, uncached) use. Update here when they change; a
 * model missing from the table is reported with a null cost rather than a wrong one.
 */
export const KNOWN_MODEL_PRICES: PriceTable = {
  'gpt-5': price(1.25, 10),
  'gpt-5-mini': price(0.25, 2),
  'gpt-5-nano': price(0.05, 0.4),
  'gpt-4.1': price(2, 8),
  'gpt-4.1-mini': price(0.4, 1.6),
  'gpt-4.1-nano': price(0.1, 0.4),
  'gpt-4o': price(2.5, 10),
  'gpt-4o-mini': price(0.15, 0.6),
  'gpt-4-turbo': price(10, 30),
  'gpt-3.5-turbo': price(0.5, 1.5),
  o3: price(2, 8),
  'o3-mini': price(1.1, 4.4),
  'o4-mini': price(1.1, 4.4),
  o1: price(15, 60),
  'claude-opus-4-5': price(5, 25),
  'claude-opus-4-1': price(15, 75),
  'claude-opus-4': price(15, 75),
  'claude-sonnet-4-5': price(3, 15),
  'claude-sonnet-4': price(3, 15),
  'claude-haiku-4-5': price(1, 5),
  'claude-3-7-sonnet': price(3, 15),
  'claude-3-5-sonnet': price(3, 15),
  'claude-3-5-haiku': price(0.8, 4),
  'claude-3-opus': price(15, 75),
  'claude-3-haiku': price(0.25, 1.25),
};

/** A dated snapshot or alias of a table entry: `gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`. */
const SNAPSHOT_SUFFIX = /^-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

export function priceOf(model: string, table: PriceTable = KNOWN_MODEL_PRICES): ModelPrice | null {
  const exact = table[model];
  if (exact) return exact;
  for (const [name, entry] of Object.entries(table)) {
    if (model.startsWith(name) && SNAPSHOT_SUFFIX.test(model.slice(name.length))) return entry;
  }
  return null;
}

/** USD for one call, or null when the model's price is unknown (or the table is null). */
export function costOf(model: string, usage: TokenUsage, table: PriceTable | null): number | null {
  if (table === null) return null;
  const entry = priceOf(model, table);
  if (!entry) return null;
  return (
    (usage.inputTokens * entry.inputPerMillion + usage.outputTokens * entry.outputPerMillion) / 1e6
  );
}

/** Rough token count (about four characters a token for English text and code). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Usage for a call whose server reported none: chars/4 of the prompt and of the answer. */
export function estimateUsage(messages: readonly ChatMessage[], output: string): TokenUsage {
  const prompt = messages.reduce((chars, message) => chars + message.content.length, 0);
  return {
    inputTokens: Math.ceil(prompt / 4),
    outputTokens: estimateTokens(output),
    estimated: true,
  };
}
