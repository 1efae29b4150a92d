// Records the histories of cancelled imports, exports and DIAN events replayed by
// test/workflows/webhook-replay.test.ts. The committed ones were recorded at commit da90be3, BEFORE
// cancelled workflows settled their record (patch 'settle-on-cancellation'), from an archive of that
// commit (git archive da90be3 | tar -x -C /tmp/old; ln -s $PWD/node_modules /tmp/old/node_modules;
// put this file at the same path there and run it with npx tsx, HISTORIES_DIR=<this folder>). It starts its own dev server on 127.0.0.1:44001.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { writeWorkflowBundle } from '../../../scripts/bundle-workflows';

const OUT = process.env.HISTORIES_DIR ?? __dirname;
const address = '127.0.0.1:44001';
const BUNDLE = '/tmp/cancelled-histories-bundle.js';
const hang = async () => {
  await new Promise((resolve) => setTimeout(resolve, 4000));
  throw new Error('recorder: gave up');
};

async function main() {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const server = spawn(process.env.TEMPORAL_CLI_PATH ?? path.join(os.homedir(), '.cache/document-invoicing/bin/temporal'), ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', '44001', '--http-port', '44007', '--metrics-port', '44008', '--log-level', 'error'], { stdio: 'inherit' });
  try {
    let connection: Connection | undefined;
    for (let i = 0; i < 60 && !connection; i++) {
      try { connection = await Connection.connect({ address }); } catch { await new Promise((r) => setTimeout(r, 500)); }
    }
    const client = new Client({ connection: connection! });
    await writeWorkflowBundle(BUNDLE);
    const taskQueue = 'rec';
    const handles = {
      'import-cancelled-before-start': await client.workflow.start('importFileWorkflow', { taskQueue, workflowId: 'rec/file-import-1', args: [{ fileId: 1 }] }),
    };
    await handles['import-cancelled-before-start'].cancel();
    const worker = await Worker.create({
      connection: await NativeConnection.connect({ address }),
      taskQueue,
      workflowBundle: { codePath: BUNDLE },
      activities: { importUploadedFile: hang, postExport: hang, sendDianEvent: hang },
    });
    await worker.runUntil(async () => {
      const midway = {
        'import-cancelled-while-importing': await client.workflow.start('importFileWorkflow', { taskQueue, workflowId: 'rec/file-import-2', args: [{ fileId: 2 }] }),
        'export-cancelled-while-posting': await client.workflow.start('exportDocumentWorkflow', { taskQueue, workflowId: 'rec/export-1', args: [{ exportId: 1 }] }),
        'dian-event-cancelled-while-sending': await client.workflow.start('dianEventWorkflow', { taskQueue, workflowId: 'rec/dian-event-1', args: [{ eventId: 1 }] }),
      };
      await new Promise((resolve) => setTimeout(resolve, 1500));
      for (const handle of Object.values(midway)) await handle.cancel();
      const all = { ...handles, ...midway };
      for (const [name, handle] of Object.entries(all)) {
        await handle.result().then(() => console.log(name, 'completed?!'), (error: Error) => console.log(name, (error.cause as Error | undefined)?.name));
        const history = await handle.fetchHistory();
        await writeFile(`${OUT}/${name}.binpb`, temporal.api.history.v1.History.encode(history).finish());
      }
    });
  } finally {
    server.kill('SIGTERM');
  }
}
main().then(() => process.exit(0), (error) => { console.error(error); process.exit(1); });
