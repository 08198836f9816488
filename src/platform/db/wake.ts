import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * Wake on commit. A transaction that writes work for the worker (a job, an
 * outbox event, a webhook delivery) wakes it the moment it commits, instead
 * of leaving the row for the next poll (PARLEY_WORKER_POLL_MS, now only the
 * fallback). The store's driver watches each connection's statements:
 *
 * - in this process, after the COMMIT has returned (on SQLite after the group
 *   commit's fsync), the store's WorkSignal tells its listeners; a rollback
 *   forgets the mark, so it wakes nobody;
 * - on PostgreSQL it also sends `NOTIFY parley_work` once the COMMIT has
 *   returned, so a rollback notifies nobody; worker processes LISTEN
 *   (listen.ts). Not inside the transaction: PostgreSQL takes one lock for
 *   the whole database from a notifying transaction's pre-commit to the end
 *   of its commit, WAL flush included, so every transaction that wrote work
 *   committed one flush after another (a burst's sends queued there). A
 *   notification of its own (`announce`) holds that lock without a flush
 *   (its commit writes nothing worth waiting for), and one in flight per
 *   process covers every commit made meanwhile: it is sent again when it
 *   returns, so a listener always hears of a commit after it is visible.
 *
 * What counts is an INSERT into one of the queue tables, whatever its due
 * time: a job inserted for later costs the worker one empty look, which is
 * cheaper than reading the due time here. An UPDATE that makes old rows due
 * (an endpoint enabled again, contact hours widened) is found by the poll.
 */

export const WORK_CHANNEL = 'parley_work';

/** One simple-protocol round trip. */
const ANNOUNCE = CompiledQuery.raw(`begin; set local synchronous_commit = off; notify ${WORK_CHANNEL}; commit`);

const MAKES_WORK = /\binsert into "(?:jobs|events|webhook_deliveries)"/;

/**
 * Ends an insert of outbox events that were fanned out in the same
 * transaction (events/outbox.repository.ts emitDispatched): no worker has
 * anything to do with them, so their commit wakes none (a send's own
 * `message.sent` cost every send an empty tick). The deliveries they made,
 * if any, wake it as any insert into the queue does.
 */
export const DISPATCHED_MARK = ' /* dispatched */';

/** Whether a statement writes work for the worker (also inside a batch of CTEs: platform/db/together.ts). */
export function makesWork(sqlText: string): boolean {
  if (!sqlText.includes('insert into "')) return false;
  if (sqlText.startsWith('insert into "events"') && sqlText.endsWith(DISPATCHED_MARK)) return false;
  return MAKES_WORK.test(sqlText);
}

/** The wakes of one store: committed work in this process, and (PostgreSQL) notifications from others. */
export class WorkSignal {
  private readonly listeners = new Set<() => void>();
  /** This process's own PostgreSQL backends (its pool's): their notifications echo wakes already given. */
  private readonly own = new Set<number>();
  /** Commits in this process that wrote work (tests assert on it: a rollback never counts). */
  committed = 0;
  /** Wakes heard from other processes (LISTEN), including one on each (re)subscription. */
  heard = 0;

  /** Calls `listener` on every wake; answers the function that stops it. */
  onWake(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A transaction that wrote work has committed in this process. */
  commit(): void {
    this.committed += 1;
    this.fire();
  }

  /**
   * Another process announced committed work (`fromBackend`: the backend that
   * sent the NOTIFY; none when a lost subscription was renewed). A
   * notification from one of this process's own backends is dropped: its
   * commit woke the listeners directly, and a second wake costs a tick.
   */
  hear(fromBackend?: number): void {
    if (fromBackend !== undefined && this.own.has(fromBackend)) return;
    this.heard += 1;
    this.fire();
  }

  /** A pool connection of this process opened (`pid`: its backend) or went away. */
  ownBackend(pid: number | null | undefined, open: boolean): void {
    if (!pid) return;
    if (open) this.own.add(pid);
    else this.own.delete(pid);
  }

  private fire(): void {
    for (const listener of this.listeners) listener();
  }
}

class WakingConnection implements DatabaseConnection {
  inTransaction = false;
  /** A statement of the open transaction wrote work: wake when it commits. */
  wroteWork = false;
  constructor(
    readonly inner: DatabaseConnection,
    private readonly driver: WakingDriver,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.inner.executeQuery<R>(query);
    if (makesWork(query.sql)) {
      if (this.inTransaction) this.wroteWork = true;
      // Outside a transaction the statement has committed by itself.
      else await this.driver.committed(this.inner);
    }
    return result;
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

const conn = (c: DatabaseConnection) => c as WakingConnection;

function supported<F>(method: F | undefined): F {
  if (!method) throw new Error('savepoints are not supported by this database driver');
  return method;
}

class WakingDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly signal: WorkSignal,
    private readonly notifies: boolean,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new WakingConnection(await this.inner.acquireConnection(), this);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.inner.beginTransaction(conn(connection).inner, settings);
    conn(connection).inTransaction = true;
    conn(connection).wroteWork = false;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = conn(connection);
    const wake = c.wroteWork;
    c.inTransaction = false;
    c.wroteWork = false;
    await this.inner.commitTransaction(c.inner);
    if (wake) await this.committed(c.inner);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = conn(connection);
    c.inTransaction = false;
    c.wroteWork = false;
    await this.inner.rollbackTransaction(c.inner);
  }

  // A savepoint rolled back keeps the mark: at worst a wake finds nothing to do.
  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await supported(this.inner.savepoint).call(this.inner, conn(connection).inner, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await supported(this.inner.rollbackToSavepoint).call(this.inner, conn(connection).inner, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await supported(this.inner.releaseSavepoint).call(this.inner, conn(connection).inner, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(conn(connection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }

  /** A transaction, or a statement on its own (autocommit), that wrote work has committed. */
  async committed(inner: DatabaseConnection): Promise<void> {
    this.signal.commit();
    if (this.notifies) await this.announce(inner);
  }

  /** A notification is on its way and was not yet answered: commits meanwhile ask for one more. */
  private announcing = false;
  private again = false;

  /**
   * Tells other processes, on the connection that committed (before it goes
   * back to the pool). Without waiting for a WAL flush: the work it announces
   * is already durable, and a lost notification costs a poll, never a row.
   */
  private async announce(inner: DatabaseConnection): Promise<void> {
    if (this.announcing) {
      this.again = true;
      return;
    }
    this.announcing = true;
    try {
      do {
        this.again = false;
        await inner.executeQuery(ANNOUNCE);
      } while (this.again);
    } catch {
      // The work is committed: the caller must not see its transaction fail. Unannounced, the poll finds it.
    } finally {
      this.announcing = false;
    }
  }
}

/** The dialect with wake on commit; `notifies`: PostgreSQL, which also tells other processes. */
export function wakingDialect(inner: Dialect, signal: WorkSignal, notifies: boolean): Dialect {
  return {
    createDriver: () => new WakingDriver(inner.createDriver(), signal, notifies),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createAdapter: () => inner.createAdapter(),
    createIntrospector: (db) => inner.createIntrospector(db),
  };
}
