import { onShutdownSignal } from '../../config/shutdown';

// A process whose stop takes STOP_MS, for test/unit/shutdown.test.ts: it prints when it is ready
// for signals and when its stop has finished.
const stopMs = Number(process.env.STOP_MS ?? '500');
onShutdownSignal(
  async () => {
    await new Promise((resolve) => setTimeout(resolve, stopMs));
    console.log('stopped');
  },
  (line) => console.log(line),
);
setInterval(() => undefined, 60_000);
console.log('ready');
