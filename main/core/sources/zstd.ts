/**
 * Decoding one zstd frame, as OpenClaw (2026.9 and later) stores large
 * transcript events in `transcript_events.event_zstd`.
 *
 * Two decoders, because BreakerBar runs on two kinds of runtime: Node ≥ 22.15
 * and Electron 41 (the packaged app's core) have `zstdDecompressSync` in
 * `node:zlib`, native and fast; Node 20, which BreakerBar still supports (and
 * runs its tests on), has no zstd at all. There fzstd, a small pure-JS decoder,
 * does the work. Both give the same bytes for an intact frame. One difference:
 * fzstd does not verify a frame's checksum (node:zlib does), so on Node 20 a
 * damaged frame can decode to wrong bytes; the caller's size check
 * (`event_utf8_bytes`) and JSON parsing catch most of that.
 */
import * as zlib from 'node:zlib';
import { decompress as fzstdDecompress } from 'fzstd';

type Decompress = (frame: Buffer) => Buffer;

/** `node:zlib`'s decoder where this runtime has it (absent from Node 20's typings, hence the cast). */
const native = (zlib as unknown as { zstdDecompressSync?: Decompress }).zstdDecompressSync;

/** Which decoder this process uses (the doctor names it). */
export const ZSTD_DECODER: 'node:zlib' | 'fzstd' = typeof native === 'function' ? 'node:zlib' : 'fzstd';

/** A zstd frame starts with 28 b5 2f fd (0xfd2fb528, little-endian). */
const FRAME_MAGIC = 0xfd2fb528;

export class ZstdError extends Error {
  override name = 'ZstdError';
}

/**
 * The decompressed bytes of `frame`. Throws ZstdError, saying what is wrong,
 * for anything that is not one intact zstd frame.
 */
export function decompressZstd(frame: Buffer): Buffer {
  if (frame.length < 4 || frame.readUInt32LE(0) !== FRAME_MAGIC) {
    // Checked first: both decoders' own words for this ("Unknown frame descriptor") say little.
    throw new ZstdError(`not a zstd frame: ${frame.length} byte(s) starting ${hexStart(frame)}, expected 28 b5 2f fd`);
  }
  try {
    if (native) return native(frame);
    const out = fzstdDecompress(frame);
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  } catch (error) {
    throw new ZstdError(`corrupt zstd frame (${frame.length} bytes): ${(error as Error).message}`);
  }
}

function hexStart(frame: Buffer): string {
  return frame.length === 0
    ? '(empty)'
    : frame
        .subarray(0, 4)
        .toString('hex')
        .replace(/(..)(?!$)/g, '$1 ');
}
