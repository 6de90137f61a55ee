// Eval: batch runs of a dataset against a model, with a scores table. Empty until issue #5.
import { PlannedView } from './PlannedView.tsx';

export function EvalView() {
  return (
    <PlannedView view="eval" title="Eval" arrivesWith="issue #5">
      Run a dataset against a model as a batch with a concurrency limit, then read the scores table
      and drill down into any trajectory.
    </PlannedView>
  );
}
