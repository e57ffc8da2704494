/**
 * Decoding one zstd frame, as OpenClaw (2026.9 and later) stores large
 * transcript events in `transcript_events.event_zstd`.
 *
 * `node:zlib` decodes it natively on every runtime BreakerBar runs on (Node
 * ≥ 22.15, package.json's `engines.node`, and Electron's Node in the packaged
 * app), and it verifies a frame's checksum when the frame carries one, so a
 * damaged frame is refused instead of decoding to wrong bytes.
 *
 * `decompressZstd` makes a fresh decoder and a fresh output buffer per frame.
 * Reading a whole database that way spends more time creating zstd contexts and
 * collecting garbage than decoding, so readers of many rows use a `ZstdDecoder`:
 * one context and one output buffer, reused frame after frame.
 */
import * as zlib from 'node:zlib';

/** Which decoder this process uses (the doctor names it). */
export const ZSTD_DECODER = 'node:zlib';

/** A zstd frame starts with 28 b5 2f fd (0xfd2fb528, little-endian). */
const FRAME_MAGIC = 0xfd2fb528;

/**
 * The most a frame may decode to. OpenClaw stores events of at most 4 MiB; a frame that decodes to more is
 * no event of its, and a few bytes can decode to gigabytes (a zstd bomb), held by the process long after.
 */
export const MAX_EVENT_BYTES = 16 * 1024 * 1024;

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
    return zlib.zstdDecompressSync(frame, { maxOutputLength: MAX_EVENT_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new ZstdError(
        `zstd frame of ${frame.length} bytes decodes to more than ${MAX_EVENT_BYTES / 1024 / 1024} MiB ` +
          '(OpenClaw stores events of at most 4 MiB): not decoded',
      );
    }
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

/** The part of a node:zlib stream the reused decoder drives (internals, checked before use). */
interface ZlibEngine {
  destroyed: boolean;
  on(event: 'error', listener: () => void): unknown;
  close(): void;
  _handle?: {
    writeSync(
      flush: number,
      input: Buffer,
      inOff: number,
      inLen: number,
      out: Buffer,
      outOff: number,
      outLen: number,
    ): void;
    reset(): void;
  } | null;
  /** [output bytes left, input bytes left] after the last write. */
  _writeState?: Uint32Array;
}

/**
 * The largest event decoded into the reused buffer. The buffer lives as long as
 * its database stays open (the daemon keeps one per agent), so it is not grown
 * to OpenClaw's 4 MiB limit for a rare huge event: such a frame is decoded by
 * `decompressZstd`, whose per-frame cost is small next to its size.
 */
const MAX_REUSED_OUTPUT = 1024 * 1024;

/**
 * Decodes frame after frame through one zstd context into one output buffer,
 * about three times faster than `decompressZstd` on transcript-sized frames,
 * and without garbage.
 *
 * The result is a view of the decoder's buffer, valid until the next `decode`:
 * copy it to keep it. Only a frame that decodes cleanly to exactly
 * `expectedBytes` (the size OpenClaw recorded) is taken from the fast path;
 * anything else (no recorded size, a damaged frame, another size, a runtime
 * whose node:zlib lacks the internals used) goes through `decompressZstd`, so
 * the bytes returned and the errors thrown are always that function's.
 */
export class ZstdDecoder {
  private engine: ZlibEngine | null = null;
  /** False once the fast path proved unusable on this runtime: the plain path from then on. */
  private fast = true;
  private out = Buffer.allocUnsafe(64 * 1024);

  decode(frame: Buffer, expectedBytes: number | null): Buffer {
    return this.decodeInto(frame, expectedBytes, false);
  }

  /** Like `decode`, but the bytes returned are the caller's to keep. */
  decodeToKeep(frame: Buffer, expectedBytes: number | null): Buffer {
    return this.decodeInto(frame, expectedBytes, true);
  }

  private decodeInto(frame: Buffer, expectedBytes: number | null, keep: boolean): Buffer {
    if (this.fast && expectedBytes !== null && expectedBytes > 0 && expectedBytes <= MAX_REUSED_OUTPUT) {
      const view = this.tryReused(frame, expectedBytes);
      if (view !== null) return keep ? Buffer.from(view) : view;
    }
    return decompressZstd(frame);
  }

  private tryReused(frame: Buffer, expectedBytes: number): Buffer | null {
    if (frame.length < 4 || frame.readUInt32LE(0) !== FRAME_MAGIC) return null;
    const engine = this.engine ?? this.newEngine();
    const handle = engine?._handle;
    const state = engine?._writeState;
    if (!engine || !handle || !state) {
      this.fast = false;
      return null;
    }
    // One byte more than expected: a frame that decodes to more than OpenClaw recorded must not look complete.
    if (this.out.length <= expectedBytes)
      this.out = Buffer.allocUnsafe(Math.min(Math.max(expectedBytes + 1, this.out.length * 2), MAX_REUSED_OUTPUT + 1));
    const out = this.out;
    try {
      handle.writeSync(zlib.constants.ZSTD_e_end, frame, 0, frame.length, out, 0, out.length);
    } catch {
      // The internals are not what this code expects (another runtime): use the plain path from now on.
      this.engine = null;
      this.fast = false;
      return null;
    }
    if (engine.destroyed) {
      // node:zlib reported an error (damaged or truncated frame) and closed the handle: it must not be used
      // again (touching a closed handle crashes the process). The plain path will say what is wrong.
      this.engine = null;
      return null;
    }
    const produced = out.length - (state[0] as number);
    const inputLeft = state[1] as number;
    handle.reset();
    return inputLeft === 0 && produced === expectedBytes ? out.subarray(0, produced) : null;
  }

  /** Frees the zstd context now rather than when collected (a later decode makes a new one). */
  release(): void {
    this.engine?.close();
    this.engine = null;
  }

  private newEngine(): ZlibEngine | null {
    if (typeof zlib.ZstdDecompress !== 'function') return null;
    const engine = new zlib.ZstdDecompress() as unknown as ZlibEngine;
    // A decode error destroys the stream, which then emits 'error': handled here, reported by the plain path.
    engine.on('error', () => {});
    this.engine = engine;
    return engine;
  }
}
