// Run: ask a question of a paper set and watch the agent tree live. Empty until issues #4 and #6.
import { PlannedView } from './PlannedView.tsx';

export function RunView() {
  return (
    <PlannedView view="run" title="Run" arrivesWith="issue #6 (the engine behind it: issue #4)">
      Pick a question, a paper set, a model and budgets, then watch the tree of agents unfold live.
      Click an agent to step through its turns: prompt, response, code, output, variables, child
      calls, tokens and timings; replay a finished run or fork one from any turn.
    </PlannedView>
  );
}
