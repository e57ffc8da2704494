/**
 * What `breakerbar daemon` (and `npm start` without a display) prints once it is up: where it reads,
 * where it stores, which config it follows, where its API and dashboard answer, and how the watchdog
 * will act. A pure function of those facts, so the README's example is rendered by the same code
 * (test/docs/front-door.test.ts) and cannot drift from what a user sees.
 */

export interface BannerFacts {
  stateDir: string;
  dbPath: string;
  /** The config file followed, or null when running on the defaults. */
  configFile: string | null;
  dataDir: string;
  /** The local API's base URL, or null when the API is off. */
  apiUrl: string | null;
  /** The gateway probed and the watchdog's mode, when a gateway side runs. */
  gateway: { baseUrl: string; mode: string; restartsVia: string } | null;
  /** Whether the built dashboard is served at the API's root. */
  dashboard: boolean;
}

export function daemonBanner(facts: BannerFacts): string {
  return [
    'BreakerBar daemon (headless core, no Electron needed)',
    `  following  ${facts.stateDir}`,
    `  storing in ${facts.dbPath}`,
    `  config     ${facts.configFile ?? 'defaults (no config file)'} (followed: changes apply live)`,
    `  API        ${facts.apiUrl ?? 'off'}  (/metrics, /api/status; token in ${facts.dataDir}/api-token)`,
    ...(facts.gateway
      ? [
          `  gateway    ${facts.gateway.baseUrl}`,
          `  watchdog   ${facts.gateway.mode}; restarts via ${facts.gateway.restartsVia}`,
        ]
      : []),
    ...(facts.apiUrl && facts.dashboard
      ? [`  dashboard  ${facts.apiUrl}/  (\`breakerbar dashboard\` prints it signed in)`]
      : []),
    '  Ctrl-C to stop; `breakerbar status` shows the state, `breakerbar doctor` what is missing.',
    '',
  ].join('\n');
}
