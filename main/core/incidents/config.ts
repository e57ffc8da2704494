/**
 * The incidents' config, declared once: the `incidents` group of config.json (keys, defaults, docs, units) and
 * the rules' settings derived from it, every duration in milliseconds by its declared unit.
 */

import { type InMs, inMs } from '../config/durations.js';
import { DAY_SEC, group, type Infer, seconds } from '../config/schema.js';

export const incidentsConfig = group({
  graceSec: seconds(
    60,
    0,
    DAY_SEC,
    'A trouble (a breaker out of closed, the gateway dead or hung, a source that cannot read) opens an incident only after lasting this long.',
  ),
  settleSec: seconds(
    30,
    0,
    DAY_SEC,
    'An open incident closes once no cause has held for this long (a trouble that comes back sooner joins it).',
  ),
});

export type IncidentsConfig = Infer<typeof incidentsConfig>;
/**
 * `graceMs`: how long a trouble that can be a blip must hold before it opens an incident; `settleMs`: how long
 * no condition may hold before an open incident closes.
 */
export type IncidentSettings = InMs<IncidentsConfig>;

export function incidentSettings(config: IncidentsConfig): IncidentSettings {
  return inMs(incidentsConfig, config);
}
