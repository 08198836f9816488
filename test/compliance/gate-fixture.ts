import { afterAll, beforeAll } from 'vitest';
import { checkOutbound, type GateDecision } from '../../src/compliance/gate.js';
import type { LeadRow } from '../../src/lead-records/leads.repository.js';
import { numberOnlyLead } from '../../src/lead-records/number-only-lead.js';
import { insertMessage } from '../../src/messages/messages.repository.js';
import { insertCall } from '../../src/call-records/calls.repository.js';
import { addressDigests } from '../../src/platform/address-digest.js';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import type { Db, MessagePurpose } from '../../src/platform/db/schema.js';
import { newId } from '../../src/platform/ids.js';
import { createOrganization } from '../../src/organizations/organizations.repository.js';
import { DEFAULT_SETTINGS, type OrganizationSettings } from '../../src/settings/settings.service.js';
import { suppressQuery } from '../../src/suppression-records/suppressions.repository.js';

/** Shared by the gate's in-memory suites (gate.unit, gate.mutation): one organization, leads as rows, the gate asked directly. */
export const NOON_LA = new Date('2026-06-10T19:00:00Z'); // Wednesday 12:00 in Los Angeles
export const NIGHT_LA = new Date('2026-06-10T10:00:00Z'); // 03:00 in Los Angeles

export const settings = (s: Partial<OrganizationSettings> = {}): OrganizationSettings => ({
  ...DEFAULT_SETTINGS,
  ...s,
});

export interface Ask {
  lead: LeadRow;
  channel?: 'sms' | 'voice' | 'email';
  purpose?: MessagePurpose;
  sendWhenOff?: boolean;
  automated?: boolean;
  settings?: OrganizationSettings;
  now?: Date;
  overrideBusinessHours?: boolean;
  external?: { allowed: boolean; reason: string };
  /** The lead's inbound message the send answers (`leadWrote`). */
  inReplyTo?: string;
}

/**
 * Call in a test file's top level: an in-memory SQLite store with one
 * organization for the file. `phoneBlock` keeps each file's numbers apart
 * (e.g. '+1415555'), `mailPrefix` its addresses.
 */
export function gateFixture(name: string, phoneBlock: string, mailPrefix: string) {
  const digests = addressDigests(`${name}-test-key`);
  let store: Store;
  let org = '';
  let seq = 0;
  beforeAll(async () => {
    store = openStore('sqlite::memory:');
    await migrateToLatest(store);
    org = (await createOrganization(store.db, name, new Date().toISOString(), 'America/New_York')).id;
  });
  afterAll(async () => store.close());

  function lead(overrides: Partial<LeadRow> = {}): LeadRow {
    seq += 1;
    const at = new Date().toISOString();
    // The blank columns come from the stand-in lead (lead-records/), so a new column needs no change here.
    return {
      ...numberOnlyLead(org, `${phoneBlock}${String(1000 + seq).slice(-4)}`, at),
      id: newId(),
      first_name: 'Ann',
      last_name: 'Lee',
      email: `${mailPrefix}${seq}@example.com`,
      customer_profile: 'default',
      time_zone: 'America/Los_Angeles',
      ...overrides,
    };
  }

  const ask = (a: Ask): Promise<GateDecision> =>
    checkOutbound(store.db, digests, org, {
      lead: a.lead,
      channel: a.channel ?? 'sms',
      purpose: a.purpose ?? 'conversation',
      sendWhenOff: a.sendWhenOff ?? false,
      automated: a.automated ?? false,
      settings: a.settings ?? settings(),
      now: a.now ?? NOON_LA,
      overrideBusinessHours: a.overrideBusinessHours,
      external: a.external,
      inReplyTo: a.inReplyTo,
    });

  const suppress = (channel: 'sms' | 'voice' | 'email', address: string, source = 'keyword') =>
    suppressQuery(
      store.db,
      org,
      [{ channel, digest: digests.keyed(address), source }],
      new Date().toISOString(),
    ).execute();

  /** `count` AI messages to the lead, handed to the provider at `at` (the frequency cap's count). */
  async function sentAutomated(l: LeadRow, count: number, at: Date): Promise<void> {
    for (let i = 0; i < count; i++) {
      await insertMessage(store.db, org, {
        id: newId(),
        lead_id: l.id,
        channel: 'sms',
        direction: 'outbound',
        owner: 'user',
        text: 'auto',
        is_ai_generated: 1,
        status: 'sent',
        status_reason: null,
        scheduled_at: at.toISOString(),
        created_at: at.toISOString(),
        purpose: 'conversation',
      });
    }
  }

  /**
   * Calls the AI placed to the lead at `at` (dialled: Twilio took them). `speaking` names the opening message a call
   * speaks: such a call is that message's contact, not a second one.
   */
  async function dialled(l: LeadRow, count: number, at: Date, speaking: string | null = null): Promise<void> {
    for (let i = 0; i < count; i++)
      await insertCall(store.db, org, {
        id: newId(),
        lead_id: l.id,
        direction: 'outbound',
        status: 'completed',
        provider_call_id: `CA${newId().replace(/-/g, '')}`,
        message_id: speaking,
        created_at: at.toISOString(),
        updated_at: at.toISOString(),
      });
  }

  /** A message from the lead, received at `at`: its id is what a reply names (`inReplyTo`). */
  async function leadWrote(l: LeadRow, at: Date, text = 'hi'): Promise<string> {
    const id = newId();
    await insertMessage(store.db, org, {
      id,
      lead_id: l.id,
      channel: 'sms',
      direction: 'inbound',
      owner: 'lead',
      text,
      is_ai_generated: 0,
      status: 'received',
      status_reason: null,
      scheduled_at: null,
      created_at: at.toISOString(),
      purpose: 'conversation',
    });
    return id;
  }

  return {
    digests,
    lead,
    ask,
    suppress,
    sentAutomated,
    dialled,
    leadWrote,
    get db(): Db {
      return store.db;
    },
    get org(): string {
      return org;
    },
  };
}
