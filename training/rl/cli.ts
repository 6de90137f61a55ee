// What training/rl adds to `rlm-studio` (installed by bin/rlm-studio.js): `train-job` and `cluster`,
// and the cluster backend of the app's Train view (export, Ray jobs).
import type { CliExtensions } from '../../app/cli/index.ts';
import { rayClusterBackend } from '../cluster/backend.ts';
import { clusterCommand } from '../cluster/cluster-command.ts';
import { trainJobCommand } from './train-job-command.ts';

export function rlCliExtensions(): CliExtensions {
  return { commands: [trainJobCommand, clusterCommand], cluster: rayClusterBackend() };
}
