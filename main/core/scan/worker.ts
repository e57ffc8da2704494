/**
 * A `scanInParallel` worker: started before the inputs are known (it loads its
 * modules meanwhile), it is sent inputs a few at a time, reads each in the order
 * sent and posts one result per input (the main thread merges them); it is
 * ended by the main thread once every input has been read.
 */
import { parentPort } from 'node:worker_threads';
import { type ReadOptions, readInput, type ScanInput, scanScratch } from './read.js';

export interface ScanWorkerRequest {
  inputs: ScanInput[];
  options: ReadOptions;
}

const port = parentPort;
const scratch = scanScratch();
port?.on('message', ({ inputs, options }: ScanWorkerRequest) => {
  for (const input of inputs) port.postMessage(readInput(input, options, scratch));
});
