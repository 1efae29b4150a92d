import { PassThrough } from 'node:stream';
import pino from 'pino';
import { installProcessSafetyNet } from '../../config/process-safety';

// Run by test/unit/process-safety.test.ts: installs the safety net, then fails the way argv says.
installProcessSafetyNet(pino({ level: 'error' }, pino.destination(2)));
const mode = process.argv[2];
setImmediate(() => {
  if (mode === 'stream') new PassThrough().destroy(new Error('Unexpected end of form'));
  if (mode === 'reset') new PassThrough().destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
  if (mode === 'bug') (null as unknown as { x: number }).x = 1;
});
setTimeout(() => {
  process.stdout.write('still running\n');
  process.exit(0);
}, 300);
