import { dialectOf } from './connect.js';

type AnyDb = Parameters<typeof dialectOf>[0];

/**
 * What a database can do, asked by capability rather than by name, so the
 * choice of dialect stays behind platform/db/ and a capability's code reads
 * as the reason for its branch.
 */

/** The database runs in this process (SQLite): a row read costs no network, so adding up in JavaScript is as cheap as in SQL. */
export const runsInProcess = (db: AnyDb): boolean => dialectOf(db) === 'sqlite';

/**
 * Writers lock rows, not the database (PostgreSQL): concurrent writers may skip rows another holds
 * (`for update skip locked`) or wait for them (`for update`). SQLite has one writer at a time.
 */
export const locksRows = (db: AnyDb): boolean => dialectOf(db) === 'postgres';
