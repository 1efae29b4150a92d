import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { provisionCacheDir } from './cache';
import { commandOnPath, runStep } from './commands';

export type GoTool = {
  /** Binary name in the cache, e.g. 'temporal'. */
  name: string;
  /**
   * The name `go install` gives the binary (its main package's directory) when that differs
   * from `name`: Temporal's server and the UI server are both `server`, so each is installed
   * into a folder of its own and moved to its cached name.
   */
  installedAs?: string;
  /** `go install` argument: module path @ exact version. */
  module: string;
  /** Environment variable naming a binary to use instead. */
  overrideVariable: string;
  /** What the tool is for, for error messages. */
  purpose: string;
};

/**
 * A tool built from the Go module proxy (the only source of binaries this project relies on
 * besides npm and Maven): the override variable, then the binary on PATH, then our cache when it
 * holds the pinned build, and otherwise `go install` into the cache.
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
  const go = commandOnPath('go');
  if (existsSync(cached)) {
    // The cache is shared by every clone and outlives a version bump: a build of another version
    // (the server before an upgrade) would run against the schema of the pinned one. Without Go,
    // there is nothing to rebuild with, so the cached binary is used as it is.
    const built = go ? await builtModuleVersion(go, cached) : null;
    if (!go || built === tool.module) return cached;
    log(`the cached ${tool.name} is ${built ?? 'not a go install build'}, not ${tool.module}; rebuilding it`);
  }

  if (!go) {
    throw new Error(
      `${tool.name} is needed for ${tool.purpose}. Install Go (to let us build it), put \`${tool.name}\` on PATH, or set ${tool.overrideVariable}.`,
    );
  }
  await mkdir(binDir, { recursive: true });
  log(`building ${tool.name} with go install ${tool.module} (first run only, a few minutes)…`);
  const installDir = tool.installedAs ? path.join(binDir, `.install-${tool.name}`) : binDir;
  const installed = path.join(installDir, tool.installedAs ?? tool.name);
  await runStep(`go install of ${tool.name}`, go, ['install', tool.module], { ...process.env, GOBIN: installDir });
  if (!existsSync(installed)) throw new Error(`go install finished but ${installed} is missing.`);
  if (installed !== cached) {
    await rename(installed, cached);
    await rm(installDir, { recursive: true, force: true });
  }
  return cached;
}

/**
 * The main package path and module version a Go binary was built from (its embedded build info,
 * read by `go version -m` in milliseconds) in the form of `GoTool.module`, e.g.
 * `go.temporal.io/server/cmd/server@v1.32.1`; null when the file carries none.
 */
export async function builtModuleVersion(go: string, binary: string): Promise<string | null> {
  const { stdout } = await promisify(execFile)(go, ['version', '-m', binary], { maxBuffer: 1 << 20 }).catch(() => ({ stdout: '' }));
  const field = (name: string) => stdout.split('\n').map((line) => line.trim().split('\t')).find((columns) => columns[0] === name);
  const mainPackage = field('path')?.[1];
  const version = field('mod')?.[2];
  return mainPackage && version ? `${mainPackage}@${version}` : null;
}
