// Train: local RL fine-tuning with live charts. Empty until issue #8.
import { PlannedView } from './PlannedView.tsx';

export function TrainView() {
  return (
    <PlannedView view="train" title="Train" arrivesWith="issue #8">
      Configure and launch a local fine-tuning run, or export one to a cluster. Live charts follow
      rubric reward, loss, KL, entropy, turns and children per rollout, and tokens per second, with
      each step&rsquo;s GRPO groups and their advantages.
    </PlannedView>
  );
}
