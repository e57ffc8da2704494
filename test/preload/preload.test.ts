/**
 * The preload, run the way Electron runs a sandboxed preload: compiled to
 * CommonJS and evaluated as a script whose `require` knows only `electron`
 * (here a fake that records what the preload does with it). What it must
 * expose is renderer/bridge.ts's BreakerBarBridge: one function per action on
 * its own channel (the channels main/app/ipc.ts handles), never ipcRenderer,
 * never the IPC event object.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CHANNELS, EVENT_CHANNEL } from '../../main/app/ipc-contract.js';
import type { BreakerBarBridge } from '../../renderer/bridge.js';

const SOURCE = fileURLToPath(new URL('../../preload/index.cts', import.meta.url));

/** Every method of the bridge (the compiler checks this list against the interface). */
const METHODS: Record<keyof BreakerBarBridge, true> = {
  status: true,
  history: true,
  incidents: true,
  incident: true,
  spend: true,
  restart: true,
  pause: true,
  resume: true,
  control: true,
  config: true,
  saveConfig: true,
  doctor: true,
  onEvent: true,
};

type Listener = (...args: unknown[]) => void;

let exposed: Record<string, unknown>;
let required: string[];
const ipcRenderer = {
  invoke: vi.fn(async (channel: string, ...args: unknown[]) => ({ channel, args })),
  on: vi.fn((_channel: string, _listener: Listener) => {}),
  off: vi.fn((_channel: string, _listener: Listener) => {}),
  send: vi.fn(),
};

/** Compiles and runs the preload as Electron's sandbox does (a function of require, process, …). */
function runPreload(): BreakerBarBridge {
  const { outputText } = ts.transpileModule(readFileSync(SOURCE, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    fileName: 'index.cts',
  });
  const sandboxRequire = (name: string) => {
    required.push(name);
    if (name !== 'electron') throw new Error(`module not found: ${name}`);
    return {
      contextBridge: {
        exposeInMainWorld: (key: string, api: unknown) => {
          exposed[key] = api;
        },
      },
      ipcRenderer,
    };
  };
  const module = { exports: {} };
  new Function(
    'require',
    'process',
    'Buffer',
    'global',
    'setImmediate',
    'clearImmediate',
    'exports',
    'module',
    outputText,
  )(sandboxRequire, {}, undefined, {}, setImmediate, clearImmediate, module.exports, module);
  return exposed.breakerbar as BreakerBarBridge;
}

beforeEach(() => {
  exposed = {};
  required = [];
  vi.clearAllMocks();
});

describe('preload', () => {
  it('needs nothing but electron, and exposes exactly window.breakerbar with the bridge’s methods', () => {
    const bridge = runPreload();
    expect(required).toEqual(['electron']);
    expect(Object.keys(exposed)).toEqual(['breakerbar']);
    expect(Object.keys(bridge).sort()).toEqual(Object.keys(METHODS).sort());
    for (const value of Object.values(bridge)) expect(typeof value).toBe('function');
    expect(ipcRenderer.send).not.toHaveBeenCalled();
  });

  it('invokes one channel per action with exactly its arguments, the ones main handles', async () => {
    const bridge = runPreload();
    const calls = [
      [bridge.status(), 'status', []],
      [
        bridge.history({ from: 1, to: 2, stepSec: 60, dep: 'a/b' }),
        'history',
        [{ from: 1, to: 2, stepSec: 60, dep: 'a/b' }],
      ],
      [bridge.incidents({ limit: 5 }), 'incidents', [{ limit: 5 }]],
      [bridge.incident(7), 'incident', [7]],
      [bridge.spend(), 'spend', []],
      [bridge.restart({ force: true, reason: 'r' }), 'restart', [{ force: true, reason: 'r' }]],
      [bridge.pause(null), 'pause', [null]],
      [bridge.resume(), 'resume', []],
      [bridge.control('a/b', 'reset', 'why'), 'control', ['a/b', 'reset', 'why']],
      [bridge.config(), 'config', []],
      [bridge.saveConfig({ log: { level: 'debug' } }), 'saveConfig', [{ log: { level: 'debug' } }]],
      [bridge.doctor(), 'doctor', []],
    ] as const;
    for (const [promise, action, args] of calls) {
      expect(await promise).toEqual({ channel: CHANNELS[action], args });
    }
    const used = new Set(ipcRenderer.invoke.mock.calls.map(([channel]) => channel));
    expect([...used].sort()).toEqual(Object.values(CHANNELS).sort());
  });

  it('hands an event listener the event’s data only, and unsubscribes the same listener', () => {
    const bridge = runPreload();
    const received: unknown[][] = [];
    const unsubscribe = bridge.onEvent((...args: unknown[]) => received.push(args));
    expect(ipcRenderer.on).toHaveBeenCalledTimes(1);
    const [channel, listener] = ipcRenderer.on.mock.calls[0] as [string, Listener];
    expect(channel).toBe(EVENT_CHANNEL);
    const ipcEvent = { sender: { send: () => {} }, ports: [] };
    listener(ipcEvent, { type: 'notice', data: { title: 't' } });
    expect(received).toEqual([[{ type: 'notice', data: { title: 't' } }]]);
    unsubscribe();
    expect(ipcRenderer.off).toHaveBeenCalledWith(EVENT_CHANNEL, listener);
  });
});
