// Runs: the history of runs, search, comparison, import and export. Empty until issue #6.
import { PlannedView } from './PlannedView.tsx';

export function RunsView() {
  return (
    <PlannedView view="runs" title="Runs" arrivesWith="issue #6">
      Every run you have made, to search and filter, to compare two side by side, and to import or
      export as logs.
    </PlannedView>
  );
}
