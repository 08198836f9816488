import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { findProfileByName } from '../profile-records/profiles.repository.js';
import type { ChannelName } from '../lead-records/channels.js';
import { suppressionsFor } from '../suppression-records/suppressions.repository.js';
import { recordLeadCreated } from './lead-created.js';
import { newLeadRow } from './new-lead.js';
import { findLead, findLeadByAddress, insertLeadUnlessTaken, type LeadRow } from '../lead-records/leads.repository.js';

/** What the organization chose for people who write or call first (settings `inboundLeads`). */
export interface InboundLeadOptions {
  customerProfile: string;
  isAiOn: boolean;
}

/**
 * A lead for an unknown sender, made in the transaction that records their
 * message or call, so the message is the lead's first and nothing is lost.
 * It gets no opening: they started the conversation, and the agent answers
 * their message. An address that opted out before (an erased lead's STOP)
 * stays opted out. A profile deleted since the setting was made falls back to
 * `default` rather than losing the message.
 */
export async function createInboundLead(
  trx: Db,
  deps: Deps,
  organizationId: string,
  channel: ChannelName,
  address: string,
  options: InboundLeadOptions,
  now: Date,
): Promise<LeadRow> {
  const at = now.toISOString();
  const phone = channel === 'email' ? null : address;
  const email = channel === 'email' ? address : null;
  const profile = (await findProfileByName(trx, organizationId, options.customerProfile, 'share'))
    ? options.customerProfile
    : 'default';
  const suppressed = await suppressionsFor(trx, organizationId, deps.digests, phone, email);
  const row = newLeadRow(
    { firstName: '', phone, email, customerProfile: profile, additionalInfo: {}, isAiOn: options.isAiOn },
    suppressed,
    at,
  );
  if (!(await insertLeadUnlessTaken(trx, organizationId, row))) {
    const made = await findLeadByAddress(trx, organizationId, channel, address);
    if (made) return made;
    throw new Error(`the lead for ${channel} sender could not be made or found`);
  }
  await recordLeadCreated(trx, organizationId, row, { source: 'inbound', channel }, at);
  // biome-ignore lint/style/noNonNullAssertion: the lead was inserted in this transaction just above
  return (await findLead(trx, organizationId, row.id, true))!;
}
