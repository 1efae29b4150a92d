import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { provisionCacheDir } from './cache';
import { commandOnPath, runStep } from './commands';

/** Later tags carry a `replace` directive and cannot be `go install`ed. */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

/**
 * Finds the Temporal CLI (dev server + UI): TEMPORAL_CLI_PATH, then `temporal` on PATH,
 * then our cache, and otherwise builds it with `go install` from the Go module proxy.
 */
export async function ensureTemporalCli(log: (line: string) => void = () => undefined): Promise<string> {
  const configured = process.env.TEMPORAL_CLI_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`TEMPORAL_CLI_PATH=${configured} does not exist.`);
    return configured;
  }
  const onPath = commandOnPath('temporal');
  if (onPath) return onPath;

  const binDir = path.join(provisionCacheDir(), 'bin');
  const cached = path.join(binDir, 'temporal');
  if (existsSync(cached)) return cached;

  const go = commandOnPath('go');
  if (!go) {
    throw new Error(
      'The Temporal CLI is needed for the local dev server. Install Go (to let us build it), ' +
        'put `temporal` on PATH, or set TEMPORAL_CLI_PATH, or point TEMPORAL_ADDRESS at a running server.',
    );
  }
  await mkdir(binDir, { recursive: true });
  log(`building the Temporal CLI with go install ${TEMPORAL_CLI_MODULE} (first run only, a few minutes)…`);
  await runStep('go install of the Temporal CLI', go, ['install', TEMPORAL_CLI_MODULE], { ...process.env, GOBIN: binDir });
  if (!existsSync(cached)) throw new Error(`go install finished but ${cached} is missing.`);
  return cached;
}
