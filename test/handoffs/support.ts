import { SCOPES } from '../../src/platform/auth/scopes.js';
import type { UserRole } from '../../src/platform/db/schema.js';
import { makeUser } from '../console/support.js';
import { uniquePhone, type Client, type TestServer } from '../support/harness.js';

let counter = 0;

export interface Org {
  name: string;
  client: Client;
}

/** A brand-new organization (its own reps, settings and hand-offs), its contact hours open all day. */
export async function freshOrganization(ts: TestServer, label = 'ho'): Promise<Org> {
  counter += 1;
  const name = `${label}-${process.pid}-${counter}`;
  const client = await ts.clientWithScopes([...SCOPES], name);
  const res = await client.patch('/settings', {
    contactHours: { start: '00:00', end: '00:00' },
    sendingNumber: uniquePhone(),
  });
  if (res.status !== 200) throw new Error(`settings: ${res.status} ${JSON.stringify(res.body)}`);
  return { name, client };
}

/** A console user of the organization, made a rep with the given fields (PATCH /v1/users/{id}). */
export async function makeRep(
  ts: TestServer,
  org: Org,
  fields: Record<string, unknown> = {},
  role: UserRole = 'agent',
) {
  const user = await makeUser(ts, role, org.name);
  if (Object.keys(fields).length > 0) {
    const res = await org.client.patch(`/users/${user.userId}`, fields);
    if (res.status !== 200) throw new Error(`PATCH /users: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return user;
}
