import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, type LoggerOptions, silentLogger } from '../../../main/core/runtime/log.js';

const NOW = Date.UTC(2026, 10, 30, 8, 15, 42, 123);

/** A logger writing into an array of lines, at a fixed time. */
function capture(options: LoggerOptions & { isTTY?: boolean } = {}) {
  const lines: string[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
    { isTTY: options.isTTY },
  );
  const log = createLogger({ clock: () => NOW, stream, ...options });
  return { log, lines };
}

describe('createLogger, JSON', () => {
  it('writes one JSON object per line with time, level, msg and the fields', () => {
    const { log, lines } = capture({ human: false });
    log.info('caught up; following live', { storedSinceStart: 12, source: 'jsonl' });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith('\n')).toBe(true);
    expect(JSON.parse(lines[0]!)).toEqual({
      time: '2026-11-30T08:15:42.123Z',
      level: 'info',
      msg: 'caught up; following live',
      storedSinceStart: 12,
      source: 'jsonl',
    });
  });

  it('is the default when the stream is not a terminal', () => {
    const { log, lines } = capture({ isTTY: false });
    log.warn('x');
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', msg: 'x' });
  });

  it('drops undefined fields and keeps nulls and booleans', () => {
    const { log, lines } = capture({ human: false });
    log.error('failed', { path: undefined, error: null, retry: true });
    expect(JSON.parse(lines[0]!)).toEqual({
      time: '2026-11-30T08:15:42.123Z',
      level: 'error',
      msg: 'failed',
      error: null,
      retry: true,
    });
  });
});

describe('createLogger, human', () => {
  it('writes a short line: time of day, level tag unless info, message, fields', () => {
    const { log, lines } = capture({ human: true });
    log.info('following OpenClaw state directory', { stateDir: '/home/u/.openclaw', files: 3 });
    log.warn('transcript read failed; will retry', { error: 'EACCES: permission denied', path: undefined });
    expect(lines).toEqual([
      '08:15:42 following OpenClaw state directory  stateDir=/home/u/.openclaw files=3\n',
      '08:15:42 WARN transcript read failed; will retry  error="EACCES: permission denied"\n',
    ]);
  });

  it('is the default on a terminal', () => {
    const { log, lines } = capture({ isTTY: true });
    log.error('boom');
    expect(lines).toEqual(['08:15:42 ERROR boom\n']);
  });
});

describe('log levels', () => {
  it('defaults to info: debug is dropped', () => {
    const { log, lines } = capture({ human: true });
    log.debug('hidden');
    log.info('shown');
    expect(lines).toEqual(['08:15:42 shown\n']);
  });

  it.each<[LoggerOptions['level'], string[]]>([
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['info', ['info', 'warn', 'error']],
    ['warn', ['warn', 'error']],
    ['error', ['error']],
  ])('level %s logs %j', (level, expected) => {
    const { log, lines } = capture({ level, human: false });
    log.debug('m');
    log.info('m');
    log.warn('m');
    log.error('m');
    expect(lines.map((line) => JSON.parse(line).level)).toEqual(expected);
  });

  it('silentLogger drops everything', () => {
    expect(() => {
      silentLogger.debug('a');
      silentLogger.info('a', { x: 1 });
      silentLogger.warn('a');
      silentLogger.error('a');
    }).not.toThrow();
  });
});
