/**
 * The threads `scanInParallel` reads with. Kept apart from scan.ts, and light
 * (nothing but node's own modules), so that the scan command can start them
 * before it loads the rest of the scan: each thread then loads its own modules
 * while this one loads and lists (measured: a thread takes 60–90 ms to be ready,
 * about what the command's own modules take to load).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Threads for a scan asked for `workers` (default: one per core, at most 8); 1 reads in this thread. */
export function scanThreads(workers?: number): number {
  if (!canRunWorkers()) return 1;
  return Math.max(1, Math.min(workers ?? availableParallelism(), 8));
}

/** Starts `threads` scan workers (worker.ts), or none when the scan runs in this thread. */
export function startScanWorkers(threads: number): Worker[] {
  if (threads <= 1) return [];
  return Array.from({ length: threads }, () => new Worker(new URL('./worker.js', import.meta.url)));
}

/** Worker threads need the compiled module; under a TypeScript test runner scan stays in-thread. */
function canRunWorkers(): boolean {
  return import.meta.url.endsWith('.js');
}
