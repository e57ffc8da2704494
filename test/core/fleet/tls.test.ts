/**
 * FleetLink over `rediss://`: a real redis-server with TLS on loopback, its
 * certificate a throwaway self-signed one made with openssl for this run. The
 * link connects, and works, when it is told to trust that certificate; it
 * refuses a server it cannot verify; and the password stays out of the logs.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetLink, type FleetLinkOptions, type FleetStatus } from '../../../main/core/fleet/link.js';
import { freePort, type RedisServer, startRedisServer } from '../../helpers/redis-server.js';
import { toolOrSkip } from '../../helpers/tools.js';
import { nextEvent, recordingLogger } from './wait.js';

const TOOLS = toolOrSkip('redis-server', 'openssl');
const PASSWORD = 'tls-pw-31337';
let dir: string;
let ca: string;
let redis: RedisServer;
let tlsPort: number;
const links: FleetLink[] = [];

beforeAll(async () => {
  if (TOOLS.skip) return;
  dir = mkdtempSync(join(tmpdir(), 'bb-redis-tls-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  ca = readFileSync(cert, 'utf8');
  tlsPort = await freePort();
  redis = await startRedisServer([
    '--tls-port',
    String(tlsPort),
    '--tls-cert-file',
    cert,
    '--tls-key-file',
    key,
    '--tls-ca-cert-file',
    cert,
    '--tls-auth-clients',
    'no',
    '--requirepass',
    PASSWORD,
  ]);
});

afterAll(async () => {
  for (const link of links) link.stop();
  await redis?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function link(hostId: string, options: Partial<FleetLinkOptions>): FleetLink {
  const l = new FleetLink({
    url: `rediss://:${PASSWORD}@127.0.0.1:${tlsPort}/0`,
    hostId,
    prefix: 'tls',
    log: recordingLogger().log,
    clock: Date.now,
    commandTimeoutMs: 1_000,
    reconnect: { initialMs: 20, maxMs: 100 },
    ...options,
  });
  links.push(l);
  return l;
}

async function settled(l: FleetLink): Promise<FleetStatus> {
  const status = nextEvent<[FleetStatus]>(l, 'status', 5_000);
  l.start();
  return (await status)[0];
}

describe.skipIf(TOOLS.skip)(TOOLS.title('FleetLink over rediss://'), () => {
  it('connects with TLS to a server whose certificate it trusts, and shares breakers through it', async () => {
    const recorder = recordingLogger();
    const a = link('a', { tls: { ca }, log: recorder.log });
    const b = link('b', { tls: { ca } });
    expect(await settled(a)).toMatchObject({ connected: true, lastError: null });
    expect(await settled(b)).toMatchObject({ connected: true });
    const seen = new Promise((resolve) => b.onPeerTransition(resolve));
    const ts = Date.now();
    a.publishTransition({ dep: 'openai/gpt-4o', from: 'closed', to: 'open', reason: 'r', ts, openUntil: ts + 1 });
    expect(await seen).toMatchObject({ host: 'a', state: 'open' });
    expect((await a.acquireProbeLease('openai/gpt-4o', 60_000)).kind).toBe('granted');
    expect(recorder.text()).toContain(`rediss://127.0.0.1:${tlsPort}/0`);
    expect(recorder.text()).not.toContain(PASSWORD);
  });

  it('refuses a server whose certificate it cannot verify', async () => {
    const status = await settled(link('untrusting', {}));
    expect(status.connected).toBe(false);
    expect(status.lastError).toMatch(/self[- ]signed certificate/);
  });

  it('does not speak TLS over redis://, and TLS options do not make it', async () => {
    const status = await settled(link('plain', { url: `redis://:${PASSWORD}@127.0.0.1:${tlsPort}/0`, tls: { ca } }));
    expect(status.connected).toBe(false);
  });

  it('works on the plain port of the same server with redis://', async () => {
    const status = await settled(link('plain-ok', { url: `redis://:${PASSWORD}@127.0.0.1:${redis.port}/0` }));
    expect(status).toMatchObject({ connected: true });
  });
});
