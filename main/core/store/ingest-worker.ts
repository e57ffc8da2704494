/**
 * The ingest writer's thread: its own connection to BreakerBar's database,
 * storing the groups of batches the main thread sends (see ingest-writer.ts),
 * and checkpointing the WAL, so that neither the row inserts nor the page
 * copying of checkpoints run on the event loop that answers the API and probes
 * the gateway.
 */
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { BacklogMode } from './backlog-mode.js';
import type { Batch } from './batch.js';
import { Store } from './db.js';
import { commitGroup } from './ingest-group.js';
import { codeOf } from './store-error.js';

export type WorkerRequest =
  | { id: number; kind: 'commit'; batches: Batch[] }
  | { id: number; kind: 'checkpoint' }
  /** Close the connection and end the thread (after everything sent before it). */
  | { id: number; kind: 'close' };

export type WorkerReply =
  /** `ms`: how long storing the group took in the thread. */
  | { id: number; kind: 'commit'; results: ReturnType<typeof commitGroup>; ms: number }
  | { id: number; kind: 'checkpoint'; error: string | null; code: string | null }
  | { id: -1; kind: 'failed'; error: string };

const { dbPath } = workerData as { dbPath: string };
const port = parentPort;
if (port) {
  let store: Store | null = null;
  try {
    store = Store.open(dbPath);
  } catch (error) {
    port.postMessage({ id: -1, kind: 'failed', error: (error as Error).message } satisfies WorkerReply);
  }
  const opened = store;
  if (opened) {
    const mode = new BacklogMode(opened.db);
    port.on('message', (request: WorkerRequest) => {
      if (request.kind === 'commit') {
        let events = 0;
        for (const batch of request.batches) events += batch.events.length;
        mode.beforeGroup(events);
        const started = performance.now();
        const results = commitGroup(opened, request.batches);
        const ms = performance.now() - started;
        mode.afterGroup();
        port.postMessage({ id: request.id, kind: 'commit', results, ms });
        return;
      }
      if (request.kind === 'close') {
        opened.close();
        port.close();
        return;
      }
      let error: string | null = null;
      let code: string | null = null;
      try {
        mode.period();
        opened.db.pragma('wal_checkpoint(PASSIVE)');
      } catch (failure) {
        error = (failure as Error).message;
        code = codeOf(failure);
      }
      port.postMessage({ id: request.id, kind: 'checkpoint', error, code } satisfies WorkerReply);
    });
  }
}
