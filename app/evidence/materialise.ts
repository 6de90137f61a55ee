// A dataset that carries its papers (QASPER, SkyRL rows) puts them into the workspace paper set its
// questions name, once; a paper already there must hold the same text, or the dataset is refused.
import { readFile } from 'node:fs/promises';
import type { PaperLibrary } from '../papers/index.ts';
import { DatasetPapersMismatchError } from './errors.ts';
import { qasperJson } from './qasper-dataset.ts';
import type { EvidenceDataset } from './question.ts';

/** Puts the dataset's own papers (QASPER, SkyRL) into the workspace set its questions name. */
export async function materialiseDatasetPapers(
  library: PaperLibrary,
  dataset: EvidenceDataset,
  datasetPath: string,
): Promise<void> {
  for (const [set, papers] of dataset.papers) {
    const have = new Set(
      library.sets().some((s) => s.name === set) ? library.store.paperIds(set) : [],
    );
    const missing = [...papers.values()].filter((paper) => !have.has(paper.id));
    if (missing.length > 0) {
      const file =
        dataset.format === 'qasper'
          ? qasperJson(datasetPath, new Uint8Array(await readFile(datasetPath)))
          : {
              fileName: `${set}.json`,
              data: new TextEncoder().encode(
                JSON.stringify(
                  Object.fromEntries(
                    missing.map((paper) => [
                      paper.id,
                      {
                        title: paper.title,
                        abstract: paper.abstract,
                        full_text: [{ section_name: null, paragraphs: [paper.fullText] }],
                      },
                    ]),
                  ),
                ),
              ),
            };
      await library.importBytes(set, [{ name: file.fileName, data: file.data }]);
    }
    const stored = new Map(library.texts(set).map((paper) => [paper.id, paper]));
    for (const paper of papers.values())
      if (stored.get(paper.id)?.context !== paper.text)
        throw new DatasetPapersMismatchError(set, paper.id);
  }
}
