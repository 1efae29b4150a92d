import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { preloadedWorkflowModules, workflowsPath } from '../worker/create-worker';

/** Bundles workflows/index.ts (webpack) into `output`; returns its size in bytes. */
export async function writeWorkflowBundle(output: string): Promise<number> {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: [workflowsPath],
    preloadModules: preloadedWorkflowModules,
    logger: new DefaultLogger('WARN'),
  });
  await mkdir(path.dirname(output), { recursive: true });
  await writeFile(output, code);
  return Buffer.byteLength(code);
}

/**
 * Prebuilds the workflow bundle so the worker does not run webpack at start:
 *
 *   npx tsx scripts/bundle-workflows.ts [output]   (default dist/workflow-bundle.js)
 *
 * The worker loads it when WORKFLOW_BUNDLE_PATH points at the output (see Dockerfile);
 * `npm test` builds one per run for every test worker (TEST_WORKFLOW_BUNDLE).
 */
async function main() {
  const output = path.resolve(process.argv[2] ?? path.join('dist', 'workflow-bundle.js'));
  const bytes = await writeWorkflowBundle(output);
  console.log(`workflow bundle written to ${output} (${bytes} bytes)`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
