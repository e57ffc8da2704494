/**
 * The ingest writer thread's checkpointer: a thread with its own connection that copies the WAL into the
 * database file when asked (PASSIVE: writers go on meanwhile). While a backlog is stored, a checkpoint
 * mostly waits for the disk (it syncs the file twice); run in the writer's own thread, that wait held up
 * the next group (measured: 1.3 s of a 540 MB first start's 7.7).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './db.js';

export type CheckpointRequest = 'checkpoint' | 'close';
/** A checkpoint is done (or failed: the writer's periodic checkpoint reports failures). */
export type CheckpointReply = 'done';

const { dbPath } = workerData as { dbPath: string };
const port = parentPort;
if (port) {
  const db = openDatabase(dbPath);
  port.on('message', (request: CheckpointRequest) => {
    if (request === 'close') {
      db.close();
      port.close();
      return;
    }
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Retried after the next groups.
    }
    port.postMessage('done' satisfies CheckpointReply);
  });
}
