import { afterAll, beforeAll } from 'vitest';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { freshDatabase, migratedDatabase, type Dialect } from './harness.js';

/**
 * A database of `dialect` for the `describe` block that calls this, with no server: for tests of a
 * repository or a property over the store itself (migrated to the latest), or of a migration (`migrated:
 * false`: empty, the test migrates it step by step). Opened in the block's `beforeAll`, closed and dropped in
 * its `afterAll`; the answer is read inside tests.
 */
export function storeForBlock(dialect: Dialect, { migrated = true }: { migrated?: boolean } = {}): () => Store {
  let store: Store | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    // A migrated one is a copy of the run's template (harness.ts); migrating it again finds nothing to do.
    const fresh = migrated ? await migratedDatabase(dialect) : await freshDatabase(dialect);
    drop = fresh.drop;
    store = openStore(fresh.url);
    if (migrated) await migrateToLatest(store);
  });
  afterAll(async () => {
    await store?.close();
    await drop?.();
  });
  return () => {
    if (!store) throw new Error('storeForBlock: the store opens in beforeAll; read it inside a test');
    return store;
  };
}
