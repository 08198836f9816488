import type { Updateable } from 'kysely';
import { emitEvents, eventsInsert, type OutboxEvent } from '../events/outbox.repository.js';
import { findLeadForChange, updateLead, updateLeadQuery, type LeadForChange, type LeadRow } from '../leads/leads.repository.js';
import { settingsFromDocument } from '../settings/settings.service.js';
import { executeTogether } from '../platform/db/together.js';
import { isoNow } from '../platform/clock.js';
import type { Db, LeadsTable } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { BadRequest, Conflict, leadNotFound } from '../platform/errors.js';
import { type ChannelName, inChannelOrder, reachableChannels, sourceColumn, statusColumn } from './channels.js';
import { suppressQuery, unsuppress } from './suppressions.repository.js';

export type OptOutSource = 'api' | 'keyword' | 'link' | 'dnc' | 'ai' | 'message';

export interface ChangeOptions {
  source?: OptOutSource;
  /** The lead's own words, when the change came from a message. */
  optOutMessage?: string | null;
  isDoNotContact?: boolean;
}

/**
 * Which channels a request applies to: the requested ones (or all the lead can
 * receive), widened to sms+voice when the organization couples them, narrowed
 * to those the lead can receive. None left is a 400 with the contract's text.
 */
function applicableChannels(lead: LeadForChange, requested?: ChannelName[]): ChannelName[] {
  const reachable = reachableChannels(lead);
  const wanted = new Set(requested ?? reachable);
  if ((wanted.has('sms') || wanted.has('voice')) && settingsFromDocument(lead.org_settings).smsVoiceOptOutCoupled) wanted.add('sms').add('voice');
  const applied = inChannelOrder([...wanted].filter((c) => reachable.includes(c)));
  if (applied.length === 0) {
    throw wanted.has('email') ? new BadRequest('Lead has no email', 'channel_unavailable') : new BadRequest('Lead has no phone', 'channel_unavailable');
  }
  return applied;
}

/** The lead with its organization's settings, locked until the transaction ends (PostgreSQL). */
async function lockLead(trx: Db, organizationId: string, leadId: string): Promise<LeadForChange> {
  const lead = await findLeadForChange(trx, organizationId, leadId);
  if (!lead) throw leadNotFound(leadId);
  return lead;
}

const addressFor = (lead: LeadRow, c: ChannelName): string => (c === 'email' ? lead.email! : lead.phone!);

function eventData(lead: LeadRow, channel: ChannelName, source: OptOutSource) {
  return { leadId: lead.id, externalLeadId: lead.external_lead_id, phone: lead.phone, email: lead.email, channel, source };
}

/**
 * Unsubscribes and writes one `optOut` event per channel that actually changed,
 * all in one transaction with the lead row locked: N concurrent requests for one
 * lead yield exactly one event per channel, and a rolled-back request none.
 */
export interface ChangeResult {
  applied: ChannelName[];
  changed: ChannelName[];
}

export async function unsubscribe(deps: Deps, organizationId: string, leadId: string, requested?: ChannelName[], opts: ChangeOptions = {}): Promise<ChannelName[]> {
  const result = await deps.db.transaction().execute((trx) => applyUnsubscribe(trx, deps, organizationId, leadId, requested, opts));
  return result.applied;
}

/** The same, inside a transaction the caller owns (inbound keywords, the AI agent). */
export async function applyUnsubscribe(trx: Db, deps: Deps, organizationId: string, leadId: string, requested?: ChannelName[], opts: ChangeOptions = {}): Promise<ChangeResult> {
  const source = opts.source ?? 'api';
  const at = isoNow(deps.clock);
  const lead = await lockLead(trx, organizationId, leadId);
  const applied = applicableChannels(lead, requested);
  const changed = applied.filter((c) => lead[statusColumn(c)] === 'subscribed');
  if (changed.length === 0) return { applied, changed };
  const patch: Updateable<LeadsTable> = { updated_at: at };
  const events: OutboxEvent[] = [];
  for (const c of changed) {
    Object.assign(patch, { [statusColumn(c)]: 'unsubscribed', [sourceColumn(c)]: source });
    events.push({
      type: 'optOut',
      data: { ...eventData(lead, c, source), optOutMessage: opts.optOutMessage ?? null, isDoNotContact: opts.isDoNotContact ?? false },
    });
  }
  // Three tables, no write reading another's: one round trip on PostgreSQL.
  await executeTogether(trx, [
    suppressQuery(trx, organizationId, changed.map((c) => ({ channel: c, address: addressFor(lead, c) })), source, at),
    updateLeadQuery(trx, organizationId, leadId, patch),
    eventsInsert(trx, organizationId, at, events).query,
  ]);
  return { applied, changed };
}

/**
 * The reverse. An SMS/voice opt-out the lead made by carrier keyword (STOP)
 * can only be lifted by the lead's own START: carriers enforce it, so the API
 * answers 409 rather than pretend.
 */
export async function resubscribe(deps: Deps, organizationId: string, leadId: string, requested?: ChannelName[], opts: ChangeOptions = {}): Promise<ChannelName[]> {
  const result = await deps.db.transaction().execute((trx) => applyResubscribe(trx, deps, organizationId, leadId, requested, opts));
  return result.applied;
}

/** The same, inside a transaction the caller owns (the lead's own START keyword). */
export async function applyResubscribe(trx: Db, deps: Deps, organizationId: string, leadId: string, requested?: ChannelName[], opts: ChangeOptions = {}): Promise<ChangeResult> {
  const source = opts.source ?? 'api';
  const at = isoNow(deps.clock);
  const lead = await lockLead(trx, organizationId, leadId);
  const applied = applicableChannels(lead, requested);
  const changed = applied.filter((c) => lead[statusColumn(c)] === 'unsubscribed');
  const keywordLocked = changed.filter((c) => c !== 'email' && lead[sourceColumn(c)] === 'keyword');
  if (source !== 'keyword' && keywordLocked.length > 0) {
    throw new Conflict(
      `The lead opted out of ${keywordLocked.join(' and ')} by replying with a STOP keyword; only the lead can opt back in, by texting START`,
      'keyword_opt_out',
    );
  }
  if (changed.length === 0) return { applied, changed };
  const patch: Updateable<LeadsTable> = { updated_at: at };
  for (const c of changed) {
    Object.assign(patch, { [statusColumn(c)]: 'subscribed', [sourceColumn(c)]: null });
    await unsuppress(trx, organizationId, c, addressFor(lead, c));
  }
  await updateLead(trx, organizationId, leadId, patch);
  await emitEvents(trx, organizationId, at, changed.map((c) => ({ type: 'resubscribed' as const, data: eventData(lead, c, source) })));
  return { applied, changed };
}
