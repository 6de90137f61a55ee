// Papers: paper sets, their import, and each paper's parsed text beside its PDF. Empty until issue #3.
import { PlannedView } from './PlannedView.tsx';

export function PapersView() {
  return (
    <PlannedView view="papers" title="Papers" arrivesWith="issue #3">
      Build paper sets by dropping in PDFs, QASPER JSON or arXiv ids. For each paper you will read
      the parsed text beside the PDF, browse its sections, search the set, and see a map of papers
      and passages placed by similarity.
    </PlannedView>
  );
}
