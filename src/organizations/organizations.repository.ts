import type { Db } from '../platform/db/schema.js';
import { newId } from '../platform/ids.js';
import { insertProfile } from '../profile-records/profiles.repository.js';

export interface OrganizationRow {
  id: string;
  name: string;
  settings: string;
  created_at: string;
}

export async function findOrganizationByName(db: Db, name: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function findOrganization(db: Db, organizationId: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', organizationId).executeTakeFirst();
}

export async function updateOrganizationSettings(db: Db, organizationId: string, settings: string): Promise<void> {
  await db.updateTable('organizations').set({ settings }).where('id', '=', organizationId).execute();
}

/** A new organization always starts with the customer profile `default`. Call inside a transaction. */
export async function createOrganization(db: Db, name: string, at: string, timeZone: string): Promise<OrganizationRow> {
  // The zone is written down at creation: contact hours are never judged in a silent default.
  const org = { id: newId(), name, settings: JSON.stringify({ timeZone }), created_at: at };
  await db.insertInto('organizations').values(org).execute();
  await insertProfile(db, org.id, {
    id: newId(),
    name: 'default',
    description: 'The profile every new organization starts with.',
    instructions: 'You are a friendly assistant following up with a lead. Be brief and helpful.',
    // No canned opening text: nobody is messaged on lead creation until the organization writes one.
    opening_message: null,
    questions: '[]',
    created_at: at,
    updated_at: at,
  });
  return org;
}
