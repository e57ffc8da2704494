/**
 * A `scanInParallel` worker: started before the inputs are known (it loads its
 * modules meanwhile), it is sent its share, reads it in order, posts one result
 * per input (the main thread merges them) and ends.
 */
import { parentPort } from 'node:worker_threads';
import { type ReadOptions, readInput, type ScanInput, scanScratch } from './scan-read.js';

export interface ScanWorkerRequest {
  inputs: ScanInput[];
  options: ReadOptions;
}

const port = parentPort;
port?.once('message', ({ inputs, options }: ScanWorkerRequest) => {
  const scratch = scanScratch();
  for (const input of inputs) port.postMessage(readInput(input, options, scratch));
  port.close();
});
