import { issueKey } from '../../src/organizations/api-keys.service.js';
import { openStore } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';

/**
 * A fresh organization in the database at `databaseUrl`, open all hours (so the night floor is all that can
 * hold a send) and sending from `sender`; answers its API key. The speed and voice sections measure with it.
 */
export async function openAllHoursOrganization(databaseUrl: string, name: string, sender: string): Promise<string> {
  const store = openStore(databaseUrl, 2);
  await migrateToLatest(store);
  const { key, organizationId } = await issueKey(store.db, `${name}-${Date.now()}`);
  await store.db
    .updateTable('organizations')
    .set({ settings: JSON.stringify({ contactHours: { start: '00:00', end: '00:00' } }), sending_number: sender })
    .where('id', '=', organizationId)
    .execute();
  await store.close();
  return key;
}
