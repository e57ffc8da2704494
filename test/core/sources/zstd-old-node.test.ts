/**
 * decompressZstd on a Node without zstd in node:zlib (older than package.json's
 * `engines.node`, started by hand): the error names the runtime, not the frame.
 */
import { describe, expect, it, vi } from 'vitest';

// node:zlib as Node 20 has it: everything but zstd.
vi.mock('node:zlib', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:zlib')>()),
  zstdDecompressSync: undefined,
}));

const { decompressZstd, ZstdError } = await import('../../../main/core/sources/zstd.js');

describe('decompressZstd without zstd in node:zlib', () => {
  it('says the Node is too old instead of calling the frame corrupt', () => {
    // A well-formed empty frame: magic, descriptor (single segment, no checksum), size 0, one empty raw block.
    const frame = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x00, 0x01, 0x00, 0x00]);
    expect(() => decompressZstd(frame)).toThrow(ZstdError);
    expect(() => decompressZstd(frame)).toThrow(
      `Node ${process.versions.node} cannot decode zstd; BreakerBar needs Node 22.15 or newer`,
    );
  });
});
