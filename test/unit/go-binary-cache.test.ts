import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { provisionCacheDir } from '../../scripts/provision/cache';
import { commandOnPath } from '../../scripts/provision/commands';
import { builtModuleVersion } from '../../scripts/provision/go-binary';
import { ensureTemporalServer, TEMPORAL_SERVER_VERSION } from '../../scripts/provision/temporal-server';

// The provisioning cache (~/.cache/document-invoicing/bin) is shared by every clone and outlives
// a version bump. Until 2026-11-25 a cached binary was used whatever version it was built from:
// after TEMPORAL_SERVER_VERSION moved on, `npm run start:cluster` would have run the old server
// against the schema of the new one (temporal-sql-tool migrates with the pinned module's schema).
// Real builds from the machine's cache: the Temporal CLI (v1.5.1, another module) stands in
// for a stale server build. No download happens: the module proxy is off and the module cache
// empty, so a rebuild fails at once, which is how the test sees that one was attempted.

const realCache = path.join(provisionCacheDir(), 'bin');
const go = commandOnPath('go');
let workDir: string;

test.before(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'go-binary-cache-'));
  delete process.env.TEMPORAL_SERVER_PATH;
  Object.assign(process.env, { PROVISION_CACHE_DIR: workDir, GOPROXY: 'off', GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', GOMODCACHE: path.join(workDir, 'modcache') });
  await mkdir(path.join(workDir, 'bin'));
});
test.after.always(async () => {
  await rm(workDir, { recursive: true, force: true });
});

async function cacheHolds(target: string) {
  const cached = path.join(workDir, 'bin', 'temporal-server');
  await rm(cached, { force: true });
  await symlink(target, cached);
  return cached;
}

test.serial('a Go binary names the package and module version it was built from; another file names none', async (t) => {
  t.truthy(go, 'Go is on PATH');
  t.true(existsSync(path.join(realCache, 'temporal-server')), 'the Temporal server is provisioned (npm run provision)');
  t.is(await builtModuleVersion(go!, path.join(realCache, 'temporal-server')), `go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`);
  t.is(await builtModuleVersion(go!, path.join(realCache, 'temporal')), 'github.com/temporalio/cli/cmd/temporal@v1.5.1');
  t.is(await builtModuleVersion(go!, __filename), null);
});

test.serial('a cached build of the pinned version is used as it is', async (t) => {
  const cached = await cacheHolds(path.join(realCache, 'temporal-server'));
  const said: string[] = [];
  t.is(await ensureTemporalServer((line) => said.push(line)), cached);
  t.deepEqual(said, []);
});

test.serial('a cached build of another version is rebuilt, not run', async (t) => {
  await cacheHolds(path.join(realCache, 'temporal'));
  const said: string[] = [];
  const error = await t.throwsAsync(ensureTemporalServer((line) => said.push(line)));
  t.regex(error!.message, /go install of temporal-server failed/);
  t.is(said[0], `the cached temporal-server is github.com/temporalio/cli/cmd/temporal@v1.5.1, not go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}; rebuilding it`);
});

test.serial('a cached file that is no Go build is rebuilt too', async (t) => {
  await cacheHolds(__filename);
  const said: string[] = [];
  await t.throwsAsync(ensureTemporalServer((line) => said.push(line)), { message: /go install of temporal-server failed/ });
  t.regex(said[0] ?? '', /^the cached temporal-server is not a go install build, not go\.temporal\.io\/server\/cmd\/server@v/);
});
