import { ADDRESS_DIGEST_SECRET, addressDigests } from './address-digest.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import type { Store } from './db/connect.js';
import { migrateToLatest } from './db/migrate.js';
import type { Deps } from './deps.js';
import { createLogger, type Logger } from './logger.js';
import { instanceSecret } from './secrets.repository.js';

/**
 * Migrates the store and builds what every service takes: the one assembly the server, the worker process and
 * the command line share, so a dependency added here reaches all of them.
 */
export async function assembleDeps(
  store: Store,
  config: Config,
  options: { clock?: Clock; log?: Logger } = {},
): Promise<Deps> {
  await migrateToLatest(store);
  const digests = addressDigests(await instanceSecret(store.db, ADDRESS_DIGEST_SECRET));
  return {
    db: store.db,
    dialect: store.dialect,
    config,
    clock: options.clock ?? systemClock,
    log: options.log ?? createLogger(config.logLevel),
    digests,
  };
}
