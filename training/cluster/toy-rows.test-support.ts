// A toy evidence dataset in SkyRL's row format for the cluster tests: `count` questions over one
// short paper whose gold span is "the answer is 42".
import { writeFileSync } from 'node:fs';
import { evidencePaper, toSkyrlRow, type SkyrlRow } from '../../app/evidence/index.ts';

export function toyRows(count: number): SkyrlRow[] {
  const paper = evidencePaper('p1', 'A Paper', 'An abstract.', 'The body says the answer is 42.');
  return Array.from({ length: count }, (_, i) =>
    toSkyrlRow(
      {
        id: `q${i}`,
        question: `What is answer ${i}?`,
        set: 's',
        paperIds: null,
        gold: [{ paperId: 'p1', text: 'the answer is 42' }],
        metadata: {},
      },
      [paper],
    ),
  );
}

/** Writes `toyRows(count)` as JSON lines at `path`. */
export function writeToyRows(path: string, count: number): void {
  writeFileSync(
    path,
    toyRows(count)
      .map((row) => `${JSON.stringify(row)}\n`)
      .join(''),
  );
}
