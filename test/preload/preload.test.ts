/**
 * The preload, run the way Electron runs a sandboxed preload: compiled to
 * CommonJS and evaluated as a script whose `require` knows only `electron`
 * (here a fake that records what the preload does with it). What it must
 * expose is renderer/bridge.ts's BreakerBarBridge: `call` on the API channel
 * and `onEvent` on the event channel (the ones main/app handles), never ipcRenderer,
 * never the IPC event object.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { API_CHANNEL, EVENT_CHANNEL } from '../../main/app/ipc-contract.js';
import type { BreakerBarBridge } from '../../renderer/bridge.js';

const SOURCE = fileURLToPath(new URL('../../preload/index.cts', import.meta.url));

/** Every method of the bridge (the compiler checks this list against the interface). */
const METHODS: Record<keyof BreakerBarBridge, true> = { call: true, onEvent: true };

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

  it('invokes the one API channel with {route, params}, the channel main handles', async () => {
    const bridge = runPreload();
    expect(await bridge.call('status')).toEqual({ channel: API_CHANNEL, args: [{ route: 'status' }] });
    expect(await bridge.call('control', { dep: 'a/b', action: 'reset', reason: 'why' })).toEqual({
      channel: API_CHANNEL,
      args: [{ route: 'control', params: { dep: 'a/b', action: 'reset', reason: 'why' } }],
    });
    expect(ipcRenderer.invoke).toHaveBeenCalledTimes(2);
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
