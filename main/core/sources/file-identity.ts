/**
 * Which file is this? Paths lie (rotation renames files, a new file takes the old
 * name) and so do inode numbers (reused after deletion), so a followed file is
 * known by device + inode + a fingerprint of its first line.
 */
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';

/** The fingerprint covers the first line, capped so a 5 MB first line costs one small read. */
export const FINGERPRINT_MAX_BYTES = 4096;

export interface FileIdentity {
  dev: number;
  ino: number;
  /** sha1 of the file's first `fingerprintBytes` bytes (the first line, newline included, capped). */
  fingerprint: string;
  fingerprintBytes: number;
  /** The first line's bytes (without the newline), or its first 4 KiB; sources read headers from it. */
  head: Buffer;
}

export function identityKey(identity: Pick<FileIdentity, 'dev' | 'ino' | 'fingerprint'>): string {
  return `${identity.dev}:${identity.ino}:${identity.fingerprint}`;
}

/** `dev:ino` from a cursor key, to match a remembered cursor against a file seen on disk. */
export function inodeOfKey(key: string): string {
  return key.split(':', 2).join(':');
}

/**
 * Reads the fingerprint of an open file, or null while it cannot be known yet
 * (the first line is still being written and is shorter than the cap).
 */
export function readIdentity(fd: number, dev: number, ino: number, size: number): FileIdentity | null {
  const probe = Buffer.allocUnsafe(Math.min(size, FINGERPRINT_MAX_BYTES));
  const got = readSync(fd, probe, 0, probe.length, 0);
  const newline = probe.subarray(0, got).indexOf(10);
  let length: number;
  if (newline >= 0) length = newline + 1;
  else if (got >= FINGERPRINT_MAX_BYTES) length = FINGERPRINT_MAX_BYTES;
  else return null;
  const fingerprint = createHash('sha1').update(probe.subarray(0, length)).digest('hex').slice(0, 16);
  const head = Buffer.from(probe.subarray(0, newline >= 0 ? newline : length));
  return { dev, ino, fingerprint, fingerprintBytes: length, head };
}

/** True when the file still starts with the bytes the identity was taken from. */
export function fingerprintMatches(fd: number, identity: FileIdentity): boolean {
  const probe = Buffer.allocUnsafe(identity.fingerprintBytes);
  const got = readSync(fd, probe, 0, probe.length, 0);
  if (got < identity.fingerprintBytes) return false;
  return createHash('sha1').update(probe).digest('hex').slice(0, 16) === identity.fingerprint;
}
