import type { Kysely } from 'kysely';
import type { AddressDigests } from './address-digest.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { DialectName } from './db/connect.js';
import type { Database } from './db/schema.js';
import type { Logger } from './logger.js';

/** What services need from the platform; built once at start and passed in. */
export interface Deps {
  db: Kysely<Database>;
  dialect: DialectName;
  config: Config;
  clock: Clock;
  log: Logger;
  /** Keyed digests of addresses (suppressions, consent ledger). */
  digests: AddressDigests;
}
