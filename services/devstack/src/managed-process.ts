import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

export interface LocalProcess {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  /** Whether the process is running now. */
  running(): boolean;
  /** Its process id while running (benchmarks read its CPU time). */
  readonly pid: number | undefined;
  /** Stops it (SIGTERM, then SIGKILL after the grace). */
  stop(graceMs?: number): Promise<void>;
  /** Kills it at once, as a crash would. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data, and waits until it answers. */
  start(): Promise<void>;
}

/** A server binary run as a child process, its output appended to `logFile`; `ready` says when it answers. */
export function managedProcess(
  name: string,
  port: number,
  url: string,
  command: string,
  args: string[],
  logFile: string,
  ready: () => Promise<void>,
  /** Variables set for the process on top of this one's environment. */
  environment: Record<string, string> = {},
  /** The account to run it as (a server that refuses root), and the signal that stops it (SIGTERM by default). */
  options: { uid?: number; gid?: number; stopSignal?: NodeJS.Signals } = {},
): LocalProcess {
  let child: ChildProcess | undefined;
  const start = async () => {
    if (child && child.exitCode === null && child.signalCode === null) return;
    const output = fs.openSync(logFile, 'a');
    child = spawn(command, args, {
      stdio: ['ignore', output, output],
      env: { ...process.env, ...environment },
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
    });
    fs.closeSync(output);
    const exited = new Promise<never>((_, reject) =>
      child!.once('exit', (code, signal) => reject(new Error(`${name} exited (${signal ?? code}) before it was ready; see ${logFile}`))),
    );
    await Promise.race([ready(), exited]);
  };
  const waitExit = (graceMs: number, signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      const current = child;
      if (!current || current.exitCode !== null || current.signalCode !== null) return resolve();
      const timer = setTimeout(() => current.kill('SIGKILL'), graceMs);
      current.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      current.kill(signal);
    });
  return {
    name,
    port,
    url,
    running: () => !!child && child.exitCode === null && child.signalCode === null,
    get pid() {
      return child?.pid;
    },
    start,
    stop: (graceMs = 5_000) => waitExit(graceMs, options.stopSignal ?? 'SIGTERM'),
    kill: () => waitExit(1_000, 'SIGKILL'),
  };
}
