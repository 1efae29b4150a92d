import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort, waitForPort } from '../../scripts/embedded/ports';

const ROOT_USER = 'invoicing-test';
const ROOT_PASSWORD = 'invoicing-test-secret';

/**
 * A real MinIO server on loopback (provisioned by `npm test` with go install; path in
 * TEST_MINIO_PATH), with one bucket. It checks signatures and expiry of presigned URLs.
 */
export async function startS3Server(bucket = 'invoicing') {
  const binary = process.env.TEST_MINIO_PATH;
  if (!binary) throw new Error('TEST_MINIO_PATH is not set: run the suite with "npm test".');
  const directory = await mkdtemp(path.join(os.tmpdir(), 'minio-'));
  const [port, consolePort] = [await freePort(), await freePort()];
  const launch = () =>
    spawn(binary, ['server', directory, '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${consolePort}`, '--quiet'], {
      env: { ...process.env, MINIO_ROOT_USER: ROOT_USER, MINIO_ROOT_PASSWORD: ROOT_PASSWORD, MINIO_BROWSER: 'off' },
      stdio: 'ignore',
    });
  let child = launch();
  const endpoint = `http://127.0.0.1:${port}`;
  await waitForPort(port, 30_000);
  /** Makes `request` until MinIO, which listens before it serves, answers it: retried up to `attempts` times, `delayMs` apart. */
  const untilServed = async (request: (client: S3Client) => Promise<unknown>, attempts: number, delayMs: number) => {
    const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: ROOT_USER, secretAccessKey: ROOT_PASSWORD } });
    try {
      for (let attempt = 0; ; attempt += 1) {
        try {
          await request(client);
          return;
        } catch (error) {
          if (attempt > attempts) throw error;
          await new Promise((resolve) => setTimeout(resolve, delayMs));
        }
      }
    } finally {
      client.destroy();
    }
  };
  await untilServed((client) => client.send(new CreateBucketCommand({ Bucket: bucket })), 50, 200);
  return {
    endpoint,
    bucket,
    env: {
      BLOB_STORE: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      S3_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: ROOT_USER,
      AWS_SECRET_ACCESS_KEY: ROOT_PASSWORD,
    },
    /** The server's process id (the fault tests signal it: SIGKILL, SIGSTOP, SIGCONT). */
    pid: () => child.pid!,
    /** Kills the server with SIGKILL and waits until it is gone: the port refuses connections. */
    async kill() {
      const gone = new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)));
      child.kill('SIGKILL');
      await gone;
    },
    /** Starts the server again on the same port and data folder (after kill); resolves once it serves the bucket. */
    async restart() {
      child = launch();
      await waitForPort(port, 30_000);
      await untilServed((client) => client.send(new HeadBucketCommand({ Bucket: bucket })), 100, 100);
    },
    async close() {
      child.kill('SIGCONT'); // a test may have left it stopped (SIGSTOP), which would ignore SIGTERM
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)));
      await rm(directory, { recursive: true, force: true });
    },
  };
}
