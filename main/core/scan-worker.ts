/**
 * A `scanInParallel` worker: reads the inputs it was given, in order, and
 * posts one result per input (the main thread merges them).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type ReadOptions, readInput, SCAN_CHUNK_BYTES, type ScanInput } from './scan-read.js';

const { inputs, options } = workerData as { inputs: ScanInput[]; options: ReadOptions };
const scratch = Buffer.allocUnsafe(SCAN_CHUNK_BYTES);
for (const input of inputs) parentPort?.postMessage(readInput(input, options, scratch));
