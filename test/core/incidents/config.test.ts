/**
 * The incidents' config (main/core/incidents/config.ts): the rules' settings come from the `incidents` group,
 * every duration in milliseconds.
 */
import { describe, expect, it } from 'vitest';
import { defaultsOf, parseWith } from '../../../main/core/config/schema.js';
import { incidentSettings, incidentsConfig } from '../../../main/core/incidents/config.js';

describe('incident settings', () => {
  it('durations in milliseconds', () => {
    expect(incidentSettings(parseWith(incidentsConfig, { graceSec: 40, settleSec: 20 }))).toEqual({
      graceMs: 40_000,
      settleMs: 20_000,
    });
  });

  it('follows the defaults when the file says nothing', () => {
    const defaults = defaultsOf(incidentsConfig);
    expect(incidentSettings(defaults)).toEqual({
      graceMs: defaults.graceSec * 1000,
      settleMs: defaults.settleSec * 1000,
    });
  });
});
