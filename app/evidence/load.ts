// Loads a dataset file in any format, and finds each question's papers: in the dataset itself
// (QASPER, SkyRL) or in the workspace's paper sets (our format).
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { PaperLibrary } from '../papers/index.ts';
import {
  DatasetFileError,
  DatasetPapersMissingError,
  UnknownDatasetFormatError,
} from './errors.ts';
import { parseOurDataset } from './studio-dataset.ts';
import { evidencePaper } from './paper-text.ts';
import { parseQasperDataset, type QasperOptions } from './qasper-dataset.ts';
import {
  datasetFormats,
  type DatasetFormat,
  type EvidenceDataset,
  type EvidencePaper,
  type EvidenceQuestion,
} from './question.ts';
import { parseSkyrlDataset } from './skyrl-dataset.ts';

export function isDatasetFormat(format: string): format is DatasetFormat {
  return (datasetFormats as readonly string[]).includes(format);
}

export async function loadDataset(
  path: string,
  format: string,
  options: QasperOptions = {},
): Promise<EvidenceDataset> {
  if (!isDatasetFormat(format)) throw new UnknownDatasetFormatError(format);
  let data: Uint8Array;
  try {
    data = new Uint8Array(await readFile(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DatasetFileError(path, code === 'ENOENT' ? 'no such file' : String(error));
  }
  const name = basename(path).replace(/\.(jsonl|json|tgz|tar\.gz)$/i, '');
  switch (format) {
    case 'qasper':
      return parseQasperDataset(path, data, options);
    case 'ours':
      return parseOurDataset(name, Buffer.from(data).toString('utf8'));
    case 'skyrl':
      return parseSkyrlDataset(name, Buffer.from(data).toString('utf8'));
  }
}

/** A question -> its papers, from the dataset or the workspace (cached per set). */
export function paperLookup(
  dataset: EvidenceDataset,
  library: PaperLibrary | null,
): (question: EvidenceQuestion) => EvidencePaper[] {
  const fromWorkspace = new Map<string, Map<string, EvidencePaper>>();
  const setPapers = (set: string): Map<string, EvidencePaper> => {
    const own = dataset.papers.get(set);
    if (own) return own;
    let cached = fromWorkspace.get(set);
    if (!cached) {
      if (!library)
        throw new DatasetFileError(set, 'its questions need a workspace to read paper sets from');
      cached = new Map(
        library.store
          .texts(set)
          .map((paper) => [
            paper.id,
            evidencePaper(paper.id, paper.title, paper.abstract, paper.fullText),
          ]),
      );
      fromWorkspace.set(set, cached);
    }
    return cached;
  };
  return (question) => {
    const papers = setPapers(question.set);
    if (!question.paperIds) return [...papers.values()];
    const missing = question.paperIds.filter((id) => !papers.has(id));
    if (missing.length > 0) throw new DatasetPapersMissingError(question.set, missing);
    return question.paperIds.flatMap((id) => papers.get(id) ?? []);
  };
}
