/**
 * The small interface every source implements: find its inputs, follow them,
 * turn what it reads into normalized events, and report how far it has read.
 * Sources never write the store themselves except through `IngestSink.commit`,
 * which stores a batch of events together with the position that produced it.
 */
import type { SourceKind } from '../calls/events.js';
import type { Batch, CommitResult, Cursor } from '../store/batch.js';

export interface IngestSink {
  /** Positions committed earlier by this kind of source. */
  cursors(source: SourceKind): Cursor[];
  /** Stores events and the cursor that produced them atomically; throws if it cannot. */
  commit(batch: Batch): CommitResult;
  /**
   * The same, off the event loop where the host can (a writer thread): resolves once stored, rejects if it
   * cannot. Sources with a lot to store use it when present.
   */
  commitLater?(batch: Batch): Promise<CommitResult>;
}

export interface SourceStatus {
  kind: SourceKind;
  /** Where the source looks (directories, databases). */
  roots: string[];
  /** Inputs currently followed (files, databases). */
  inputs: number;
  lines: number;
  malformed: number;
  /**
   * SQLite transcripts only: rows that could not be decoded (a corrupt zstd
   * frame, or no event in either column) and were skipped. Not in `malformed`.
   */
  undecodable?: number;
  /**
   * Transcripts only: calls stored with a value repaired (a fraction where a whole number belongs, rounded;
   * a number past 2^53, dropped), which would otherwise have stopped the batch they came in.
   */
  repaired?: number;
  /** Calls read, and of those the ones stored (the rest were older than the backfill cutoff or already stored). */
  calls: number;
  stored: number;
  duplicates: number;
  /**
   * What is present in the inputs but not yet stored, in `pendingUnit`: the bytes of files (listed but not
   * looked at yet, read but being stored, or not read yet) or the rows of databases.
   */
  pending: number;
  /** The unit of `pending`: `bytes` for files, `rows` for databases (absent: nothing is ever pending). */
  pendingUnit?: 'bytes' | 'rows';
  /** Record time of the newest call read, epoch ms. */
  lastEventAt: number | null;
  lastError: string | null;
}

export interface Source {
  readonly kind: SourceKind;
  /** Discovers the inputs and follows them; inputs that do not exist yet are watched for. */
  start(): void;
  stop(): Promise<void>;
  status(): SourceStatus;
  /** True when everything present has been read (no backlog, nothing queued). */
  readonly caughtUp: boolean;
  /** Transcript sources: the agents whose transcripts this source can read right now. */
  coveredAgents?(): ReadonlySet<string>;
}
