/**
 * Prepared statements kept by their SQL text. Preparing a statement (parsing and planning its SQL) costs
 * more than running a small query, and the status, the incident rules and the watchdog run the same
 * queries every few seconds for as long as the daemon lives: prepared once each, an idle daemon spends
 * its time waiting, not parsing SQL.
 *
 * A statement keeps its mode (`pluck`, `raw`): one SQL text must always be used the same way.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';

export class Statements {
  private readonly prepared = new Map<string, Statement>();

  constructor(private readonly db: Db) {}

  /** The statement for `sql`, prepared on first use. */
  of(sql: string): Statement {
    let statement = this.prepared.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.prepared.set(sql, statement);
    }
    return statement;
  }
}
