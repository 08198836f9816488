import { emitEvents } from '../events/outbox.repository.js';
import { doNotContactEvent } from '../events/payloads.js';
import { findLead, findLeadIdByPhone } from '../lead-records/leads.repository.js';
import { isoNow } from '../platform/clock.js';
import { applyResubscribe } from '../subscriptions/subscriptions.service.js';
import { optOutEffectQueries } from '../subscriptions/opt-out-effects.js';
import { executeTogether } from '../platform/db/together.js';
import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { NotFound } from '../platform/errors.js';
import { normalizePhone } from '../platform/phone.js';
import { decodePhoneCursor, pageByPhone } from './dnc.cursor.js';
import * as repo from '../suppression-records/dnc.repository.js';
import type { DncEntryView, ListDncInput } from './dnc.schemas.js';

const DEFAULT_PAGE = 100;

const toEntryView = (row: repo.DncRow): DncEntryView => ({
  phone: row.phone,
  source: row.source,
  createdAt: row.created_at,
});

/**
 * Adds the number to the organization's list. Only a number that was not yet
 * listed yields a `doNotContact` event, written in the same transaction, so a
 * repeated or concurrent register converges on one entry and one event. Lead
 * subscriptions are left alone: DNC is its own control (docs/contract.md), and the
 * send path checks it before every SMS and voice contact.
 */
export async function registerDnc(deps: Deps, organizationId: string, rawPhone: string): Promise<void> {
  const phone = normalizePhone(rawPhone, deps.config.defaultCountry);
  await deps.db.transaction().execute((trx) => addDncIn(trx, organizationId, phone, 'api', isoNow(deps.clock)));
}

/** The same, inside a transaction the caller owns (a lead saying "never contact me"); answers whether it was new. */
export async function addDncIn(
  trx: Db,
  organizationId: string,
  phone: string,
  source: string,
  at: string,
  optOutMessage: string | null = null,
): Promise<boolean> {
  const added = await repo.addToDnc(trx, organizationId, { phone, source, created_at: at });
  if (!added) return false;
  const leadId = (await findLeadIdByPhone(trx, organizationId, phone)) ?? null;
  const lead = leadId ? await findLead(trx, organizationId, leadId) : undefined;
  await emitEvents(trx, organizationId, at, [doNotContactEvent(phone, lead, source, optOutMessage)]);
  // The lead's campaigns count it opted out, as an unsubscribe of its phone would (subscriptions/opt-out-effects.ts).
  if (lead) await executeTogether(trx, optOutEffectQueries(trx, organizationId, lead, ['sms', 'voice'], at));
  return true;
}

/**
 * Removes the number from the list. Opt-outs the lead made by asking never to
 * be contacted (source `dnc`) are lifted with it, on sms and voice: removing
 * the entry is the only way to lift them (subscriptions/consent-rules.ts).
 */
export async function removeDnc(
  deps: Deps,
  organizationId: string,
  rawPhone: string,
  actor: string | null = null,
): Promise<void> {
  const phone = normalizePhone(rawPhone, deps.config.defaultCountry);
  await deps.db.transaction().execute(async (trx) => {
    if (!(await repo.removeFromDnc(trx, organizationId, phone))) throw new NotFound('DncEntry', 'phone', phone);
    const leadId = await findLeadIdByPhone(trx, organizationId, phone);
    if (leadId)
      await applyResubscribe(
        trx,
        deps,
        organizationId,
        leadId,
        ['sms', 'voice'],
        { source: 'dnc', actor },
        { kind: 'dnc-removal' },
      );
  });
}

export async function checkDnc(deps: Deps, organizationId: string, rawPhone: string) {
  const phone = normalizePhone(rawPhone, deps.config.defaultCountry);
  const listed = await repo.phonesOnDnc(deps.db, organizationId, [phone]);
  return { phone, isDoNotContact: listed.has(phone) };
}

/** Keyset by phone (the table's primary key after the organization), never OFFSET. */
export async function listDnc(deps: Deps, organizationId: string, q: ListDncInput) {
  const limit = q.limit ?? DEFAULT_PAGE;
  const rows = await repo.listDnc(deps.db, organizationId, decodePhoneCursor(q.nextToken), limit);
  const { items, nextToken } = pageByPhone(rows, limit);
  return { entries: items.map(toEntryView), nextToken };
}
