import { randomUUID } from 'node:crypto';
import { insertTag } from '../../src/lead-records/leads.repository.js';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { newId } from '../../src/platform/ids.js';
import type { Client, TestServer } from '../support/harness.js';

/** A brand-new organization per test: a campaign's filter may select every lead of it. */
export async function freshOrg(ts: TestServer, label = 'camp'): Promise<{ client: Client; org: string }> {
  const name = `${label}-${randomUUID().slice(0, 8)}`;
  const client = await ts.clientWithScopes([...SCOPES], name);
  const row = await ts.server.store.db
    .selectFrom('organizations')
    .select('id')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return { client, org: row.id };
}

/** Tags a lead the way the agent does (agent/apply.ts). */
export async function tagLead(ts: TestServer, org: string, leadId: string, name: string): Promise<void> {
  await insertTag(ts.server.store.db, org, {
    id: newId(),
    lead_id: leadId,
    name,
    condition: `${name} condition`,
    created_at: new Date().toISOString(),
  });
}

/** A campaign in the future, so nothing is sent while a test reads its snapshot. */
export const LATER = () => new Date(Date.now() + 30 * 24 * 3_600_000).toISOString();

export async function createCampaign(client: Client, body: Record<string, unknown>) {
  const res = await client.post('/campaigns', {
    name: 'Spring promo',
    customerProfile: 'default',
    dailyCap: 100,
    ...body,
  });
  if (res.status !== 201) throw new Error(`create campaign: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; status: string; counts: Record<string, any> };
}

/** The enrolled lead ids of a campaign, read from the database (the API reports counts only). */
export async function enrolledLeads(
  ts: TestServer,
  campaignId: string,
): Promise<Map<string, { status: string; reason_code: string | null }>> {
  const rows = await ts.server.store.db
    .selectFrom('campaign_enrollments')
    .select(['lead_id', 'status', 'reason_code'])
    .where('campaign_id', '=', campaignId)
    .execute();
  return new Map(rows.map((r) => [r.lead_id, { status: r.status, reason_code: r.reason_code }]));
}
