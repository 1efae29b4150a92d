import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { workflowsPath } from '../worker/create-worker';

/**
 * Prebuilds the workflow bundle so the worker does not run webpack at start:
 *
 *   npx tsx scripts/bundle-workflows.ts [output]   (default dist/workflow-bundle.js)
 *
 * The worker loads it when WORKFLOW_BUNDLE_PATH points at the output (see Dockerfile).
 */
async function main() {
  const output = path.resolve(process.argv[2] ?? path.join('dist', 'workflow-bundle.js'));
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
  await mkdir(path.dirname(output), { recursive: true });
  await writeFile(output, code);
  console.log(`workflow bundle written to ${output} (${Buffer.byteLength(code)} bytes)`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
