// The engine's side of the embedding process (app/papers/embed/embed-child.ts, or embed-child.cjs
// beside the desktop bundle): transformers.js and onnxruntime-node run in a child of the same Node
// (or of Electron run as Node), so embedding a set never blocks the engine and the desktop bundle
// never holds them. One child per loaded model; a short-lived one answers whether a model type is
// known. Errors keep the child's error names.
import {
  decodeVector,
  EmbedReply,
  embedChild,
  EmbeddingModelLoadError,
  type EmbedderLoader,
  type EmbedRequest,
  type ModelFolder,
  type ModelTypeCheck,
} from '../../app/papers/index.ts';
import { LineChild, namedError } from '../../app/children/index.ts';

type Request = EmbedRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

/** One embedding child: requests in, replies matched by id; its death fails what is pending. */
class EmbeddingChild {
  // It reads its model folder (named in each request) and its own modules: none of the host's
  // environment.
  readonly #child = new LineChild<EmbedReply>({
    entry: embedChild,
    env: {},
    parse: (value) => {
      const parsed = EmbedReply.safeParse(value);
      return parsed.success ? parsed.data : undefined;
    },
    died: (detail) => namedError('EmbeddingProcessError', `the embedding process ${detail}`),
  });

  /** The reply of the kind asked for, or the child's named error thrown. */
  async ask<K extends EmbedReply['kind']>(
    request: Request,
    kind: K,
  ): Promise<Extract<EmbedReply, { kind: K }>> {
    const reply = await this.#child.request(request);
    if (reply.kind !== kind) throw new Error(`the embedding process answered ${reply.kind}`);
    return reply as Extract<EmbedReply, { kind: K }>;
  }

  /** Closes stdin (the child disposes its model and exits); killed if it lingers. */
  close(): Promise<void> {
    return this.#child.close();
  }
}

/** Loads the model in a new embedding child; EmbeddingModelLoadError if it cannot. */
export const loadEmbedderInProcess: EmbedderLoader = async (model: ModelFolder) => {
  const child = new EmbeddingChild();
  try {
    await child.ask({ kind: 'load', model }, 'loaded');
  } catch (error) {
    await child.close();
    if (error instanceof Error && error.name === 'EmbeddingModelLoadError') throw error;
    throw new EmbeddingModelLoadError(
      model.path,
      error instanceof Error ? error.message : String(error),
    );
  }
  return {
    model,
    embed: async (texts) => {
      const reply = await child.ask({ kind: 'embed', texts: [...texts] }, 'embedded');
      return reply.vectors.map(decodeVector);
    },
    dispose: () => child.close(),
  };
};

const known = new Map<string, Promise<boolean>>();

/** Asks a short-lived embedding child whether transformers.js knows a model type (remembered). */
export const knownModelTypeInProcess: ModelTypeCheck = (modelType) => {
  let answer = known.get(modelType);
  if (!answer) {
    const child = new EmbeddingChild();
    answer = child
      .ask({ kind: 'knows', modelType }, 'knows')
      .then((reply) => reply.known)
      .finally(() => child.close());
    known.set(modelType, answer);
    answer.catch(() => known.delete(modelType));
  }
  return answer;
};
