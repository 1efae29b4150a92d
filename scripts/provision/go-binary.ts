import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { provisionCacheDir } from './cache';
import { commandOnPath, runStep } from './commands';

export type GoTool = {
  /** Binary name, e.g. 'temporal'. */
  name: string;
  /** `go install` argument: module path @ exact version. */
  module: string;
  /** Environment variable naming a binary to use instead. */
  overrideVariable: string;
  /** What the tool is for, for error messages. */
  purpose: string;
};

/**
 * A tool built from the Go module proxy (the only source of binaries this project relies on
 * besides npm and Maven): the override variable, then the binary on PATH, then our cache, and
 * otherwise `go install` into the cache.
 */
export async function ensureGoTool(tool: GoTool, log: (line: string) => void = () => undefined): Promise<string> {
  const configured = process.env[tool.overrideVariable];
  if (configured) {
    if (!existsSync(configured)) throw new Error(`${tool.overrideVariable}=${configured} does not exist.`);
    return configured;
  }
  const onPath = commandOnPath(tool.name);
  if (onPath) return onPath;

  const binDir = path.join(provisionCacheDir(), 'bin');
  const cached = path.join(binDir, tool.name);
  if (existsSync(cached)) return cached;

  const go = commandOnPath('go');
  if (!go) {
    throw new Error(
      `${tool.name} is needed for ${tool.purpose}. Install Go (to let us build it), put \`${tool.name}\` on PATH, or set ${tool.overrideVariable}.`,
    );
  }
  await mkdir(binDir, { recursive: true });
  log(`building ${tool.name} with go install ${tool.module} (first run only, a few minutes)…`);
  await runStep(`go install of ${tool.name}`, go, ['install', tool.module], { ...process.env, GOBIN: binDir });
  if (!existsSync(cached)) throw new Error(`go install finished but ${cached} is missing.`);
  return cached;
}
