// The engine's cluster commands (app/host/cluster-handlers.ts) wired as `rlm-studio serve` wires
// them, with this folder's backend, against the stand-in Ray job server. It sits here, not in
// app/host, because app/ may not import training/ (not even in tests).
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  TrainConfig,
  type ApiEvent,
  type CommandName,
  type CommandRequest,
  type CommandResponse,
} from '../../app/api/index.ts';
import { writeToyRows } from '../../training/cluster/toy-rows.test-support.ts';
import { composeEngine, savedClusterConnection, type Engine } from '../index.ts';
import { FileApiKeyVault, VAULT_KEYS_FILE } from '../../app/models/index.ts';
import { openWorkspace, type Workspace } from '../../app/store/index.ts';
import { rayClusterBackend } from '../../training/cluster/backend.ts';
import { RayJobsClient } from '../../training/cluster/ray-jobs.ts';
import { startRayStandIn, type RayStandIn } from '../../training/cluster/ray-stand-in.ts';

let dir: string;
let workspace: Workspace;
let engine: Engine;
let server: RayStandIn;
let events: ApiEvent[];
let datasetPath: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlm-cluster-host-'));
  workspace = openWorkspace(dir);
  engine = composeEngine({
    workspace,
    shell: 'serve',
    cluster: rayClusterBackend({ timeoutMs: 2000 }),
  });
  events = [];
  engine.host.onEvent((event) => events.push(event));
  server = await startRayStandIn({ token: 'tok-123' });
  datasetPath = join(dir, 'questions.jsonl');
  writeToyRows(datasetPath, 6);
});
afterEach(async () => {
  await server.close();
  await engine.dispose();
  workspace.close();
  await rm(dir, { recursive: true, force: true });
});

let nextId = 1;
async function call<C extends CommandName>(
  command: C,
  payload: CommandRequest<C>,
): Promise<CommandResponse<C>> {
  const frame = await engine.host.handle({ kind: 'request', id: nextId++, command, payload });
  if (!frame.ok) throw Object.assign(new Error(frame.error.message), { name: frame.error.name });
  return frame.result as CommandResponse<C>;
}

const config = () =>
  TrainConfig.parse({
    baseModel: 'toy:bigram',
    lora: { rank: 16 },
    dataset: { path: datasetPath, format: 'skyrl' },
  });
const target = { remoteDir: '/shared/rlm/job', remoteModel: 'Qwen/Qwen3-4B', gpusPerNode: 2 };

describe('cluster commands', () => {
  it('keeps the address as a setting and the token in the vault, never answering with it', async () => {
    expect(await call('cluster.settings', {})).toEqual({ address: null, hasToken: false });
    const saved = await call('cluster.saveSettings', {
      address: server.address,
      token: 'tok-123',
    });
    expect(saved).toEqual({ address: server.address, hasToken: true });
    expect(JSON.stringify(events)).not.toContain('tok-123');
    expect(events.map((e) => e.kind)).toEqual(['cluster.settingsChanged']);
    // Encrypted at rest; the CLI reads the same pair back.
    expect(readFileSync(join(dir, VAULT_KEYS_FILE), 'utf8')).not.toContain('tok-123');
    expect(await savedClusterConnection(workspace.db, new FileApiKeyVault(dir))).toEqual({
      address: server.address,
      token: 'tok-123',
    });
    // Changing the address keeps the token; forgetting the token keeps the address.
    expect(await call('cluster.saveSettings', { address: 'http://head:8265' })).toEqual({
      address: 'http://head:8265',
      hasToken: true,
    });
    expect(await call('cluster.saveSettings', { forgetToken: true })).toEqual({
      address: 'http://head:8265',
      hasToken: false,
    });
    await expect(call('cluster.saveSettings', { address: 'http://u:p@head:8265' })).rejects.toThrow(
      /credentials in the token field/,
    );
    await expect(call('cluster.saveSettings', { address: 'head node' })).rejects.toThrow(
      /dashboard address/,
    );
  });

  it('exports the configured job, submits it, follows it to SUCCEEDED and stops a second one', async () => {
    const { export: exported } = await call('cluster.export', {
      name: 'Big run',
      config: config(),
      target,
    });
    expect(exported.dir.startsWith(join(dir, 'cluster'))).toBe(true);
    expect(exported.files.map((f) => f.name)).toEqual([
      'train.jsonl',
      'val.jsonl',
      'overrides.json',
      'run.sh',
      'ray-job.json',
      'train-config.json',
    ]);
    expect(exported.trainRows + exported.valRows).toBe(6);
    const overrides = JSON.parse(
      await readFile(join(exported.dir, 'overrides.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(overrides['trainer.policy.model.path']).toBe('Qwen/Qwen3-4B');
    expect(overrides['trainer.placement.policy_num_gpus_per_node']).toBe(2);
    expect((await call('cluster.exports', {})).exports.map((e) => e.id)).toEqual([exported.id]);

    // No address yet: a named error, and the export stays.
    await expect(call('cluster.submit', { exportId: exported.id })).rejects.toMatchObject({
      name: 'ClusterAddressMissingError',
    });
    await call('cluster.saveSettings', { address: server.address, token: 'tok-123' });
    const { job } = await call('cluster.submit', { exportId: exported.id });
    expect(job).toMatchObject({ exportId: exported.id, address: server.address, state: null });
    const submitted = server.seen.find((s) => s.method === 'POST');
    expect(submitted?.authorization).toBe('Bearer tok-123');
    expect(submitted?.body).toMatchObject({
      entrypoint: exported.entrypoint,
      metadata: { app: 'rlm-studio', export: exported.id, name: 'Big run' },
    });

    expect((await call('cluster.status', { submissionId: job.submissionId })).job.state).toBe(
      'RUNNING',
    );
    await call('cluster.status', { submissionId: job.submissionId });
    const logs = await call('cluster.logs', { submissionId: job.submissionId, tailLines: 1 });
    expect(logs).toEqual({ text: 'step 1 reward 0.31', totalLines: 2 });
    server.finish(job.submissionId);
    expect((await call('cluster.status', { submissionId: job.submissionId })).job).toMatchObject({
      state: 'SUCCEEDED',
      message: 'Job finished successfully.',
    });
    expect((await call('cluster.jobs', {})).jobs.map((j) => j.state)).toEqual(['SUCCEEDED']);

    const second = (await call('cluster.submit', { exportId: exported.id })).job;
    expect(await call('cluster.stop', { submissionId: second.submissionId })).toEqual({
      stopped: true,
    });
    expect((await call('cluster.status', { submissionId: second.submissionId })).job.state).toBe(
      'STOPPED',
    );
    expect((await call('cluster.jobs', {})).jobs.map((j) => j.state)).toEqual([
      'STOPPED',
      'SUCCEEDED',
    ]);
  });

  it('uploads an export made with upload as the working directory of the jobs it submits', async () => {
    await expect(
      call('cluster.export', { name: 'Up', config: config(), target: { ...target, upload: true } }),
    ).rejects.toThrow(/skyrl-train checkout/);
    const { export: exported } = await call('cluster.export', {
      name: 'Up',
      config: config(),
      target: { ...target, upload: true, skyrlDir: '/opt/SkyRL/skyrl-train' },
    });
    expect(exported.upload).toBe(true);
    expect(exported.entrypoint).toMatch(
      /^export RLM_JOB_DIR="\$PWD" && cd \/opt\/SkyRL\/skyrl-train && uv run /,
    );
    await call('cluster.saveSettings', { address: server.address, token: 'tok-123' });
    const { job } = await call('cluster.submit', { exportId: exported.id });
    const uri = server.jobs.get(job.submissionId)?.runtimeEnv.working_dir;
    expect(uri).toMatch(/^gcs:\/\/_ray_pkg_/);
    // The folder's files as exported, without the workspace's own record of the export.
    const files = unzipSync(
      server.packages.get(String(uri).slice('gcs://'.length)) ?? new Uint8Array(),
    );
    expect(Object.keys(files).sort()).toEqual(exported.files.map((f) => f.name).sort());
    expect(new TextDecoder().decode(files['train.jsonl'])).toBe(
      await readFile(join(exported.dir, 'train.jsonl'), 'utf8'),
    );
    // Submitted again: the cluster has the package, so it is not sent twice.
    await call('cluster.submit', { exportId: exported.id });
    expect(server.seen.filter((s) => s.method === 'PUT')).toHaveLength(1);
    expect(server.jobs.size).toBe(2);
    // A damaged job file is named, and nothing is sent.
    await writeFile(join(exported.dir, 'ray-job.json'), '{"entrypoint": ');
    await expect(call('cluster.submit', { exportId: exported.id })).rejects.toMatchObject({
      name: 'ClusterJobFileError',
      message: /ray-job\.json is not JSON; export the job again/,
    });
    expect(server.jobs.size).toBe(2);
  });

  it("finds the cluster's RLM Studio jobs submitted elsewhere (the CLI), once, and follows them", async () => {
    const { export: exported } = await call('cluster.export', {
      name: 'From here',
      config: config(),
      target,
    });
    await expect(call('cluster.findJobs', {})).rejects.toMatchObject({
      name: 'ClusterAddressMissingError',
    });
    await call('cluster.saveSettings', { address: server.address, token: 'tok-123' });
    await call('cluster.submit', { exportId: exported.id });
    // What `rlm-studio cluster submit --dir` sends: the export's ray-job.json as it is.
    const rayJob = JSON.parse(await readFile(join(exported.dir, 'ray-job.json'), 'utf8')) as {
      entrypoint: string;
      metadata: Record<string, string>;
    };
    expect(rayJob.metadata).toEqual({ app: 'rlm-studio', name: 'from-here' });
    const ray = new RayJobsClient({ address: server.address, token: 'tok-123' });
    const fromCli = (await ray.submit(rayJob)).submissionId;
    const named = (
      await ray.submit({ ...rayJob, metadata: { ...rayJob.metadata, export: exported.id } })
    ).submissionId;
    const foreignPath = (
      await ray.submit({ ...rayJob, metadata: { app: 'rlm-studio', export: '../../etc' } })
    ).submissionId;
    await ray.submit({ entrypoint: 'python other.py', metadata: { app: 'someone-else' } });
    await ray.submit({ entrypoint: 'python bare.py' });
    events.length = 0;

    const found = await call('cluster.findJobs', {});
    expect(found.added).toBe(3);
    const byId = new Map(found.jobs.map((job) => [job.submissionId, job]));
    expect(found.jobs).toHaveLength(4);
    expect(byId.get(fromCli)).toMatchObject({
      exportId: null,
      name: 'from-here',
      address: server.address,
      state: 'PENDING',
    });
    expect(byId.get(named)?.exportId).toBe(exported.id);
    expect(byId.get(foreignPath)).toMatchObject({ exportId: null, name: foreignPath });
    expect(events.map((e) => e.kind)).toEqual(['cluster.jobsChanged']);
    expect((await call('cluster.jobs', {})).jobs).toEqual(found.jobs);

    // Found once: a second look adds nothing and says nothing.
    expect((await call('cluster.findJobs', {})).added).toBe(0);
    expect(events).toHaveLength(1);
    // A found job is followed like any other.
    expect((await call('cluster.status', { submissionId: fromCli })).job.state).toBe('RUNNING');
    expect(await call('cluster.stop', { submissionId: fromCli })).toEqual({ stopped: true });
  });

  it('names a job without a dataset, an unknown job, a refused token, a proxy page and a dead cluster', async () => {
    await expect(
      call('cluster.export', {
        name: 'toy',
        config: TrainConfig.parse({ baseModel: 'toy:bigram', lora: {} }),
        target,
      }),
    ).rejects.toMatchObject({ name: 'ClusterExportError', message: /no dataset/ });
    await expect(call('cluster.status', { submissionId: 'raysubmit_zz' })).rejects.toMatchObject({
      name: 'ClusterJobNotFoundError',
    });
    const { export: exported } = await call('cluster.export', {
      name: 'x',
      config: config(),
      target,
    });
    await call('cluster.saveSettings', { address: server.address });
    await expect(call('cluster.submit', { exportId: exported.id })).rejects.toMatchObject({
      name: 'RayJobsError',
      message: /401.*check the cluster token/,
    });
    await call('cluster.saveSettings', { token: 'tok-123' });
    const { job } = await call('cluster.submit', { exportId: exported.id });
    server.override = () => ({
      status: 200,
      body: '<html><body>Sign in to continue</body></html>',
      contentType: 'text/html',
    });
    await expect(call('cluster.status', { submissionId: job.submissionId })).rejects.toMatchObject({
      name: 'RayJobsError',
      message: /not JSON: <html>/,
    });
    await server.close();
    await expect(call('cluster.logs', { submissionId: job.submissionId })).rejects.toMatchObject({
      name: 'RayJobsError',
      message: /cannot reach the Ray cluster/,
    });
    // The job is still listed, as last seen.
    expect((await call('cluster.jobs', {})).jobs.map((j) => j.submissionId)).toEqual([
      job.submissionId,
    ]);
    server = await startRayStandIn();
  });

  it('names a damaged settings row instead of guessing', async () => {
    workspace.db
      .prepare(
        "INSERT INTO settings (key, value, updated_at) VALUES ('cluster.connection', '{', 0)",
      )
      .run();
    await expect(call('cluster.settings', {})).rejects.toMatchObject({
      name: 'ClusterSettingsDamagedError',
      message: /'cluster.connection'.*not JSON.*DELETE FROM settings/,
    });
  });
});
