// app/run-log: the pure folds of a run's event log (the agent tree, the tree's layout data, search,
// subtree exports, run comparison). Pure (app/api's types only), so the renderer, the engine and
// the contract's users share one implementation: a live run and a replay render through the same
// code.
export * from './run-tree.ts';
export * from './agent-tree.ts';
export * from './tree-search.ts';
export * from './subtree-export.ts';
export * from './run-compare.ts';
