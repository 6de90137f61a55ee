// Asks the engine for the PDF boxes of each highlighted range of a paper ('papers.highlight') and
// pairs them with their ranges. Answers are kept per range, so adding a span asks only for it;
// evidence spans (several ranges, several tones) use this as the reader's selection does.
import { useEffect, useRef, useState } from 'react';
import type { HighlightBox } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { describeFailure, type Failure } from './failure.ts';
import type { HighlightRange, PaperHighlight } from './highlight-tones.ts';

export interface PaperHighlightState {
  highlights: PaperHighlight[];
  /** The last range the engine could not map, if any. */
  failure: Failure | undefined;
}

interface Answers {
  paper: string;
  boxes: ReadonlyMap<string, HighlightBox[]>;
  failure: Failure | undefined;
}

function rangeKey(range: { start: number; end: number }): string {
  return `${String(range.start)}-${String(range.end)}`;
}

/** `enabled` false (a paper without a PDF) asks nothing and gives every range no boxes. */
export function usePaperHighlight(
  set: string,
  paperId: string,
  ranges: readonly HighlightRange[],
  enabled = true,
): PaperHighlightState {
  const api = useApi();
  const paper = JSON.stringify([set, paperId]);
  const [answers, setAnswers] = useState<Answers>({ paper, boxes: new Map(), failure: undefined });
  const shownPaper = useRef(paper);
  const asked = useRef(new Set<string>());
  const known = answers.paper === paper ? answers.boxes : undefined;
  const wantedKey = [...new Set(ranges.map(rangeKey))].filter((key) => !known?.has(key)).join(',');

  useEffect(() => {
    shownPaper.current = paper;
  }, [paper]);

  useEffect(() => {
    if (!enabled || wantedKey === '') return;
    const answer = (key: string, boxes: HighlightBox[], failure?: Failure) => {
      // An answer about a paper no longer shown is dropped; the shown paper asks for its own.
      if (shownPaper.current !== paper) return;
      setAnswers((previous) => {
        const base: Answers =
          previous.paper === paper ? previous : { paper, boxes: new Map(), failure: undefined };
        return {
          paper,
          boxes: new Map(base.boxes).set(key, boxes),
          failure: failure ?? base.failure,
        };
      });
    };
    for (const key of wantedKey.split(',')) {
      const request = `${paper} ${key}`;
      if (asked.current.has(request)) continue;
      asked.current.add(request);
      const [start = 0, end = 0] = key.split('-').map(Number);
      api
        .call('papers.highlight', { set, id: paperId, start, end })
        .then(
          ({ boxes }) => {
            answer(key, boxes);
          },
          (error: unknown) => {
            answer(key, [], describeFailure(error));
          },
        )
        .finally(() => asked.current.delete(request));
    }
  }, [api, set, paperId, paper, wantedKey, enabled]);

  return {
    highlights: ranges.map((range) => ({ ...range, boxes: known?.get(rangeKey(range)) ?? [] })),
    failure: answers.paper === paper ? answers.failure : undefined,
  };
}
