/**
 * Decoding one zstd frame, as OpenClaw (2026.9 and later) stores large
 * transcript events in `transcript_events.event_zstd`.
 *
 * `node:zlib` decodes it natively on every runtime BreakerBar runs on (Node
 * ≥ 22.15, package.json's `engines.node`, and Electron's Node in the packaged
 * app), and it verifies a frame's checksum when the frame carries one, so a
 * damaged frame is refused instead of decoding to wrong bytes.
 */
import * as zlib from 'node:zlib';

/** Which decoder this process uses (the doctor names it). */
export const ZSTD_DECODER = 'node:zlib';

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
    // Checked first: node:zlib's own words for this ("Unknown frame descriptor") say little.
    throw new ZstdError(`not a zstd frame: ${frame.length} byte(s) starting ${hexStart(frame)}, expected 28 b5 2f fd`);
  }
  // A Node older than `engines.node` (started by hand, bypassing `npm run setup`) has no zstd:
  // say that, rather than calling every compressed row corrupt.
  if (typeof zlib.zstdDecompressSync !== 'function') {
    throw new ZstdError(`Node ${process.versions.node} cannot decode zstd; BreakerBar needs Node 22.15 or newer`);
  }
  try {
    return zlib.zstdDecompressSync(frame);
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
