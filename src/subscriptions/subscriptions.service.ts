import { noteLeadFact } from '../analytics-records/recorder.repository.js';
import type { Updateable } from 'kysely';
import { mayLift, strongerSource, type Lifter, type OptOutSource } from './consent-rules.js';
import { emitEvents, eventsInsert, type OutboxEvent } from '../events/outbox.repository.js';
import { optOutEvent, resubscribedEvent } from '../events/payloads.js';
import {
  findLeadForChange,
  otherLeadsWithEmail,
  updateLead,
  updateLeadQuery,
  type LeadForChange,
  type LeadRow,
} from '../lead-records/leads.repository.js';
import { settingsFromDocument } from '../settings/settings.service.js';
import { executeTogether } from '../platform/db/together.js';
import { isoNow } from '../platform/clock.js';
import type { Db, LeadsTable } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { DomainError, leadNotFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import {
  type ChannelName,
  inChannelOrder,
  reachableChannels,
  sourceColumn,
  statusColumn,
} from '../lead-records/channels.js';
import { blockQueuedSendsQuery } from '../messages/messages.repository.js';
import { stopFollowUpsColumns } from '../followups/followups.service.js';
import { optOutEffectQueries } from './opt-out-effects.js';
import { consentInsert, type NewConsent } from './consent.repository.js';
import {
  suppressionSource,
  suppressQuery,
  unsuppress,
  type Suppression,
} from '../suppression-records/suppressions.repository.js';

export type { OptOutSource } from './consent-rules.js';

export interface ChangeOptions {
  source?: OptOutSource;
  /** The lead's own words, when the change came from a message. */
  optOutMessage?: string | null;
  isDoNotContact?: boolean;
  /** Why, as the hosted service names it for email (MANUAL, COMPLAINT, BOUNCE, UNSUBSCRIBE_LINK), or a note. */
  reason?: string | null;
  /** Who asked: `key:<prefix>`, `twilio:<sid>`, `link`, `agent`, `system` (the consent ledger keeps it). */
  actor?: string | null;
  /** The inbound message that carried the request. */
  inboundMessageId?: string | null;
}

export interface ChangeResult {
  applied: ChannelName[];
  /** Channels whose subscription state changed (one event each). */
  changed: ChannelName[];
  /** Channels whose state or recorded source changed (one consent record each). */
  updated: ChannelName[];
}

/**
 * Which channels a request applies to: the requested ones (or all the lead can
 * receive), widened to sms+voice when the organization couples them, narrowed
 * to those the lead can receive. None left is a 400 with the contract's text.
 */
function applicableChannels(lead: LeadForChange, requested?: ChannelName[]): ChannelName[] {
  const reachable = reachableChannels(lead);
  const wanted = new Set(requested ?? reachable);
  if ((wanted.has('sms') || wanted.has('voice')) && settingsFromDocument(lead.org_settings).smsVoiceOptOutCoupled)
    wanted.add('sms').add('voice');
  const applied = inChannelOrder([...wanted].filter((c) => reachable.includes(c)));
  if (applied.length === 0) {
    throw wanted.has('email')
      ? new DomainError('channel_unavailable', { missing: 'email' })
      : new DomainError('channel_unavailable', { missing: 'phone' });
  }
  return applied;
}

/** The lead with its organization's settings, locked until the transaction ends. */
async function lockLead(trx: Db, organizationId: string, leadId: string): Promise<LeadForChange> {
  const lead = await findLeadForChange(trx, organizationId, leadId);
  if (!lead) throw leadNotFound(leadId);
  return lead;
}

const addressFor = (lead: Pick<LeadRow, 'phone' | 'email'>, c: ChannelName): string =>
  // biome-ignore lint/style/noNonNullAssertion: callers pass only channels from applied, which keeps the reachable ones (the lead has the address)
  c === 'email' ? lead.email! : lead.phone!;

/** The optOut payload (events/payloads.ts builds every documented shape). */
const optOutOf = (lead: LeadRow, channel: ChannelName, source: string, opts: ChangeOptions) =>
  optOutEvent(lead, {
    channel,
    source,
    optOutMessage: opts.optOutMessage,
    isDoNotContact: opts.isDoNotContact,
    actor: opts.actor,
  });

function consentRow(
  deps: Deps,
  lead: LeadRow,
  channel: ChannelName,
  action: NewConsent['action'],
  source: string,
  opts: ChangeOptions,
  at: string,
): NewConsent {
  return {
    id: newId(),
    lead_id: lead.id,
    channel,
    address_digest: deps.digests.keyed(addressFor(lead, channel)),
    action,
    source,
    reason: opts.reason ?? null,
    actor: opts.actor ?? null,
    inbound_message_id: opts.inboundMessageId ?? null,
    created_at: at,
  };
}

export async function unsubscribe(
  deps: Deps,
  organizationId: string,
  leadId: string,
  requested?: ChannelName[],
  opts: ChangeOptions = {},
): Promise<ChannelName[]> {
  const result = await deps.db
    .transaction()
    .execute((trx) => applyUnsubscribe(trx, deps, organizationId, leadId, requested, opts));
  return result.applied;
}

/**
 * Unsubscribes the lead's addresses, in the caller's transaction with the lead
 * row locked: the address is suppressed organization-wide (every lead holding
 * it, now or later), one `optOut` event is written per lead and channel that
 * actually changed, and every change of state or source is a consent record.
 * N concurrent requests for one lead yield exactly one event per channel, and a
 * rolled-back request none. A channel already opted out keeps the source that
 * is hardest to lift (subscriptions/consent-rules.ts).
 */
export async function applyUnsubscribe(
  trx: Db,
  deps: Deps,
  organizationId: string,
  leadId: string,
  requested?: ChannelName[],
  opts: ChangeOptions = {},
): Promise<ChangeResult> {
  const source = opts.source ?? 'api';
  const at = isoNow(deps.clock);
  const lead = await lockLead(trx, organizationId, leadId);
  const applied = applicableChannels(lead, requested);
  const patch: Updateable<LeadsTable> = { updated_at: at };
  const changed: ChannelName[] = [];
  const suppressions: Suppression[] = [];
  const events: OutboxEvent[] = [];
  const consent: NewConsent[] = [];
  for (const c of applied) {
    const current = lead[statusColumn(c)] === 'unsubscribed' ? lead[sourceColumn(c)] : null;
    const next = strongerSource(current, source);
    if (lead[statusColumn(c)] === 'subscribed') {
      changed.push(c);
      events.push(optOutOf(lead, c, source, opts));
    } else if (next === current) {
      continue;
    }
    Object.assign(patch, { [statusColumn(c)]: 'unsubscribed', [sourceColumn(c)]: next });
    suppressions.push({ channel: c, digest: deps.digests.keyed(addressFor(lead, c)), source: next });
    consent.push(consentRow(deps, lead, c, 'opt_out', next, opts, at));
  }
  const updated = suppressions.map((s) => s.channel);
  if (updated.length === 0) return { applied, changed, updated };
  // An opt-out ends the lead's follow-ups (followups/): written with the rest of the lead.
  Object.assign(
    patch,
    stopFollowUpsColumns(lead, `stopped: the lead opted out of ${updated.join(' and ')} (${source})`),
  );
  // Up to six tables, no write reading another's: one round trip on PostgreSQL. Sends still queued on these
  // channels (an AI reply, a HELP answer, a campaign's opening) are never sent: each is recorded blocked.
  // What capabilities above write on an opt-out (campaigns/: its enrollments), in this batch (opt-out-effects.ts).
  await executeTogether(trx, [
    suppressQuery(trx, organizationId, suppressions, at),
    updateLeadQuery(trx, organizationId, leadId, patch),
    consentInsert(trx, organizationId, consent),
    blockQueuedSendsQuery(
      trx,
      organizationId,
      leadId,
      suppressions.map((s) => s.channel),
      'OPTED_OUT_BEFORE_SEND',
      'the lead opted out before it was sent',
    ),
    ...(events.length > 0 ? [eventsInsert(trx, organizationId, at, events).query] : []),
    ...optOutEffectQueries(trx, organizationId, lead, updated, at),
  ]);
  await noteLeadFact(trx, organizationId, leadId, 'opted_out_at', at);
  // A phone is unique in an organization; an email is not: the other holders are suppressed too.
  if (updated.includes('email') && lead.email && lead.email_shared)
    await followAddress(trx, deps, organizationId, lead, 'email', 'opt_out', source, opts, at);
  return { applied, changed, updated };
}

/** Brings every other lead holding the address in line with the change just made to one of them. */
async function followAddress(
  trx: Db,
  deps: Deps,
  organizationId: string,
  lead: LeadRow,
  channel: ChannelName,
  action: 'opt_out' | 'opt_in',
  source: string,
  opts: ChangeOptions,
  at: string,
): Promise<void> {
  // biome-ignore lint/style/noNonNullAssertion: both callers (opt-out and opt-in) call it only when lead.email is set
  for (const other of await otherLeadsWithEmail(trx, organizationId, lead.email!, lead.id)) {
    const status = other[statusColumn(channel)];
    if (action === 'opt_out' ? status === 'unsubscribed' : status === 'subscribed') continue;
    const nextSource = action === 'opt_out' ? source : null;
    await updateLead(trx, organizationId, other.id, {
      [statusColumn(channel)]: action === 'opt_out' ? 'unsubscribed' : 'subscribed',
      [sourceColumn(channel)]: nextSource,
      updated_at: at,
    });
    await executeTogether(trx, [
      consentInsert(trx, organizationId, [consentRow(deps, other, channel, action, source, opts, at)]),
      ...(action === 'opt_out' ? optOutEffectQueries(trx, organizationId, other, [channel], at) : []),
    ]);
    await emitEvents(trx, organizationId, at, [
      action === 'opt_out' ? optOutOf(other, channel, source, opts) : resubscribedEvent(other, channel, source),
    ]);
  }
}

export async function resubscribe(
  deps: Deps,
  organizationId: string,
  leadId: string,
  requested?: ChannelName[],
  opts: ChangeOptions = {},
  by: Lifter = { kind: 'api' },
): Promise<ChannelName[]> {
  const result = await deps.db.transaction().execute(async (trx) => {
    const applied = await applyResubscribe(trx, deps, organizationId, leadId, requested, opts, by);
    // The hosted service's reference: resubscribing through the API also turns the AI back on for the
    // lead. Same transaction: a refused (409) resubscribe leaves the AI as it was.
    if (by.kind === 'api')
      await updateLead(trx, organizationId, leadId, { is_ai_on: 1, updated_at: isoNow(deps.clock) });
    return applied;
  });
  return result.applied;
}

const LIFT_REFUSAL: Record<string, string> = {
  keyword: 'by replying with a STOP keyword; only the lead can opt back in, by texting START',
  phrase: 'in their own words; only the lead can opt back in, by texting START',
  message: 'in their own words; only the lead can opt back in, by texting START',
  ai: 'in their own words; only the lead can opt back in, by texting START',
  carrier:
    'at the carrier (the provider refused the number as unsubscribed); only the lead can opt back in, by texting START',
  link: 'through an unsubscribe link; only the lead can give consent again',
  complaint: 'by reporting a message as spam; only the lead can give consent again',
  voice: 'during a call; only the lead can give consent again',
  dnc: 'by asking never to be contacted; remove the number from the Do Not Contact list first',
};

/**
 * The reverse, in the caller's transaction. Who may lift what is one table
 * (subscriptions/consent-rules.ts): an opt-out the lead made cannot be lifted by
 * the organization's API (409, naming how it can be), only by the lead.
 */
export async function applyResubscribe(
  trx: Db,
  deps: Deps,
  organizationId: string,
  leadId: string,
  requested?: ChannelName[],
  opts: ChangeOptions = {},
  by: Lifter = { kind: 'api' },
): Promise<ChangeResult> {
  const source = opts.source ?? 'api';
  const at = isoNow(deps.clock);
  const lead = await lockLead(trx, organizationId, leadId);
  const applied = applicableChannels(lead, requested);
  const unsubscribed = applied.filter((c) => lead[statusColumn(c)] === 'unsubscribed');
  const refused = unsubscribed.filter((c) => !mayLift(lead[sourceColumn(c)], c, by));
  if (by.kind === 'api' && refused.length > 0) {
    // biome-ignore lint/style/noNonNullAssertion: refused.length > 0 was checked on the line above
    const why = LIFT_REFUSAL[lead[sourceColumn(refused[0]!)] ?? ''] ?? 'in a way only the lead can undo';
    throw new DomainError('keyword_opt_out', { channels: refused.join(' and '), why });
  }
  const changed = unsubscribed.filter((c) => !refused.includes(c));
  if (changed.length === 0) return { applied, changed, updated: changed };
  const patch: Updateable<LeadsTable> = { updated_at: at };
  for (const c of changed) {
    Object.assign(patch, { [statusColumn(c)]: 'subscribed', [sourceColumn(c)]: null });
    await unsuppress(trx, organizationId, c, addressFor(lead, c), deps.digests);
  }
  await updateLead(trx, organizationId, leadId, patch);
  await executeTogether(trx, [
    consentInsert(
      trx,
      organizationId,
      changed.map((c) => consentRow(deps, lead, c, 'opt_in', source, opts, at)),
    ),
  ]);
  await emitEvents(
    trx,
    organizationId,
    at,
    changed.map((c) => resubscribedEvent(lead, c, source)),
  );
  if (changed.includes('email') && lead.email && lead.email_shared)
    await followAddress(trx, deps, organizationId, lead, 'email', 'opt_in', source, opts, at);
  return { applied, changed, updated: changed };
}

/**
 * Suppresses an address that no lead may hold any more (an unsubscribe link of
 * an erased lead, a bounce for an address since changed): the opt-out still
 * binds every lead that holds it later, and the ledger records it without a lead.
 */
export async function suppressAddress(
  trx: Db,
  deps: Deps,
  organizationId: string,
  channel: ChannelName,
  target: { address: string } | { digest: string },
  source: OptOutSource,
  opts: ChangeOptions = {},
  leadId: string | null = null,
): Promise<void> {
  const at = isoNow(deps.clock);
  const digest = 'digest' in target ? target.digest : deps.digests.keyed(target.address);
  // A stronger opt-out already held (a DNC request, a complaint) is kept: a later plain STOP must not make it liftable by START.
  const kept = strongerSource((await suppressionSource(trx, organizationId, channel, [digest])) ?? null, source);
  await executeTogether(trx, [
    suppressQuery(trx, organizationId, [{ channel, digest, source: kept }], at),
    consentInsert(trx, organizationId, [
      {
        id: newId(),
        lead_id: leadId,
        channel,
        address_digest: digest,
        action: 'opt_out',
        source,
        reason: opts.reason ?? null,
        actor: opts.actor ?? null,
        inbound_message_id: opts.inboundMessageId ?? null,
        created_at: at,
      },
    ]),
  ]);
}
