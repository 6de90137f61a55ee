// arXiv ids -> PDF bytes, when the network allows. Offline, each id fails with a clear error and
// nothing else happens. `fetch` is injected so tests need no network.
import { ArxivNotFoundError, ArxivUnavailableError } from './errors.ts';
import type { IngestInput } from './ingest.ts';

export type Fetch = (
  url: string,
  init: { signal: AbortSignal },
) => Promise<{ ok: boolean; status: number; arrayBuffer(): Promise<ArrayBuffer> }>;

export function arxivPdfUrl(id: string): string {
  return `https://arxiv.org/pdf/${encodeURIComponent(id)}`;
}

export function arxivInput(id: string, fetcher: Fetch = fetch, timeoutMs = 30_000): IngestInput {
  return {
    name: `${id}.pdf`,
    read: async () => {
      let response;
      try {
        response = await fetcher(arxivPdfUrl(id), { signal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        const cause =
          error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
        throw new ArxivUnavailableError(
          id,
          cause || (error instanceof Error ? error.message : String(error)),
        );
      }
      if (!response.ok) {
        if (response.status === 404) throw new ArxivNotFoundError(id, response.status);
        throw new ArxivUnavailableError(id, `HTTP ${response.status}`);
      }
      return new Uint8Array(await response.arrayBuffer());
    },
  };
}
