/**
 * What a source hands the store to commit, and what the commit answers: events, signals and turns
 * together with the cursor that produced them, so that storing them and moving the cursor are one
 * transaction (exactly-once ingestion).
 */
import type { CallEvent, GatewaySignal, SourceKind, TurnEvent } from '../calls/events.js';

/** Where a source has read up to in one of its inputs. */
export interface Cursor {
  source: SourceKind;
  /** The input's identity (for files: device, inode and first-line fingerprint). */
  key: string;
  /** Last path the input was seen at (informational; identity is `key`). */
  path: string;
  /** Bytes consumed, or the last row read, depending on the source. */
  position: number;
  /** Source-specific detail (JSON), e.g. the identity of the last row read. */
  detail?: string | null;
}

export interface Batch {
  events: readonly CallEvent[];
  signals?: readonly GatewaySignal[];
  /** Turns that are not transcript records (records become turns through `events`). */
  turns?: readonly TurnEvent[];
  cursor?: Cursor;
  /**
   * Events read again on purpose (a database renumbered by VACUUM or replaced):
   * already-stored ones are expected, so they are not counted as duplicates.
   */
  replay?: boolean;
  /** Cursors whose inputs are gone for good (deleted files). */
  forget?: ReadonlyArray<Pick<Cursor, 'source' | 'key'>>;
}

export interface CommitResult {
  inserted: number;
  /** Events whose key was already stored (copies, or re-reading), never stored twice. */
  duplicates: number;
  /** The events stored as new calls (not duplicates, not the second half of a pair): what breakers and metrics may see. */
  stored: CallEvent[];
  /** Turns stored (records and refused turns). */
  turns: number;
}
