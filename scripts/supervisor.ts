import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { AliveMessage, ReadyMessage } from '../config/shutdown';
import { partNodeArguments, type PartName } from './build-parts';
import { RESTART_POLICY, restartDelayMs } from './restart-policy';

export type PartSpec = {
  /** api, worker, intake: the name in logs and in the run record. */
  name: string;
  /** Which process it runs (scripts/build-parts.ts PART_ENTRIES). */
  part: PartName;
  /** Compiled parts (buildParts); without it the part runs from source through tsx. */
  compiledDir?: string;
  env: NodeJS.ProcessEnv;
};

export type PartEvents = {
  log(line: string): void;
  /** A new process of the part runs (the run record keeps its pid). */
  spawned(pid: number): void;
};

const projectRoot = path.resolve(__dirname, '..');

/** How often the supervisor looks at its parts' last report. */
const LIVENESS_CHECK_MS = 1_000;

/**
 * One supervised part: a Node child process with an IPC channel. The child reports "ready"
 * over it (config/shutdown.ts reportReady) and stops by itself when the channel closes, so a
 * supervisor killed with -9 leaves no part running. Each child is its own process group:
 * Ctrl-C reaches the supervisor alone, which then stops the parts with SIGTERM, in order.
 */
export class SupervisedPart {
  private child: ChildProcess | null = null;
  private stopping = false;
  private everReady = false;
  private attempt = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  private healthyTimer: NodeJS.Timeout | null = null;
  private livenessTimer: NodeJS.Timeout | null = null;
  private firstReady: { resolve(message: ReadyMessage): void; reject(error: Error): void } | null = null;
  /** What the current process reported when it became ready. */
  ready: ReadyMessage | null = null;

  constructor(
    readonly spec: PartSpec,
    private readonly events: PartEvents,
    private readonly policy = RESTART_POLICY,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the part; resolves with its first "ready" message, rejects when it cannot start. */
  start(): Promise<ReadyMessage> {
    return new Promise((resolve, reject) => {
      this.firstReady = { resolve, reject };
      this.spawn();
    });
  }

  /** SIGTERM (the part drains), SIGKILL after the grace period; no restart afterwards. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.healthyTimer) clearTimeout(this.healthyTimer);
    if (this.livenessTimer) clearInterval(this.livenessTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => {
      this.events.log(`${this.spec.name} did not stop within ${this.policy.stopGraceMs / 1000} s; killing it`);
      child.kill('SIGKILL');
    }, this.policy.stopGraceMs);
    await exited;
    clearTimeout(killer);
  }

  /**
   * Kills a ready part that stopped reporting (config/shutdown.ts reportReady): frozen, it keeps
   * its IPC channel and its ports open and nothing else notices; killed, it is restarted like a
   * crashed one. Until 2026-11-25 a worker frozen by SIGSTOP held its imports and deliveries for
   * as long as it stayed frozen, and the supervisor reported nothing.
   */
  private watchLiveness(child: ChildProcess, heardAt: () => number): void {
    if (this.livenessTimer) clearInterval(this.livenessTimer);
    let tickedAt = Date.now();
    let watchingSince = Date.now();
    this.livenessTimer = setInterval(() => {
      const now = Date.now();
      // The supervisor itself was paused (its machine suspended, it was frozen): its parts' silence
      // meanwhile is not theirs, so the count starts again.
      if (now - tickedAt > LIVENESS_CHECK_MS * 5) watchingSince = now;
      tickedAt = now;
      const silentMs = now - Math.max(heardAt(), watchingSince);
      if (this.stopping || silentMs < this.policy.unresponsiveAfterMs) return;
      if (this.livenessTimer) clearInterval(this.livenessTimer);
      this.events.log(`${this.spec.name} (pid ${child.pid}) has not answered for ${(silentMs / 1000).toFixed(1)} s; killing it`);
      child.kill('SIGKILL');
    }, LIVENESS_CHECK_MS);
    this.livenessTimer.unref();
  }

  private spawn(): void {
    const child = spawn(process.execPath, partNodeArguments(this.spec.part, this.spec.compiledDir), {
      cwd: projectRoot,
      env: this.spec.env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      detached: true,
    });
    this.child = child;
    this.ready = null;
    const startedAt = Date.now();
    if (child.pid) this.events.spawned(child.pid);
    let heardAt = Date.now();
    child.on('message', (message: ReadyMessage | AliveMessage) => {
      heardAt = Date.now();
      if (message?.type !== 'ready') return;
      this.watchLiveness(child, () => heardAt);
      this.ready = message;
      this.everReady = true;
      this.events.log(`${this.spec.name} ready (pid ${child.pid})`);
      // A part that has served for a while starts over at the shortest delay.
      this.healthyTimer = setTimeout(() => (this.attempt = 0), this.policy.healthyAfterMs);
      this.healthyTimer.unref();
      this.firstReady?.resolve(message);
      this.firstReady = null;
    });
    child.on('error', (error) => this.events.log(`${this.spec.name}: ${error.message}`));
    child.once('exit', (code, signal) => {
      if (this.healthyTimer) clearTimeout(this.healthyTimer);
      if (this.livenessTimer) clearInterval(this.livenessTimer);
      if (this.stopping) return;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const ranFor = `${((Date.now() - startedAt) / 1000).toFixed(1)} s`;
      if (!this.everReady && this.attempt + 1 >= this.policy.startAttempts) {
        this.firstReady?.reject(new Error(`${this.spec.name} ${how} before it was ready, ${this.policy.startAttempts} times; see its log above`));
        this.firstReady = null;
        return;
      }
      const delay = restartDelayMs(this.policy, this.attempt);
      this.attempt += 1;
      this.events.log(`${this.spec.name} (pid ${child.pid}) ${how} after ${ranFor}; restarting in ${delay / 1000} s (restart ${this.attempt})`);
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        if (!this.stopping) this.spawn();
      }, delay);
    });
  }
}
