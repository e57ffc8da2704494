/**
 * The menu-bar app's entry (package.json `main`): `electron .` runs this.
 * Everything is in main.ts; this only starts it and makes a failure to start
 * visible instead of leaving a process without a tray icon.
 */
import { app, dialog } from 'electron';
import { startApp } from './main.js';

startApp().catch((error: unknown) => {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`breakerbar app: could not start: ${message}\n`);
  if (app.isReady()) dialog.showErrorBox('BreakerBar could not start', message);
  app.exit(1);
});
