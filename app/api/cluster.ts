// The cluster part of the contract (issue 8, "To the cluster"): the Ray cluster's address and token
// (Settings > Cluster), a training job exported in SkyRL's formats, and Ray jobs submitted from an
// export and followed (status, logs, stop). The token travels only inward: answers carry `hasToken`.
import { z } from 'zod';
import { TrainConfig } from './training.ts';

export const RayJobState = z.enum(['PENDING', 'RUNNING', 'STOPPED', 'SUCCEEDED', 'FAILED']);
export type RayJobState = z.infer<typeof RayJobState>;

/** A job's state that will not change again. */
export const finishedRayJobStates: readonly RayJobState[] = ['STOPPED', 'SUCCEEDED', 'FAILED'];

export const RayAddress = z
  .url({ protocol: /^https?$/, error: 'a dashboard address like http://head-node:8265' })
  .refine((url) => {
    const parsed = URL.parse(url);
    return parsed === null || (parsed.username === '' && parsed.password === '');
  }, 'put credentials in the token field, not in the address');

export const ClusterSettingsView = z.object({
  /** The Ray dashboard address, or null when none is set. */
  address: z.string().nullable(),
  hasToken: z.boolean(),
});
export type ClusterSettingsView = z.infer<typeof ClusterSettingsView>;

const exportId = z.string().regex(/^[\w-]{1,80}$/, 'an export id');
const submissionId = z.string().regex(/^[\w.:-]{1,200}$/, 'a Ray submission id');

/** Where and how the exported job runs on the cluster. */
export const ClusterTarget = z
  .object({
    /**
     * Where the export folder will be copied on the cluster (the config's data paths point there);
     * with `upload`, only where checkpoints go.
     */
    remoteDir: z.string().trim().min(1, 'say where the folder will be on the cluster'),
    /**
     * Submit uploads the folder as the job's working directory (Ray's package upload, at most
     * 500 MiB), so nothing is copied by hand; the data paths then follow the job to wherever Ray
     * unpacks it.
     */
    upload: z.boolean().default(false),
    /** SkyRL's skyrl-train checkout on the cluster; the job starts there (needed with `upload`). */
    skyrlDir: z.string().trim().min(1).optional(),
    /** The base model as the cluster names it (a Hugging Face id or a path there). */
    remoteModel: z.string().trim().min(1, 'name the base model as the cluster knows it'),
    nodes: z.number().int().positive().default(1),
    gpusPerNode: z.number().int().positive().default(8),
    valFraction: z.number().min(0).max(0.9).default(0.1),
  })
  .strict()
  .refine((target) => !target.upload || target.skyrlDir !== undefined, {
    path: ['skyrlDir'],
    error:
      "an uploaded folder becomes the job's working directory, so say where SkyRL's skyrl-train checkout is on the cluster",
  });
export type ClusterTarget = z.infer<typeof ClusterTarget>;

export const ClusterExportFile = z.object({ name: z.string(), bytes: z.number().int() });

/** An export folder in the workspace (<workspace>/cluster/<id>/). */
export const ClusterExport = z.object({
  id: exportId,
  name: z.string(),
  createdAt: z.number(),
  dir: z.string(),
  files: z.array(ClusterExportFile),
  trainRows: z.number().int(),
  valRows: z.number().int(),
  entrypoint: z.string(),
  remoteDir: z.string(),
  /** Submit uploads the folder as the job's working directory (exports before this field: false). */
  upload: z.boolean().default(false),
});
export type ClusterExport = z.infer<typeof ClusterExport>;

/** An export folder's ray-job.json: what `cluster submit` sends (written by training/cluster). */
export const RayJobFile = z.object({
  entrypoint: z.string().min(1),
  /** Send the folder with the job as its working directory (files before this field: false). */
  upload: z.boolean().default(false),
  metadata: z.record(z.string(), z.string()).default({}),
});
export type RayJobFile = z.infer<typeof RayJobFile>;

/** A job of this workspace's list, as last seen. */
export const ClusterJob = z.object({
  submissionId,
  /** The export it was submitted from; null for a job found on the cluster (cluster.findJobs). */
  exportId: exportId.nullable(),
  name: z.string(),
  address: z.string(),
  submittedAt: z.number(),
  state: RayJobState.nullable(),
  message: z.string().nullable(),
});
export type ClusterJob = z.infer<typeof ClusterJob>;

export const clusterCommands = {
  'cluster.settings': {
    summary: 'The Ray cluster address and whether a token is stored (never the token).',
    request: z.object({}).strict(),
    response: ClusterSettingsView,
  },
  'cluster.saveSettings': {
    summary:
      'Sets the Ray cluster address (null clears it); token (write-only) replaces the stored one, forgetToken drops it.',
    request: z
      .object({
        address: RayAddress.nullable().optional(),
        token: z.string().trim().min(1, 'paste the whole token, or leave the field out').optional(),
        forgetToken: z.boolean().default(false),
      })
      .strict()
      .refine((request) => !(request.forgetToken && request.token !== undefined), {
        path: ['forgetToken'],
        error: 'either replace the token or forget it, not both',
      }),
    response: ClusterSettingsView,
  },
  'cluster.export': {
    summary:
      "Writes a training job in SkyRL's formats (rows, Hydra overrides, run.sh, ray-job.json) to a new folder of the workspace.",
    request: z
      .object({
        name: z.string().trim().min(1).max(120),
        config: TrainConfig,
        target: ClusterTarget,
      })
      .strict(),
    response: z.object({ export: ClusterExport }),
  },
  'cluster.exports': {
    summary: 'The export folders of the workspace, newest first.',
    request: z.object({}).strict(),
    response: z.object({ exports: z.array(ClusterExport) }),
  },
  'cluster.submit': {
    summary: "Submits an export's entrypoint to the configured Ray cluster (Ray Jobs REST API).",
    request: z.object({ exportId }).strict(),
    response: z.object({ job: ClusterJob }),
  },
  'cluster.jobs': {
    summary:
      'The Ray jobs submitted from this workspace (or found on its cluster), newest first, as last seen.',
    request: z.object({}).strict(),
    response: z.object({ jobs: z.array(ClusterJob) }),
  },
  'cluster.findJobs': {
    summary:
      "Adds the cluster's RLM Studio jobs this workspace does not list (submitted from the CLI or another machine); answers with how many and the whole list.",
    request: z.object({}).strict(),
    response: z.object({ added: z.number().int(), jobs: z.array(ClusterJob) }),
  },
  'cluster.status': {
    summary: "Asks the cluster for a job's state (and remembers it).",
    request: z.object({ submissionId }).strict(),
    response: z.object({ job: ClusterJob }),
  },
  'cluster.logs': {
    summary: "The last lines of a job's logs on the cluster.",
    request: z
      .object({ submissionId, tailLines: z.number().int().positive().max(10_000).default(200) })
      .strict(),
    response: z.object({ text: z.string(), totalLines: z.number().int() }),
  },
  'cluster.stop': {
    summary: 'Asks the cluster to stop a job; false when it was not running.',
    request: z.object({ submissionId }).strict(),
    response: z.object({ stopped: z.boolean() }),
  },
} as const;

export const clusterEvents = [
  z.object({ kind: z.literal('cluster.settingsChanged'), at: z.number() }),
  z.object({ kind: z.literal('cluster.jobsChanged'), at: z.number() }),
] as const;
