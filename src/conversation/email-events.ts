import { findLeadByAddress } from '../leads/leads.repository.js';
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
}

/**
 * The ledger's actor for a provider's report: a fixed code, never its text.
 * Only hard bounces are reported here (soft ones are the provider's to retry).
 */
export const actorOf = (e: EmailEvent): string => (e.event === 'bounce' ? 'email-provider:bounce:hard' : 'email-provider:complaint');

export type EmailEventResult = { leadId: string | null; action: 'opted_out' | 'suppressed' };

/**
 * A hard bounce or a spam complaint reported by the email provider opts the
 * address out of email (reason BOUNCE or COMPLAINT), for every lead that holds
 * it, now or later. Soft bounces are the provider's to retry: send only hard ones.
 */
export async function handleEmailEvent(deps: Deps, organizationId: string, e: EmailEvent): Promise<EmailEventResult> {
  const address = normaliseAddress(e.email);
  const source = e.event === 'bounce' ? 'bounce' : 'complaint';
  const opts = { source, reason: e.event === 'bounce' ? 'BOUNCE' : 'COMPLAINT', actor: actorOf(e) } as const;
  return deps.db.transaction().execute(async (trx): Promise<EmailEventResult> => {
    const lead = await findLeadByAddress(trx, organizationId, 'email', address);
    if (!lead) {
      await suppressAddress(trx, deps, organizationId, 'email', { address }, source, opts);
      return { leadId: null, action: 'suppressed' };
    }
    await applyUnsubscribe(trx, deps, organizationId, lead.id, ['email'], opts);
    return { leadId: lead.id, action: 'opted_out' };
  });
}
