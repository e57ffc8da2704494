/**
 * Attach or start: one core per data directory, decided from its lock and
 * address file; and how long to wait before starting a dead core again.
 */
import { describe, expect, it } from 'vitest';
import { decideCore, embeddedCoreArgs, nextBackoff } from '../../main/app/core-decision.js';
import { parseCommandArgs } from '../../main/cli/command.js';
import { loadCommand } from '../../main/cli/commands.js';

describe('which core the app talks to', () => {
  it('attaches to a daemon holding the data directory, at the address it wrote', () => {
    expect(decideCore({ held: true, pid: 77 }, 'http://127.0.0.1:18820')).toEqual({
      kind: 'attach',
      pid: 77,
      url: 'http://127.0.0.1:18820',
    });
    // Still starting: no address yet, but it is not ours to start again.
    expect(decideCore({ held: true, pid: null }, null)).toEqual({ kind: 'attach', pid: null, url: null });
  });

  it('starts its own core when nobody holds the lock, whatever a stale address file says', () => {
    expect(decideCore({ held: false }, null)).toEqual({ kind: 'start' });
    expect(decideCore({ held: false }, 'http://127.0.0.1:18820')).toEqual({ kind: 'start' });
  });

  it('with an unreadable lock, tries a written address and otherwise says why', () => {
    expect(decideCore({ held: 'unknown', reason: 'EACCES' }, 'http://127.0.0.1:1')).toEqual({
      kind: 'attach',
      pid: null,
      url: 'http://127.0.0.1:1',
    });
    expect(decideCore({ held: 'unknown', reason: 'cannot open lock: EACCES' }, null)).toEqual({
      kind: 'unknown',
      reason: 'cannot open lock: EACCES',
    });
  });

  it('runs the very daemon command, with its desktop notifications left to the app', async () => {
    const [name, ...flags] = embeddedCoreArgs();
    expect(name).toBe('daemon');
    // The CLI parses strictly: a flag it does not know would stop our core before it starts.
    const daemon = await loadCommand(name as string);
    expect(daemon).not.toBeNull();
    expect(parseCommandArgs(daemon as NonNullable<typeof daemon>, flags).values).toMatchObject({ 'no-desktop': true });
  });
});

describe('restart backoff', () => {
  const t = { minMs: 1000, maxMs: 8000, stableMs: 60_000 };
  it('doubles from the minimum up to the maximum while the core keeps dying young', () => {
    const delays: number[] = [];
    let previous: number | null = null;
    for (let i = 0; i < 6; i++) {
      previous = nextBackoff(previous, 500, t);
      delays.push(previous);
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it('starts from the minimum again after a run that lasted', () => {
    expect(nextBackoff(8000, 60_000, t)).toBe(1000);
  });
});
