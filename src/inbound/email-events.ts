import { classify } from '../deliverability/error-codes.js';
import { markAddressUnreachable } from '../deliverability/deliverability.service.js';
import { findLeadByAddress } from '../lead-records/leads.repository.js';
import { normaliseAddress } from '../platform/address-digest.js';
import type { Deps } from '../platform/deps.js';
import { applyUnsubscribe, suppressAddress } from '../subscriptions/subscriptions.service.js';

export interface EmailEvent {
  /** bounce: the mailbox does not exist or refuses mail for good (a hard bounce); complaint: the recipient reported a message as spam. */
  event: 'bounce' | 'complaint';
  email: string;
  /**
   * The provider's own words (diagnostic, feedback type). Never stored: they
   * often quote the recipient ("<ann@example.org> (Ann Lee)"), and the consent
   * ledger outlives an erasure. Only a code is kept (actorOf).
   */
  detail?: string;
  /**
   * The delivery status notification's status (RFC 3463), or the SMTP reply
   * code, of a bounce: 5.x.x / 5xx is a hard bounce, 4.x.x / 4xx a soft one.
   * Absent: a hard bounce, as this endpoint always took bounces to be.
   */
  status?: string;
}

/**
 * The ledger's actor for a provider's report: a fixed code, never its text.
 * Only hard bounces are reported here (soft ones are the provider's to retry).
 */
export const actorOf = (e: EmailEvent): string =>
  e.event === 'bounce' ? 'email-provider:bounce:hard' : 'email-provider:complaint';

export type EmailEventResult = { leadId: string | null; action: 'opted_out' | 'suppressed' | 'soft_bounce' };

/** A bounce whose status says it is temporary (4.x.x, 4xx): the mailbox is full, the server busy. */
export const isSoftBounce = (e: EmailEvent): boolean =>
  e.event === 'bounce' &&
  e.status !== undefined &&
  classify({ provider: 'smtp', code: e.status }).class === 'transient';

/**
 * A hard bounce or a spam complaint reported by the email provider opts the
 * address out of email (reason BOUNCE or COMPLAINT), for every lead that holds
 * it, now or later; a hard bounce marks the lead's address unreachable too.
 * A soft bounce (status 4.x.x) is told apart and changes nothing.
 */
export async function handleEmailEvent(deps: Deps, organizationId: string, e: EmailEvent): Promise<EmailEventResult> {
  const address = normaliseAddress(e.email);
  // A soft bounce changes nothing: the sending server retries it (and a send refused with 4xx is retried by the job).
  if (isSoftBounce(e))
    return {
      leadId: (await findLeadByAddress(deps.db, organizationId, 'email', address))?.id ?? null,
      action: 'soft_bounce',
    };
  const source = e.event === 'bounce' ? 'bounce' : 'complaint';
  const opts = { source, reason: e.event === 'bounce' ? 'BOUNCE' : 'COMPLAINT', actor: actorOf(e) } as const;
  return deps.db.transaction().execute(async (trx): Promise<EmailEventResult> => {
    const lead = await findLeadByAddress(trx, organizationId, 'email', address);
    if (!lead) {
      await suppressAddress(trx, deps, organizationId, 'email', { address }, source, opts);
      return { leadId: null, action: 'suppressed' };
    }
    await applyUnsubscribe(trx, deps, organizationId, lead.id, ['email'], opts);
    // A hard bounce also marks the address unreachable (deliverability/): the gate says UNREACHABLE until the email changes.
    if (e.event === 'bounce')
      await markAddressUnreachable(trx, deps, organizationId, lead.id, 'email', address, `smtp:${e.status ?? '5.0.0'}`);
    return { leadId: lead.id, action: 'opted_out' };
  });
}
