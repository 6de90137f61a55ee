// The embedding process: transformers.js and onnxruntime-node run here, never in the engine's own
// process (the desktop shell's main process stays free, and its bundle never holds them). Reads
// EmbedRequest lines on stdin, answers EmbedReply lines on stdout; exits when stdin closes.
import { createInterface } from 'node:readline';
import { loadEmbedder, type Embedder } from './embedder.ts';
import { EmbedRequest, encodeVector, type EmbedReply } from './embed-protocol.ts';
import { knownModelType } from './known-model-type.ts';

let embedder: Embedder | undefined;

async function answer(request: EmbedRequest): Promise<EmbedReply> {
  switch (request.kind) {
    case 'knows':
      return { kind: 'knows', id: request.id, known: await knownModelType(request.modelType) };
    case 'load':
      await embedder?.dispose();
      embedder = await loadEmbedder(request.model);
      return { kind: 'loaded', id: request.id };
    case 'embed': {
      if (!embedder) throw new Error('embed before load');
      const vectors = await embedder.embed(request.texts);
      return { kind: 'embedded', id: request.id, vectors: vectors.map(encodeVector) };
    }
  }
}

function reply(message: EmbedReply): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

// One request at a time, in order: the engine never sends the next before the answer. No top-level
// await: the desktop bundle holds this process as CommonJS (scripts/build-electron.ts).
async function serve(): Promise<void> {
  let queue = Promise.resolve();
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === '') continue;
    queue = queue.then(async () => {
      let id = -1;
      try {
        const request = EmbedRequest.parse(JSON.parse(line));
        id = request.id;
        reply(await answer(request));
      } catch (error) {
        const named = error instanceof Error ? error : new Error(String(error));
        reply({ kind: 'failed', id, name: named.name, message: named.message });
      }
    });
  }
  await queue;
  await embedder?.dispose();
}

void serve();
