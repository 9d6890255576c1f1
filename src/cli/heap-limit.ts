/**
 * Node fixes its heap limit when the process starts, and without one V8 lets garbage grow the heap
 * to several times what is alive. A command that must stay within a memory budget runs again as a
 * child with `--max-old-space-size`, unless this process already has a limit that low.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import v8 from 'node:v8';

const FLAG = '--max-old-space-size';

/** The arguments that run this command again under a heap of `mb` MiB; undefined: run it here. */
export function relaunchArgs(
  execArgv: readonly string[],
  argv: readonly string[],
  mb: number,
  heapLimitBytes = v8.getHeapStatistics().heap_size_limit,
): string[] | undefined {
  // The limit V8 reports adds the young generation to the flag's value.
  if (mb === 0 || heapLimitBytes <= mb * 1.25 * 2 ** 20) return undefined;
  return [...execArgv.filter((arg) => !arg.startsWith(`${FLAG}=`)), `${FLAG}=${mb}`, ...argv.slice(1)];
}

/** Runs the child on this process's terminal, passing on the signals that stop it; resolves with its exit code. */
export function relaunch(args: string[]): Promise<number> {
  const child = spawn(process.execPath, args, { stdio: 'inherit' });
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of signals) process.on(signal, forward);
  return new Promise((resolve, reject) => {
    const done = () => {
      for (const signal of signals) process.off(signal, forward);
    };
    child.once('error', (error) => {
      done();
      reject(error);
    });
    child.once('exit', (code, signal) => {
      done();
      resolve(code ?? 128 + (signal ? os.constants.signals[signal] : 0));
    });
  });
}
