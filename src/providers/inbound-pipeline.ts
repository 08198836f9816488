import type { ChannelName } from '../lead-records/channels.js';
import type { Deps } from '../platform/deps.js';

/**
 * What a provider's webhook hands the inbound pipeline (inbound/inbound.ts) and what it hears back. The pipeline
 * is far above the adapters (it asks leads, the agent, hand-offs), so providers/ never imports it: app.ts passes
 * its functions in when it mounts a provider's webhooks (providers/twilio/twilio.routes.ts).
 */
export interface InboundInput {
  channel: ChannelName;
  from: string;
  to?: string | null;
  text: string;
  /** Email only: the subject line. */
  subject?: string | null;
  providerMessageId?: string | null;
  /** Who delivered it, for the consent ledger: `twilio:<sid>` (signature verified) or `key:<prefix>` (an inbound:write key). */
  actor?: string | null;
}

export type InboundAction =
  | 'unmatched'
  | 'opted_out'
  | 'do_not_contact'
  | 'resubscribed'
  | 'help'
  | 'conversation'
  | 'ignored';

export interface InboundResult {
  leadId: string | null;
  messageId: string | null;
  action: InboundAction;
}

/** The pipeline's two doors, as inbound/inbound.ts exports them. */
export interface InboundPipeline {
  handleInbound(deps: Deps, organizationId: string, input: InboundInput): Promise<InboundResult>;
  /** At most once per `receiptId`, the provider's own id of the delivery: a replay answers `duplicate`. */
  handleProviderInbound(
    deps: Deps,
    organizationId: string,
    input: InboundInput,
    receiptId: string,
  ): Promise<InboundResult | 'duplicate'>;
}
