/**
 * Config for tests whose subject is not the gateway side: probes go to a port
 * nothing listens on (refused at once, never a wait), the watchdog decides but
 * never restarts anything on the test machine, and no desktop notification pops up.
 */
export const QUIET_GATEWAY = {
  gatewayUrl: 'http://127.0.0.1:1',
  watchdog: { enabled: false },
  notifications: { desktop: false },
} as const;
