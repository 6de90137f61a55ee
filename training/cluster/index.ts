// training/cluster: jobs that outgrow one machine, in SkyRL's terms, on a Ray cluster.
export {
  overrideArguments,
  skyrlEntrypoint,
  skyrlLaunchScript,
  skyrlOverrides,
  type Override,
  type SkyRlCluster,
  type SkyRlPaths,
} from './skyrl-config.ts';
export {
  RayJobsClient,
  RayJobsError,
  RayJobStatus,
  type RayJobDetails,
  type RayJobsOptions,
  type RayJobSubmission,
} from './ray-jobs.ts';
export {
  rayClusterBackend,
  type ClusterBackend,
  type ClusterConnection,
  type RayJobListing,
  type RayJobsPort,
} from './backend.ts';
export {
  ClusterExportError,
  exportSkyRlJob,
  type SkyRlExport,
  type SkyRlExportResult,
} from './export.ts';
