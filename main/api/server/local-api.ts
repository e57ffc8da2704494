/**
 * The local API and /metrics of a running monitor: the HTTP server started on its backend at the configured
 * port, the address file that lets the CLI and the app find it, and the confirmation codes of dangerous config
 * changes shown on the desktop. A failure to start says its cause (a port taken, a permission, a full disk).
 */

import { removeApiUrl, writeApiUrl } from '../../core/api-files/address.js';
import { loadOrCreateApiToken } from '../../core/api-files/token.js';
import type { LoadedConfig } from '../../core/config/index.js';
import { createDesktopText } from '../../core/notify/desktop.js';
import type { Logger } from '../../core/runtime/log.js';
import { explainStartupError } from '../../core/runtime/startup-errors.js';
import { version } from '../../core/runtime/version.js';
import type { Translator } from '../../words/messages/index.js';
import type { ApiBackend } from './api-backend.js';
import type { ConfirmationDelivery } from './handlers.js';
import { type ApiServer, startApiServer } from './http.js';

/** The local API could not start; the message names the cause (see startup-errors.ts). */
export class ServeError extends Error {
  override name = 'ServeError';
}

export interface LocalApiOptions {
  loaded: LoadedConfig;
  log: Logger;
  clock: () => number;
  /** The words of the confirmation code's notice, in the daemon's language. */
  words: () => Translator;
  /** The dashboard's built files, served at `/` (the daemon passes dist/renderer). */
  staticDir?: string;
  /** Shows a config change's confirmation code on the desktop (default node-notifier; tests record it). */
  showConfirmationCode?: (title: string, body: string) => Promise<void>;
}

export class LocalApi {
  private server: ApiServer | null = null;
  private readonly showDesktopText = createDesktopText();

  constructor(private readonly options: LocalApiOptions) {}

  /** Starts the local API and /metrics on the configured loopback port. */
  async serve(backend: ApiBackend): Promise<void> {
    const { loaded, log, clock, staticDir } = this.options;
    const { server } = loaded.config;
    try {
      this.server = await startApiServer({
        backend,
        host: server.host,
        port: server.port,
        allowNonLoopback: server.allowNonLoopback,
        token: loadOrCreateApiToken(loaded.dataDir),
        log,
        version: version(),
        clock,
        staticDir,
        deliverConfirmation: (delivery) => this.showConfirmationCode(delivery),
      });
      writeApiUrl(loaded.dataDir, this.server.url);
    } catch (error) {
      // Say what the cause is (a port taken, a permission, a full disk) and what to do about it.
      const { dataDir, dbPath } = loaded;
      const address = `${server.host}:${server.port}`;
      const explained = explainStartupError(error, { dataDir, dbPath, address });
      throw new ServeError(explained ?? (error as Error).message, { cause: error });
    }
  }

  /** Where the local API listens, once started. */
  get url(): string | null {
    return this.server?.url ?? null;
  }

  /** Removes the address file and closes the server (nothing when not serving). */
  async close(): Promise<void> {
    if (this.server) removeApiUrl(this.options.loaded.dataDir, this.server.url);
    await this.server?.close();
    this.server = null;
  }

  /**
   * A code confirming a dangerous config change from a browser, on this machine's desktop (besides the
   * log line the server writes). Whatever `notifications.desktop` says: the code is no notice, and the
   * person making the change needs it.
   */
  private showConfirmationCode(delivery: ConfirmationDelivery): void {
    const { t } = this.options.words();
    const keys = [...new Set(delivery.changes.map((change) => change.key))];
    const body = t('confirm.notify.body', {
      code: delivery.code,
      keys,
      validMs: delivery.expiresAt - this.options.clock(),
    });
    const show = this.options.showConfirmationCode ?? this.showDesktopText;
    show(t('confirm.notify.title'), body).catch((error: unknown) =>
      this.options.log.warn('confirmation code not shown on the desktop', { error: (error as Error).message }),
    );
  }
}
