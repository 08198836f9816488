import type SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';

/** FIFO lock with hand-off: the next waiter owns the lock the moment it is released. */
class Mutex {
  private locked = false;
  private readonly queue: (() => void)[] = [];
  async lock(): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return;
    }
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }
  unlock(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.locked = false;
  }
}

class Handle implements DatabaseConnection {
  inTransaction = false;
  released = false;
  constructor(private readonly driver: GroupCommitDriver) {}
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return Promise.resolve(this.driver.run<R>(this, query));
  }
  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    yield this.driver.run<R>(this, query);
  }
}

/**
 * Group commit for SQLite. With durable commits (synchronous=FULL) every
 * COMMIT waits for an fsync, and that wait, not our code, caps the write rate.
 * Here each Kysely transaction runs alone under the lock as a SAVEPOINT inside
 * one shared outer transaction (BEGIN IMMEDIATE); when no other transaction is
 * waiting, one COMMIT makes the whole group durable. A transaction's caller
 * resumes only after that COMMIT, so nothing is acknowledged before it is on
 * disk; a transaction that fails rolls back to its own savepoint and leaves the
 * others alone; a failed COMMIT fails every transaction of the group.
 * Statements outside a transaction first flush the open group, then run in
 * autocommit, so they never ride on someone else's commit.
 */
class GroupCommitDriver implements Driver {
  private readonly mutex = new Mutex();
  private readonly statements = new Map<string, SqliteDatabase.Statement>();
  private groupOpen = false;
  private waiting: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  private flushScheduled = false;

  constructor(private readonly db: SqliteDatabase.Database) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock();
    return new Handle(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const h = connection as Handle;
    if (this.groupOpen && !this.db.inTransaction)
      this.abandonGroup(new Error('the shared transaction was rolled back by SQLite'));
    if (!this.groupOpen) {
      this.exec('begin immediate');
      this.groupOpen = true;
    }
    this.exec('savepoint parley_tx');
    h.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const h = connection as Handle;
    this.exec('release parley_tx');
    h.inTransaction = false;
    const durable = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    // Let the next transaction in (it joins this group) before the group is committed.
    h.released = true;
    this.mutex.unlock();
    this.scheduleFlush();
    await durable;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const h = connection as Handle;
    h.inTransaction = false;
    if (!this.db.inTransaction) {
      // SQLite rolled back the whole outer transaction itself (e.g. disk full): the group is lost.
      this.abandonGroup(new Error('the shared transaction was rolled back by SQLite'));
      return;
    }
    this.exec('rollback to parley_tx');
    this.exec('release parley_tx');
  }

  private abandonGroup(err: unknown): void {
    this.groupOpen = false;
    for (const w of this.waiting.splice(0)) w.reject(err);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const h = connection as Handle;
    if (h.released) return;
    h.released = true;
    this.mutex.unlock();
    this.scheduleFlush();
  }

  async destroy(): Promise<void> {
    await this.mutex.lock();
    this.flush();
    this.db.close();
  }

  run<R>(h: Handle, query: CompiledQuery): QueryResult<R> {
    if (!h.inTransaction && this.groupOpen) this.flush();
    const stmt = this.prepare(query.sql);
    if (stmt.reader) return { rows: stmt.all(query.parameters as unknown[]) as R[] };
    const { changes, lastInsertRowid } = stmt.run(query.parameters as unknown[]);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  /** Kysely prepares every query afresh; a prepare costs more than a point lookup, so statements are kept by SQL text. */
  private prepare(sql: string): SqliteDatabase.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      if (this.statements.size >= 1000) this.statements.clear();
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  private exec(sql: string): void {
    this.db.exec(sql);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || !this.groupOpen) return;
    this.flushScheduled = true;
    // After the transactions already queued for the lock have joined the group.
    setImmediate(() => {
      this.flushScheduled = false;
      void this.mutex.lock().then(() => {
        try {
          this.flush();
        } finally {
          this.mutex.unlock();
        }
      });
    });
  }

  private flush(): void {
    if (!this.groupOpen) return;
    const group = this.waiting.splice(0);
    try {
      this.exec('commit');
      this.groupOpen = false;
      for (const w of group) w.resolve();
    } catch (err) {
      try {
        this.exec('rollback');
      } catch {
        /* already rolled back by SQLite */
      }
      this.groupOpen = false;
      for (const w of group) w.reject(err);
    }
  }
}

export class GroupCommitSqliteDialect implements Dialect {
  constructor(private readonly db: SqliteDatabase.Database) {}
  createDriver(): Driver {
    return new GroupCommitDriver(this.db);
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createAdapter() {
    return new SqliteAdapter();
  }
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
