/** The incident rules' timings, derived from the loaded config (see watchdog/settings.ts for why one place). */
import type { Config } from '../config/index.js';
import { toMs } from '../config/schema.js';
import type { IncidentSettings } from './rules.js';

export function incidentSettings(config: Config): IncidentSettings {
  return { graceMs: toMs(config.incidents.graceSec, 'sec'), settleMs: toMs(config.incidents.settleSec, 'sec') };
}
