/**
 * The dashboard's preload: exposes `window.breakerbar` (renderer/bridge.ts,
 * `BreakerBarBridge`) through the context bridge: one named function per
 * action, each a single `ipcRenderer.invoke` on its own channel; never
 * `ipcRenderer` itself, never a generic send, never the IPC event object
 * (https://www.electronjs.org/docs/latest/tutorial/context-isolation).
 *
 * CommonJS (`.cts`, compiled to `index.cjs`) and self-contained: a sandboxed
 * preload cannot be an ES module and can `require` only `electron` and a few
 * built-ins, so the channel names are repeated here rather than imported
 * (test/preload checks they match main/app/ipc-contract.ts).
 */
import { contextBridge, type IpcRendererEvent, ipcRenderer } from 'electron';
import type { BreakerBarBridge } from '../renderer/bridge.js';

const EVENT_CHANNEL = 'breakerbar:event';

const bridge: BreakerBarBridge = {
  status: () => ipcRenderer.invoke('breakerbar:status'),
  history: (request) => ipcRenderer.invoke('breakerbar:history', request),
  incidents: (request) => ipcRenderer.invoke('breakerbar:incidents', request),
  incident: (id) => ipcRenderer.invoke('breakerbar:incident', id),
  spend: () => ipcRenderer.invoke('breakerbar:spend'),
  restart: (request) => ipcRenderer.invoke('breakerbar:restart', request),
  pause: (durationSec) => ipcRenderer.invoke('breakerbar:pause', durationSec),
  resume: () => ipcRenderer.invoke('breakerbar:resume'),
  control: (dep, action, reason) => ipcRenderer.invoke('breakerbar:control', dep, action, reason),
  config: () => ipcRenderer.invoke('breakerbar:config'),
  saveConfig: (config) => ipcRenderer.invoke('breakerbar:save-config', config),
  doctor: () => ipcRenderer.invoke('breakerbar:doctor'),
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
