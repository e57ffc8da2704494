/**
 * Which tray icon file shows a state on a platform, in one place (as
 * electron-util's `getIconPath()` does it):
 * - macOS: a template image (`…Template.png`, black + alpha, with `@2x` beside
 *   it), which macOS recolours for light and dark menu bars; Electron picks the
 *   `@2x` file on Retina screens by itself when it sits next to the 1x one.
 * - Windows, Linux and others: a 32×32 colour PNG (Electron scales it to the
 *   tray's size; one file per state keeps the artwork script free of ICO writing).
 * The artwork is generated into `main/app/assets/` under exactly these names.
 */
import { join } from 'node:path';
import type { HealthState, TrayState } from './tray-model.js';

export const ICON_STATES: readonly HealthState[] = ['healthy', 'degraded', 'down'];

/** Connecting has no artwork of its own: it shows as degraded (something is not known to be fine yet). */
export function iconStateFor(state: TrayState): HealthState {
  return state === 'connecting' ? 'degraded' : state;
}

export function trayIconFile(state: HealthState, platform: NodeJS.Platform): string {
  if (platform === 'darwin') return `tray-${state}Template.png`;
  return `tray-${state}.png`;
}

export function trayIconPath(state: TrayState, platform: NodeJS.Platform, assetsDir: string): string {
  return join(assetsDir, trayIconFile(iconStateFor(state), platform));
}

/** Every file the app loads or Electron picks up beside them: what the artwork script must produce. */
export function expectedIconFiles(): string[] {
  return ICON_STATES.flatMap((state) => [
    `tray-${state}Template.png`,
    `tray-${state}Template@2x.png`,
    `tray-${state}.png`,
  ]);
}
