import { ExternalCheckClient } from '../compliance/external-check.js';
import type { ExternalVerdict } from '../compliance/external-verdict.js';
import { insertSendCheck } from '../compliance/send-checks.repository.js';
import { findLead } from '../lead-records/leads.repository.js';
import type { MessageRow } from '../messages/messages.repository.js';
import type { Deps } from '../platform/deps.js';
import { newId } from '../platform/ids.js';
import { readSettings } from '../settings/settings.service.js';

/** One client (and its keep-alive connections) per process configuration. */
const clients = new WeakMap<object, ExternalCheckClient>();

function clientFor(deps: Deps): ExternalCheckClient {
  let client = clients.get(deps.config);
  if (!client) {
    client = new ExternalCheckClient({
      allowPrivateUrls: deps.config.allowPrivateWebhookUrls,
      now: () => deps.clock.now(),
    });
    clients.set(deps.config, client);
  }
  return client;
}

/**
 * Asks the organization's External Compliance Check about one send, outside
 * any transaction (a slow check must not hold the lead's lock), and records the
 * outcome whatever it is. The gate then runs again with the verdict.
 */
export async function askExternalCheck(
  deps: Deps,
  organizationId: string,
  message: MessageRow,
): Promise<ExternalVerdict> {
  const settings = await readSettings(deps.db, organizationId);
  const lead = await findLead(deps.db, organizationId, message.lead_id);
  if (!settings.externalCheck || !lead) return { allowed: true, reason: 'no external check configured' };
  const outcome = await clientFor(deps).check(settings.externalCheck, {
    organizationId,
    leadId: lead.id,
    externalLeadId: lead.external_lead_id,
    channel: message.channel,
    address: message.channel === 'email' ? (lead.email ?? '') : (lead.phone ?? ''),
    text: message.text,
    messageId: message.id,
    purpose: message.purpose,
  });
  await insertSendCheck(deps.db, organizationId, {
    id: newId(),
    message_id: message.id,
    lead_id: lead.id,
    outcome: outcome.kind,
    detail: outcome.detail,
    reason: outcome.reason,
    latency_ms: Math.round(outcome.latencyMs),
    created_at: deps.clock.now().toISOString(),
  });
  return { allowed: outcome.kind === 'allowed', reason: outcome.reason ?? outcome.detail };
}
