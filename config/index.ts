import path from 'node:path';
import { z } from 'zod';
import { TASK_QUEUES } from '../worker/task-queues';
import { setVariables } from './set-variables';

/**
 * The whole configuration of a process, read once from the environment.
 * Every variable is documented in README.md ("Configuration").
 */
const projectRoot = path.resolve(__dirname, '..');

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** LOG_LEVEL's values; also read where a logger is made before the configuration is (services/cpu/pool.ts). */
export const logLevelSchema = z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info');

const environmentSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9465),
  WORKER_SDK_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9466),
  INTAKE_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9467),
  PUBLIC_BASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default(path.join(projectRoot, '.data')),
  DATABASE_URL: z.string().url().optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default(TASK_QUEUES.main),
  TEMPORAL_DEV_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
  TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
  TEMPORAL_CLI_PATH: z.string().optional(),
  TEMPORAL_HISTORY_SHARDS: z.coerce.number().int().min(1).max(16384).default(4),
  API_KEY_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]{1,15}$/, 'API_KEY_PREFIX must be 2-16 lowercase letters or digits')
    .default('inv'),
  RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(100),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(200),
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().min(0).default(60),
  AUTH_FAILURE_BURST: z.coerce.number().int().min(1).default(20),
  REQUEST_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  API_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(20_000),
  API_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(300_000),
  API_BODY_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(20_000),
  API_RESPONSE_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  API_READ_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  API_BODY_GRACE_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  API_BODY_MIN_BYTES_PER_SECOND: z.coerce.number().int().min(0).default(1024),
  LOG_LEVEL: logLevelSchema,
  TRUST_PROXY: booleanFromEnv.default(false),
  SECRETS_ENCRYPTION_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be the base64 of 32 random bytes')
    .optional(),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: booleanFromEnv.optional(),
  WEBHOOK_REPAIR_AFTER_SECONDS: z.coerce.number().int().min(0).default(60),
  PART_UNRESPONSIVE_SECONDS: z.coerce.number().int().min(1).default(60),
  BLOB_STORE: z.enum(['filesystem', 's3']).default('filesystem'),
  BLOB_DIR: z.string().optional(),
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ENDPOINT: z.string().url().optional(),
  S3_FORCE_PATH_STYLE: booleanFromEnv.default(false),
  S3_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(3_000),
  S3_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  S3_OPERATION_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(20_000),
  S3_MIN_BYTES_PER_SECOND: z.coerce.number().int().min(1024).default(128 * 1024),
  SMTP_PORT: z.coerce.number().int().min(0).max(65535).default(2525),
  SMTP_HOST: z.string().default('127.0.0.1'),
  INBOX_DOMAIN: z
    .string()
    .transform((value) => value.trim().toLowerCase().replace(/\.$/, ''))
    .pipe(z.string().regex(/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/, 'INBOX_DOMAIN must be a domain name'))
    .default('inbox.localhost'),
  SMTP_MAX_MESSAGE_BYTES: z.coerce.number().int().min(1024).default(30 * 1024 * 1024),
  SMTP_DAILY_QUOTA_MESSAGES: z.coerce.number().int().min(1).default(1000),
  SMTP_DAILY_QUOTA_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024 * 1024),
  SMTP_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).default(10),
  SMTP_MAX_SESSION_SECONDS: z.coerce.number().int().min(1).default(600),
  ALEGRA_BASE_URL: z.string().url().optional(),
  DIAN_SIMULATOR_URL: z.string().url().optional(),
  /** docs/dian.md "Bulk listing (assumed)": DIAN's BulkDocumentDownloadAsync for range imports. */
  DIAN_BULK_LISTING: z.enum(['assumed', 'off']).default('off'),
}).refine((e) => e.API_HEADERS_TIMEOUT_MS <= e.API_REQUEST_TIMEOUT_MS, {
  // Node refuses a server whose headers may take longer than the whole request.
  path: ['API_HEADERS_TIMEOUT_MS'],
  message: 'must not exceed API_REQUEST_TIMEOUT_MS',
});

export type AppConfig = {
  env: 'development' | 'production' | 'test';
  http: {
    host: string;
    port: number;
    publicBaseUrl?: string;
    trustProxy: boolean;
    bodyLimitBytes: number;
    /**
     * Node's own deadlines for a request's headers and for the whole request (api/http-server.ts),
     * and how long an answer being written may go without its client taking a byte (api/middleware/response-idle.ts).
     */
    timeouts: { headersMs: number; requestMs: number; responseIdleMs: number; readMs: number };
    /** How fast a request body must arrive once it is being read (api/body-pace.ts). */
    bodyPace: { idleMs: number; graceMs: number; minBytesPerSecond: number; wholeWithinMs: number };
  };
  /** Prometheus /metrics ports (0: off), never the public API port (docs/operations.md). */
  metrics: { apiPort: number; workerPort: number; workerSdkPort: number; intakePort: number };
  dataDir: string;
  /** Undefined means "run the embedded Postgres under dataDir". */
  databaseUrl?: string;
  databasePoolMax: number;
  embeddedPostgresPort: number;
  temporal: {
    /** Undefined means "run the local Temporal dev server". */
    address?: string;
    namespace: string;
    /** Separate deployments (or test runs) sharing one Temporal namespace use separate queues. */
    taskQueue: string;
    devServerPort: number;
    uiPort: number;
    cliPath?: string;
    /** History shards of the cluster `npm run start:cluster` runs (fixed once its databases exist). */
    historyShards: number;
  };
  apiKeyPrefix: string;
  rateLimit: { perSecond: number; burst: number };
  /** Failed authentications per client address (docs/api.md "Rate limits"); perMinute = 0 turns it off. */
  authFailureLimit: { perMinute: number; burst: number };
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  projectRoot: string;
  /** base64 of the 32-byte master key for secrets at rest; undefined = the key file under dataDir. */
  secretsEncryptionKey?: string;
  webhooks: {
    /** Loopback/private targets: allowed outside production unless configured otherwise. */
    allowPrivateTargets: boolean;
    requireHttps: boolean;
    /** Pending deliveries never attempted for this long with no workflow are started by the repair schedule. */
    repairAfterSeconds: number;
  };
  blobStore:
    | { driver: 'filesystem'; directory: string }
    | {
        driver: 's3';
        bucket: string;
        region: string;
        endpoint?: string;
        forcePathStyle: boolean;
        /**
         * Per attempt: a connection within connectMs; no byte sent or received for idleMs ends it.
         * Per call, all attempts and the wait for a socket included: operationMs plus the time its
         * bytes take at minBytesPerSecond (storage/s3-operation-deadline.ts).
         */
        deadlines: { connectMs: number; idleMs: number; operationMs: number; minBytesPerSecond: number };
      };
  /** The SMTP intake (docs/email-intake.md); port 0 = off. Quotas are per company over the last 24 hours. */
  email: {
    port: number;
    host: string;
    domain: string;
    maxMessageBytes: number;
    dailyQuota: { messages: number; bytes: number };
    /** Concurrent connections from one client address (of MAX_CLIENTS in all); more are refused 421. */
    maxConnectionsPerAddress: number;
    /** A session's whole life, commands and DATA included; then 421 and the connection is closed. */
    maxSessionMs: number;
  };
  /**
   * docs/dian.md: companies whose DIAN environment is 'simulator' talk to simulatorUrl;
   * bulkListing (DIAN_BULK_LISTING=assumed) lets range imports use DIAN's assumed bulk download.
   */
  dian: { simulatorUrl?: string; bulkListing: boolean };
  /** Accounting exports (docs/exports.md): alegraBaseUrl overrides Alegra's API root (tests, sandboxes). */
  exports: { alegraBaseUrl?: string };
  /** `npm start`'s supervisor (scripts/restart-policy.ts): a ready part silent this long is killed and restarted. */
  supervisor: { partUnresponsiveMs: number };
};

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = environmentSchema.safeParse(setVariables(env));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    http: {
      host: e.HOST,
      port: e.PORT,
      publicBaseUrl: e.PUBLIC_BASE_URL,
      trustProxy: e.TRUST_PROXY,
      bodyLimitBytes: e.REQUEST_BODY_LIMIT_BYTES,
      timeouts: { headersMs: e.API_HEADERS_TIMEOUT_MS, requestMs: e.API_REQUEST_TIMEOUT_MS, responseIdleMs: e.API_RESPONSE_IDLE_TIMEOUT_MS, readMs: e.API_READ_TIMEOUT_MS },
      bodyPace: {
        idleMs: e.API_BODY_IDLE_TIMEOUT_MS,
        graceMs: e.API_BODY_GRACE_MS,
        minBytesPerSecond: e.API_BODY_MIN_BYTES_PER_SECOND,
        wholeWithinMs: e.API_REQUEST_TIMEOUT_MS,
      },
    },
    metrics: { apiPort: e.METRICS_PORT, workerPort: e.WORKER_METRICS_PORT, workerSdkPort: e.WORKER_SDK_METRICS_PORT, intakePort: e.INTAKE_METRICS_PORT },
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    embeddedPostgresPort: e.EMBEDDED_POSTGRES_PORT,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      devServerPort: e.TEMPORAL_DEV_PORT,
      uiPort: e.TEMPORAL_UI_PORT,
      cliPath: e.TEMPORAL_CLI_PATH,
      historyShards: e.TEMPORAL_HISTORY_SHARDS,
    },
    apiKeyPrefix: e.API_KEY_PREFIX,
    rateLimit: { perSecond: e.RATE_LIMIT_PER_SECOND, burst: e.RATE_LIMIT_BURST },
    authFailureLimit: { perMinute: e.AUTH_FAILURES_PER_MINUTE, burst: e.AUTH_FAILURE_BURST },
    logLevel: e.LOG_LEVEL,
    projectRoot,
    secretsEncryptionKey: e.SECRETS_ENCRYPTION_KEY,
    supervisor: { partUnresponsiveMs: e.PART_UNRESPONSIVE_SECONDS * 1_000 },
    webhooks: {
      allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? e.NODE_ENV !== 'production',
      requireHttps: e.NODE_ENV === 'production',
      repairAfterSeconds: e.WEBHOOK_REPAIR_AFTER_SECONDS,
    },
    blobStore: blobStoreConfig(e, path.resolve(e.DATA_DIR)),
    email: {
      port: e.SMTP_PORT,
      host: e.SMTP_HOST,
      domain: e.INBOX_DOMAIN,
      maxMessageBytes: e.SMTP_MAX_MESSAGE_BYTES,
      dailyQuota: { messages: e.SMTP_DAILY_QUOTA_MESSAGES, bytes: e.SMTP_DAILY_QUOTA_BYTES },
      maxConnectionsPerAddress: e.SMTP_MAX_CONNECTIONS_PER_ADDRESS,
      maxSessionMs: e.SMTP_MAX_SESSION_SECONDS * 1000,
    },
    exports: { alegraBaseUrl: e.ALEGRA_BASE_URL },
    dian: { simulatorUrl: e.DIAN_SIMULATOR_URL, bulkListing: e.DIAN_BULK_LISTING === 'assumed' },
  };
}

function blobStoreConfig(e: z.infer<typeof environmentSchema>, dataDir: string): AppConfig['blobStore'] {
  if (e.BLOB_STORE === 'filesystem') {
    return { driver: 'filesystem', directory: path.resolve(e.BLOB_DIR ?? path.join(dataDir, 'blobs')) };
  }
  if (!e.S3_BUCKET) throw new ConfigError('Invalid configuration:\n  S3_BUCKET: required when BLOB_STORE=s3');
  return {
    driver: 's3',
    bucket: e.S3_BUCKET,
    region: e.S3_REGION,
    endpoint: e.S3_ENDPOINT,
    forcePathStyle: e.S3_FORCE_PATH_STYLE,
    deadlines: {
      connectMs: e.S3_CONNECT_TIMEOUT_MS,
      idleMs: e.S3_IDLE_TIMEOUT_MS,
      operationMs: e.S3_OPERATION_TIMEOUT_MS,
      minBytesPerSecond: e.S3_MIN_BYTES_PER_SECOND,
    },
  };
}

export const EMBEDDED_DATABASE_NAME = 'invoicing';

/** DATABASE_URL, or the embedded cluster that `npm start` runs under the data folder. */
export function databaseUrlOf(config: AppConfig): string {
  return config.databaseUrl ?? `postgres://postgres:postgres@127.0.0.1:${config.embeddedPostgresPort}/${EMBEDDED_DATABASE_NAME}`;
}

/** TEMPORAL_ADDRESS, or the local dev server that `npm start` runs. */
export function temporalAddressOf(config: AppConfig): string {
  return config.temporal.address ?? `127.0.0.1:${config.temporal.devServerPort}`;
}
