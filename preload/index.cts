/**
 * The dashboard's preload: exposes `window.breakerbar` (renderer/bridge.ts,
 * `BreakerBarBridge`) through the context bridge: `call` is a single
 * `ipcRenderer.invoke` on the API channel carrying `{route, params}` (the main
 * process checks both against the route table), `onEvent` follows the event
 * channel; never `ipcRenderer` itself, never a generic send, never the IPC
 * event object (https://www.electronjs.org/docs/latest/tutorial/context-isolation).
 *
 * CommonJS (`.cts`, compiled to `index.cjs`) and self-contained: a sandboxed
 * preload cannot be an ES module and can `require` only `electron` and a few
 * built-ins, so the channel names are repeated here rather than imported
 * (test/preload checks they match main/app/ipc-contract.ts).
 */
import { contextBridge, type IpcRendererEvent, ipcRenderer } from 'electron';
import type { BreakerBarBridge } from '../renderer/bridge.js';

const API_CHANNEL = 'breakerbar:api';
const EVENT_CHANNEL = 'breakerbar:event';

const bridge: BreakerBarBridge = {
  call: (route, params) => ipcRenderer.invoke(API_CHANNEL, params === undefined ? { route } : { route, params }),
  onEvent(listener) {
    // The renderer gets the event's data only: the IPC event object would hand it `sender`.
    const forward = (_event: IpcRendererEvent, data: Parameters<typeof listener>[0]) => listener(data);
    ipcRenderer.on(EVENT_CHANNEL, forward);
    return () => {
      ipcRenderer.off(EVENT_CHANNEL, forward);
    };
  },
};

contextBridge.exposeInMainWorld('breakerbar', bridge);
