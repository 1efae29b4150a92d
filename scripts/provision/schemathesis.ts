import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { provisionCacheDir } from './cache';
import { commandOnPath, runStep } from './commands';

/** The pinned Schemathesis (PyPI) the fuzz test runs; bump deliberately, with its CLI flags checked. */
export const SCHEMATHESIS_VERSION = '4.32.5';

/**
 * Schemathesis in a virtual environment of its own under the provisioning cache, installed
 * once with pip; SCHEMATHESIS_PATH names a binary to use instead. Returns the `schemathesis` path.
 */
export async function ensureSchemathesis(log: (line: string) => void = () => undefined): Promise<string> {
  const configured = process.env.SCHEMATHESIS_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`SCHEMATHESIS_PATH=${configured} does not exist.`);
    return configured;
  }
  const venv = path.join(provisionCacheDir(), `schemathesis-${SCHEMATHESIS_VERSION}`);
  const binary = path.join(venv, 'bin', 'schemathesis');
  if (existsSync(binary)) return binary;
  const python = commandOnPath('python3');
  if (!python) throw new Error('python3 (3.9 or newer, with venv) is needed to install Schemathesis for the fuzz test; or set SCHEMATHESIS_PATH.');
  await mkdir(provisionCacheDir(), { recursive: true });
  log(`installing schemathesis ${SCHEMATHESIS_VERSION} with pip into ${venv} (first run only)…`);
  await runStep('python3 -m venv', python, ['-m', 'venv', venv]);
  await runStep('pip install schemathesis', path.join(venv, 'bin', 'pip'), ['install', '--quiet', `schemathesis==${SCHEMATHESIS_VERSION}`]);
  return binary;
}
