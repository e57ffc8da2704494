/**
 * Whether BreakerBar's database is still the file it opened. SQLite keeps writing to the file it opened: if
 * someone deletes the database (or replaces it, say by restoring a copy) while BreakerBar runs, every later
 * write lands in a file no one will open again, silently, and is lost at the next start. The file's identity
 * (device and inode) is compared with the opened one on a timer; a change is logged once as an error and
 * reported in the status (`store`) until BreakerBar is restarted onto the file now at the path.
 */
import { statSync } from 'node:fs';
import type { Logger } from '../runtime/log.js';

export interface FileId {
  dev: number;
  ino: number;
}

/** The store's state as `/api/status` reports it. */
export interface StoreHealth {
  ok: boolean;
  /**
   * What happened to the database file (absent while ok): deleted or replaced under BreakerBar, or `full`, no
   * room to grow (see room.ts; that one ends by itself once there is room).
   */
  problem?: 'deleted' | 'replaced' | 'full';
  /** Why it matters and what to do, in a sentence for a log or the status. */
  detail?: string;
  /** When the change was noticed. */
  since?: number;
  /** `full`: writes refused since (they are retried or done without their record; nothing read is lost). */
  refused?: number;
}

export function fileIdOf(path: string): FileId | null {
  try {
    const stats = statSync(path);
    return { dev: stats.dev, ino: stats.ino };
  } catch {
    return null;
  }
}

/** Pure: what the database file's identity now says, given the identity it was opened with. */
export function judgeIdentity(opened: FileId, now: FileId | null): StoreHealth['problem'] | null {
  if (now === null) return 'deleted';
  return now.dev === opened.dev && now.ino === opened.ino ? null : 'replaced';
}

export class DatabaseWatch {
  private state: StoreHealth = { ok: true };

  constructor(
    private readonly path: string,
    private readonly opened: FileId,
    private readonly log: Logger,
    private readonly clock: () => number,
  ) {}

  /** Looks at the file now; logs an error the first time it finds a different state. */
  check(): StoreHealth {
    const problem = judgeIdentity(this.opened, fileIdOf(this.path));
    if ((problem ?? null) === (this.state.problem ?? null)) return this.state;
    if (problem === null) {
      this.state = { ok: true };
      this.log.info('database file is the one BreakerBar opened again', { path: this.path });
      return this.state;
    }
    const detail =
      problem === 'deleted'
        ? `${this.path} was deleted while BreakerBar runs: what it stores from now on is lost when it stops; restart BreakerBar to start a new database`
        : `${this.path} was replaced by another file while BreakerBar runs: BreakerBar still writes to the old one, which is lost when it stops; restart BreakerBar to use the new file`;
    this.state = { ok: false, problem, detail, since: this.clock() };
    this.log.error(`database ${problem} under BreakerBar`, { path: this.path, detail });
    return this.state;
  }

  /** The state found by the last look. */
  health(): StoreHealth {
    return this.state;
  }
}
