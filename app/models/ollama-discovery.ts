// Finds a local Ollama server: the names of its models from GET /api/tags, or [] when nothing
// answers in time. Used to offer Ollama's models in Settings without the user typing a URL.
import { z } from 'zod';

export const OLLAMA_DEFAULT_ORIGIN = 'http://127.0.0.1:11434';

const tagsSchema = z.object({ models: z.array(z.object({ name: z.string() })) });

/**
 * Model names Ollama serves at `baseUrl` (with or without a trailing /v1). No server, a slow one,
 * or one that is not Ollama all mean "no local models": [] by design, not a failure.
 */
export async function discoverOllama(
  baseUrl: string = OLLAMA_DEFAULT_ORIGIN,
  timeoutMs = 500,
): Promise<string[]> {
  const origin = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  try {
    const response = await fetch(`${origin}/api/tags`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) {
      await response.body?.cancel();
      return [];
    }
    const parsed = tagsSchema.safeParse(await response.json());
    return parsed.success ? parsed.data.models.map((model) => model.name) : [];
  } catch {
    return [];
  }
}
