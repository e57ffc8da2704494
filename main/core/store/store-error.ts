/**
 * The store's one error: what a command or the daemon reports as a line (no stack) when the database
 * cannot be opened, used or written, with the code of the failure it stands for so that the code
 * survives a trip across the ingest writer's thread.
 */

export class StoreError extends Error {
  override name = 'StoreError';
  /** The code of the failure it stands for (SQLite's or the system's), when it crossed a thread as text. */
  readonly code: string | undefined;

  constructor(message: string, options: { cause?: unknown; code?: string | null } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code ?? undefined;
  }
}

/** An error's code (SQLite's or the system's), to send across a thread with its message. */
export function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}
