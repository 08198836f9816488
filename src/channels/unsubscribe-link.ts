import { findLead } from '../lead-records/leads.repository.js';
import type { Deps } from '../platform/deps.js';
import { applyUnsubscribe, suppressAddress } from '../subscriptions/subscriptions.service.js';
import type { UnsubscribeClaims } from './unsubscribe-token.js';

const LINK = { source: 'link', reason: 'UNSUBSCRIBE_LINK', actor: 'link' } as const;

/**
 * A click on an email's unsubscribe link. The link names the address it was
 * sent to (version 2): while the lead still holds that address the lead is
 * unsubscribed from email (an `optOut` event when it was still subscribed, so
 * a second click changes nothing); when the lead changed its address or was
 * erased, the address itself is suppressed, so no lead holding it is emailed.
 * A version-1 link names only the lead: its current address is unsubscribed.
 */
export async function unsubscribeByLink(deps: Deps, claims: UnsubscribeClaims): Promise<void> {
  const { organizationId, leadId, addressDigest } = claims;
  await deps.db.transaction().execute(async (trx) => {
    const lead = await findLead(trx, organizationId, leadId, true);
    const holds = lead?.email && (addressDigest === undefined || deps.digests.keyed(lead.email) === addressDigest);
    if (lead && holds) {
      await applyUnsubscribe(trx, deps, organizationId, leadId, ['email'], LINK);
    } else if (addressDigest !== undefined) {
      await suppressAddress(trx, deps, organizationId, 'email', { digest: addressDigest }, 'link', LINK, leadId);
    }
  });
}
