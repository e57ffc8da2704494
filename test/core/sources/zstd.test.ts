/**
 * zstd decoding with node:zlib, on a frame OpenClaw really wrote.
 */
import { createHash } from 'node:crypto';
import { constants, zstdCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  decompressZstd,
  MAX_EVENT_BYTES,
  ZSTD_DECODER,
  ZstdDecoder,
  ZstdError,
} from '../../../main/core/sources/zstd.js';

/**
 * `event_zstd` of rowid 47 in test/fixtures/openclaw-2026.9.6/openclaw-agent.sqlite, as openclaw@2026.9.6
 * stored it: the `mock/ok_long` assistant record. Its digest and size were taken with Node 24's zstd.
 */
const OPENCLAW_FRAME = Buffer.from(
  'KLUv/WRREpUNAIYfXSMwS6wD0Dwf2NC1D2XQTFpLVW5uQw8H1oB/oJtlBaY6GBiGAU8AVgBQAO7wNeJrO3ru1V9LYrI0RTLSlmTKW+wpyXKP' +
    'QZZjjozEd3gJcGdLXK/uxJYOU5idbJaUCC+3JMnipmHWe08iLxEPL5+rNwJb29HhuzrcMwK2reV6RBK9tqFHwXAgUHk4PDB0tOIeUi/Qw9Zo' +
    'SjgaaOKYDFRyjkV8JoWjFQKH6rehbwH8nX0njVe/k699rOXDN0SlM6A6gfIYQmkwSWDSBBpbrq3FsfGqsbMXVADiS2/fRxpg8JI7oBWR41XT' +
    'sDvRK+Ya/J3qfM6A09URJoUOFvTwUEsaXX0RaXR4qeWzQKV6dTvpcxuqEY3r4dmVHv6pfGXQ+IEIjUbjL+EYUxLcnGNWc5BmOcVJltOaZrWE' +
    'YZc4bE7SGfAMDMXZlR4cLKhG8bIitp202paunMIkiluQtjymwU9quQMqvfaq0VieW5jmGEMw1xhjCHYtDRQAk4rVsPLkldO2mxwJwhQRNbMu' +
    'bnjC8SygqSIaIIiXefWYeYE5oZiQu6JcOEJXY1NA1SgYWnkXSWGkFhv+5w==',
  'base64',
);
const DECODED_BYTES = 4945;
const DECODED_SHA256 = '0dc5b52ac4a740f9edddccd1bddf57afd77c28af04d14df54258fb9b99a056b3';

describe('decompressZstd', () => {
  it('decodes a frame OpenClaw wrote to exactly the record it compressed', () => {
    expect(OPENCLAW_FRAME.length).toBe(448);
    const json = decompressZstd(OPENCLAW_FRAME);
    expect(Buffer.isBuffer(json)).toBe(true);
    expect(json.length).toBe(DECODED_BYTES);
    expect(createHash('sha256').update(json).digest('hex')).toBe(DECODED_SHA256);
    const record = JSON.parse(json.toString('utf8')) as { id: string; message: { role: string; model: string } };
    expect(record.id).toBe('cf93d999-788a-4462-a3dd-8d2aa50bdecb');
    expect(record.message).toMatchObject({ role: 'assistant', model: 'ok_long' });
  });

  it('decodes with node:zlib', () => {
    expect(ZSTD_DECODER).toBe('node:zlib');
  });

  it('refuses a frame whose content no longer matches its checksum instead of returning wrong bytes', () => {
    // The frame declares a content checksum (bit 2 of its descriptor, byte 4): its last four bytes.
    expect(OPENCLAW_FRAME.readUInt8(4) & 0x04).toBe(0x04);
    const damaged = Buffer.from(OPENCLAW_FRAME);
    damaged.writeUInt8(damaged.readUInt8(damaged.length - 1) ^ 0xff, damaged.length - 1);
    expect(() => decompressZstd(damaged)).toThrow(ZstdError);
    expect(() => decompressZstd(damaged)).toThrow(/^corrupt zstd frame \(448 bytes\): .*checksum/i);
  });

  it('refuses a zstd bomb: a small frame decoding to more than any event, never decoded whole', () => {
    const bomb = zstdCompressSync(Buffer.alloc(MAX_EVENT_BYTES * 4));
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(() => decompressZstd(bomb)).toThrow(ZstdError);
    expect(() => decompressZstd(bomb)).toThrow(/decodes to more than 16 MiB .*not decoded/);
    // The decoder of many rows refuses it the same way, whatever size was recorded for it.
    expect(() => new ZstdDecoder().decode(bomb, 4096)).toThrow(/decodes to more than 16 MiB/);
    // An event at the limit still decodes.
    expect(decompressZstd(zstdCompressSync(Buffer.alloc(MAX_EVENT_BYTES))).length).toBe(MAX_EVENT_BYTES);
  });

  it('says plainly when the bytes are not a zstd frame at all', () => {
    const garbage = Buffer.from('definitely not a zstd frame');
    expect(() => decompressZstd(garbage)).toThrow(ZstdError);
    expect(() => decompressZstd(garbage)).toThrow(
      'not a zstd frame: 27 byte(s) starting 64 65 66 69, expected 28 b5 2f fd',
    );
    expect(() => decompressZstd(Buffer.alloc(0))).toThrow('not a zstd frame: 0 byte(s) starting (empty)');
  });

  it('rejects a damaged frame instead of returning part of it', () => {
    const truncated = OPENCLAW_FRAME.subarray(0, 300);
    expect(() => decompressZstd(truncated)).toThrow(ZstdError);
    expect(() => decompressZstd(truncated)).toThrow(/^corrupt zstd frame \(300 bytes\): /);
  });
});

/** A frame as OpenClaw makes one: level 1, with a content checksum. */
function frameOf(text: string): Buffer {
  return zstdCompressSync(Buffer.from(text), {
    params: { [constants.ZSTD_c_compressionLevel]: 1, [constants.ZSTD_c_checksumFlag]: 1 },
  });
}

/** What `decompressZstd` does with `frame`: its bytes, or its error's words. */
function plain(frame: Buffer): Buffer | string {
  try {
    return decompressZstd(frame);
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

function reused(decoder: ZstdDecoder, frame: Buffer, expected: number | null): Buffer | string {
  try {
    return Buffer.from(decoder.decode(frame, expected));
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

describe('ZstdDecoder (one context and buffer, reused)', () => {
  it('decodes frame after frame of growing and shrinking sizes to what decompressZstd gives', () => {
    const decoder = new ZstdDecoder();
    const texts = [200, 70_000, 5, 1_500_000, 3000].map((n, i) => `{"n":${i},"t":"${'abc\\"xyz '.repeat(n / 10)}"}`);
    for (const text of texts) {
      const frame = frameOf(text);
      expect(decoder.decode(frame, Buffer.byteLength(text)).toString()).toBe(text);
    }
    expect(decoder.decode(OPENCLAW_FRAME, DECODED_BYTES).length).toBe(DECODED_BYTES);
    expect(createHash('sha256').update(decoder.decode(OPENCLAW_FRAME, DECODED_BYTES)).digest('hex')).toBe(
      DECODED_SHA256,
    );
  });

  it('hands out a view that the next decode overwrites, and a copy to keep on request', () => {
    const decoder = new ZstdDecoder();
    const first = decoder.decode(frameOf('{"a":"first"}'), 13);
    const kept = decoder.decodeToKeep(frameOf('{"a":"kept!"}'), 13);
    decoder.decode(frameOf('{"a":"third"}'), 13);
    expect(first.toString()).toBe('{"a":"third"}');
    expect(kept.toString()).toBe('{"a":"kept!"}');
    // Released, it makes itself a new context when asked again.
    decoder.release();
    expect(decoder.decode(frameOf('{"a":"again"}'), 13).toString()).toBe('{"a":"again"}');
    expect(first.toString()).toBe('{"a":"again"}');
  });

  it('fails exactly as decompressZstd on damaged, truncated and foreign frames, and decodes on afterwards', () => {
    const decoder = new ZstdDecoder();
    const damaged = Buffer.from(OPENCLAW_FRAME);
    damaged.writeUInt8(damaged.readUInt8(damaged.length - 1) ^ 0xff, damaged.length - 1);
    const corrupted = Buffer.from(OPENCLAW_FRAME);
    corrupted.fill(0x41, 40, 60);
    const cases = [
      damaged,
      corrupted,
      OPENCLAW_FRAME.subarray(0, 300),
      OPENCLAW_FRAME.subarray(0, OPENCLAW_FRAME.length - 1),
      Buffer.from('definitely not a zstd frame'),
      Buffer.alloc(0),
    ];
    for (const frame of cases) {
      const expected = plain(frame);
      expect(typeof expected).toBe('string');
      expect(reused(decoder, frame, DECODED_BYTES)).toBe(expected);
      // The context an error closed is replaced: the next frame decodes.
      expect(decoder.decode(OPENCLAW_FRAME, DECODED_BYTES).length).toBe(DECODED_BYTES);
    }
  });

  it('leaves a frame whose size differs from the recorded one, or has none recorded, to decompressZstd', () => {
    const decoder = new ZstdDecoder();
    // Larger, smaller, unknown: the bytes are decompressZstd's, so the caller sees the true size.
    for (const expected of [DECODED_BYTES - 1, DECODED_BYTES + 1, 1, null]) {
      const bytes = decoder.decode(OPENCLAW_FRAME, expected);
      expect(bytes.length).toBe(DECODED_BYTES);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(DECODED_SHA256);
    }
    // Larger than the decoder's buffer: never cut to what fits.
    const big = `{"t":"${'0123456789'.repeat(30_000)}"}`;
    for (const expected of [100, 70_000, big.length - 1]) {
      expect(decoder.decode(frameOf(big), expected).toString()).toBe(big);
    }
  });
});
