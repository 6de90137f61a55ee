// The agent tree fold lives in app/api (run-tree.ts) so the renderer shares it; re-exported here for
// the engine's own callers.
export {
  foldRun,
  applyRunEvent,
  emptyRunView,
  type RunView,
  type AgentNode,
  type TurnView,
  type AgentState,
} from '../api/index.ts';
