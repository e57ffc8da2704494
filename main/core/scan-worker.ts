/**
 * A `scanInParallel` worker: reads the inputs it was given, in order, and
 * posts one result per input (the main thread merges them).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type ReadOptions, readInput, type ScanInput, scanScratch } from './scan-read.js';

const { inputs, options } = workerData as { inputs: ScanInput[]; options: ReadOptions };
const scratch = scanScratch();
for (const input of inputs) parentPort?.postMessage(readInput(input, options, scratch));
