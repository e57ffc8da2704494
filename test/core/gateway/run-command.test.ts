import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OUTPUT_CAP_BYTES, runCommand } from '../../../main/core/gateway/run-command.js';

const node = process.execPath;

/** Whether a process still runs (a zombie awaiting its reaper counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
    } catch {
      return false;
    }
  }
  return true;
}

async function eventuallyDead(pid: number, withinMs = 3000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return !alive(pid);
}

describe('runCommand', () => {
  it('reports exit codes and captures stdout and stderr', async () => {
    const ok = await runCommand([node, '-e', 'process.stdout.write("hello"); process.stderr.write("warn")'], {
      timeoutMs: 10_000,
    });
    expect(ok).toMatchObject({
      exitCode: 0,
      signal: null,
      timedOut: false,
      spawnError: null,
      stdout: 'hello',
      stderr: 'warn',
    });
    expect(ok.durationMs).toBeGreaterThan(0);

    const three = await runCommand([node, '-e', 'process.exit(3)'], { timeoutMs: 10_000 });
    expect(three.exitCode).toBe(3);
    expect(three.timedOut).toBe(false);
  });

  it('passes arguments verbatim, without a shell', async () => {
    const result = await runCommand(['sh', '-c', 'printf "%s|" "$@"', 'sh', '$HOME', 'a b', '; rm -rf /', '*'], {
      timeoutMs: 10_000,
    });
    expect(result.stdout).toBe('$HOME|a b|; rm -rf /|*|');
  });

  it('uses the given environment', async () => {
    const result = await runCommand([node, '-e', 'process.stdout.write(process.env.BB_PROBE ?? "unset")'], {
      timeoutMs: 10_000,
      env: { ...process.env, BB_PROBE: 'set-by-test' },
    });
    expect(result.stdout).toBe('set-by-test');
  });

  it('keeps only the last 8 KB of each stream', async () => {
    const script =
      'process.stdout.write("a".repeat(20000) + "THE-END"); process.stderr.write("b".repeat(9000) + "ERR-END")';
    const result = await runCommand([node, '-e', script], { timeoutMs: 10_000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.length).toBe(OUTPUT_CAP_BYTES);
    expect(result.stdout.endsWith('aaaTHE-END')).toBe(true);
    expect(result.stderr.length).toBe(OUTPUT_CAP_BYTES);
    expect(result.stderr.endsWith('ERR-END')).toBe(true);
  });

  it('does not cut a multi-byte character in half at the cap', async () => {
    // 10001 bytes: the last 8192 start with the second byte of an 'é'.
    const script = 'process.stdout.write("é".repeat(5000) + "x")';
    const result = await runCommand([node, '-e', script], { timeoutMs: 10_000 });
    expect(result.stdout).not.toContain('\uFFFD');
    expect(result.stdout).toBe(`${'é'.repeat(OUTPUT_CAP_BYTES / 2 - 1)}x`);
  });

  it('stdin is closed: a command reading it sees end of input at once', async () => {
    const result = await runCommand(
      [node, '-e', 'process.stdin.resume(); process.stdin.on("end", () => process.exit(7))'],
      {
        timeoutMs: 5000,
      },
    );
    expect(result.exitCode).toBe(7);
    expect(result.timedOut).toBe(false);
  });

  it.skipIf(process.platform === 'win32')('a timeout kills `sleep 30`', async () => {
    const started = Date.now();
    const result = await runCommand(['sleep', '30'], { timeoutMs: 200, killGraceMs: 500 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGTERM');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it.skipIf(process.platform === 'win32')('a timeout kills the whole process group, children included', async () => {
    const result = await runCommand(['sh', '-c', 'sleep 30 & echo $!; wait'], { timeoutMs: 300, killGraceMs: 500 });
    expect(result.timedOut).toBe(true);
    const child = Number(result.stdout.trim());
    expect(child).toBeGreaterThan(0);
    expect(await eventuallyDead(child)).toBe(true);
  });

  it.skipIf(process.platform === 'win32')('what ignores SIGTERM gets SIGKILL after the grace period', async () => {
    const started = Date.now();
    const result = await runCommand(['sh', '-c', 'trap "" TERM; sleep 30 & echo $!; wait'], {
      timeoutMs: 200,
      killGraceMs: 300,
    });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await eventuallyDead(Number(result.stdout.trim()))).toBe(true);
  });

  it.skipIf(process.platform === 'win32')(
    'a command that exits leaves its background children alone and does not wait for them',
    async () => {
      const started = Date.now();
      // The background sleep keeps stdout open; the result must not wait for it.
      const result = await runCommand(['sh', '-c', 'sleep 5 & echo $!; exit 0'], { timeoutMs: 10_000 });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(result.exitCode).toBe(0);
      const child = Number(result.stdout.trim());
      expect(alive(child)).toBe(true);
      process.kill(child, 'SIGKILL');
    },
  );

  it('a missing program is a spawn error, not a rejection', async () => {
    const result = await runCommand(['/nonexistent/breakerbar-no-such-program', '--x'], { timeoutMs: 1000 });
    expect(result.spawnError).toBe('/nonexistent/breakerbar-no-such-program: no such program (ENOENT)');
    expect(result.exitCode).toBeNull();
    expect(result.timedOut).toBe(false);
  });

  it('an empty argv is a spawn error', async () => {
    expect((await runCommand([], { timeoutMs: 1000 })).spawnError).toBe('empty command');
  });
});
