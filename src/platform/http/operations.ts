/**
 * The operationId of every API operation and whose it is, in one table by
 * method and path (as registered, without `/v1`), so route files need not
 * carry it. `hosted`: the hosted service's operation (its public reference,
 * docs.apten.ai; the one name it publishes, `listLeads`, is used as is, the
 * others follow its page names); `parley`: Parley's own addition. A route
 * missing here gets a name made from its method and path, and counts as
 * Parley's own.
 */

export type Origin = 'hosted' | 'parley';

const OPERATIONS: Record<string, [operationId: string, origin: Origin]> = {
  'POST /leads/create': ['createLead', 'hosted'],
  'GET /leads': ['listLeads', 'hosted'],
  'GET /leads/lookup': ['lookupLead', 'hosted'],
  'GET /leads/:leadId': ['getLead', 'hosted'],
  'PATCH /leads/:leadId': ['updateLead', 'hosted'],
  'DELETE /leads/:leadId': ['deleteLead', 'parley'],
  'POST /leads/:leadId/unsubscribe': ['unsubscribeLead', 'hosted'],
  'POST /leads/:leadId/resubscribe': ['resubscribeLead', 'hosted'],
  'POST /leads/:leadId/turnOffAi': ['turnOffAi', 'hosted'],
  'POST /leads/:leadId/turnOnAi': ['turnOnAi', 'hosted'],
  'POST /leads/:leadId/addContext': ['addContext', 'hosted'],
  'POST /leads/:leadId/switchCustomerProfile': ['switchCustomerProfile', 'hosted'],
  'POST /leads/:leadId/tags/remove': ['removeTags', 'hosted'],
  'PUT /leads/:leadId/tags': ['replaceTags', 'hosted'],
  'GET /leads/:leadId/messages': ['getMessages', 'hosted'],
  'GET /leads/:leadId/events': ['listLeadEvents', 'hosted'],
  'POST /leads/:leadId/sendMessage': ['sendMessage', 'hosted'],
  'POST /dnc/register': ['registerDnc', 'hosted'],
  'GET /dnc': ['listDnc', 'parley'],
  'GET /dnc/check': ['checkDnc', 'parley'],
  'POST /dnc/remove': ['removeDnc', 'parley'],
  'GET /leads/:leadId/timeline': ['getLeadTimeline', 'parley'],
  'GET /leads/:leadId/consent': ['getLeadConsent', 'parley'],
  'GET /consent/export': ['exportConsent', 'parley'],
  'GET /leads/:leadId/context': ['getLeadContext', 'parley'],
  'GET /leads/:leadId/agentTurns': ['listAgentTurns', 'parley'],
  'POST /inbound': ['receiveInboundMessage', 'parley'],
  'POST /inbound/emailEvents': ['receiveEmailEvent', 'parley'],
  'GET /customerProfiles': ['listCustomerProfiles', 'parley'],
  'POST /customerProfiles': ['createCustomerProfile', 'parley'],
  'GET /customerProfiles/:name': ['getCustomerProfile', 'parley'],
  'PATCH /customerProfiles/:name': ['updateCustomerProfile', 'parley'],
  'DELETE /customerProfiles/:name': ['deleteCustomerProfile', 'parley'],
  'GET /settings': ['getSettings', 'parley'],
  'PATCH /settings': ['updateSettings', 'parley'],
  'POST /webhooks': ['createWebhook', 'parley'],
  'GET /webhooks': ['listWebhooks', 'parley'],
  'GET /webhooks/:id': ['getWebhook', 'parley'],
  'PATCH /webhooks/:id': ['updateWebhook', 'parley'],
  'DELETE /webhooks/:id': ['deleteWebhook', 'parley'],
  'POST /webhooks/:id/rotateSecret': ['rotateWebhookSecret', 'parley'],
  'GET /webhooks/:id/deliveries': ['listWebhookDeliveries', 'parley'],
  'POST /webhooks/:id/deliveries/:deliveryId/replay': ['replayWebhookDelivery', 'parley'],
  'GET /unsubscribe/:token': ['showUnsubscribePage', 'parley'],
  'POST /unsubscribe/:token': ['unsubscribeByLink', 'parley'],
  'POST /providers/twilio/sms': ['twilioIncomingSms', 'parley'],
  'POST /providers/twilio/voice/gather': ['twilioVoiceGather', 'parley'],
  'POST /providers/twilio/status': ['twilioStatusCallback', 'parley'],
  'POST /sendingNumbers': ['createSendingNumber', 'parley'],
  'GET /sendingNumbers': ['listSendingNumbers', 'parley'],
  'GET /sendingNumbers/:id': ['getSendingNumber', 'parley'],
  'PATCH /sendingNumbers/:id': ['updateSendingNumber', 'parley'],
  'DELETE /sendingNumbers/:id': ['deleteSendingNumber', 'parley'],
  'POST /campaigns': ['createCampaign', 'parley'],
  'GET /campaigns': ['listCampaigns', 'parley'],
  'GET /campaigns/:id': ['getCampaign', 'parley'],
  'POST /campaigns/:id/pause': ['pauseCampaign', 'parley'],
  'POST /campaigns/:id/resume': ['resumeCampaign', 'parley'],
  'POST /campaigns/:id/cancel': ['cancelCampaign', 'parley'],
  'POST /imports': ['startImport', 'parley'],
  'GET /imports/:id': ['getImport', 'parley'],
  'GET /imports/:id/rejects': ['getImportRejects', 'parley'],
  'GET /users': ['listUsers', 'parley'],
  'GET /users/:id': ['getUser', 'parley'],
  'PATCH /users/:id': ['updateUserRep', 'parley'],
  'PUT /leads/:leadId/owner': ['setLeadOwner', 'parley'],
  'POST /leads/:leadId/handoff': ['handOffLead', 'parley'],
  'POST /leads/:leadId/handoff/ack': ['acknowledgeHandoff', 'parley'],
  'POST /leads/:leadId/handoff/close': ['closeHandoff', 'parley'],
  'GET /handoffs': ['listHandoffs', 'parley'],
};

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** `PUT /leads/:leadId/notes` -> `putLeadsNotesByLeadId`: unique per method and path. */
function generatedId(method: string, path: string): string {
  const segments = path.split('/').filter(Boolean);
  const words = segments
    .filter((s) => !s.startsWith(':'))
    .map((s) => capital(s.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())));
  const params = segments.filter((s) => s.startsWith(':')).map((s) => capital(s.slice(1)));
  return `${method.toLowerCase()}${words.join('')}${params.length ? `By${params.join('And')}` : ''}`;
}

/** `path` as registered without `/v1`, with `:params` or `{params}`. */
export function operationOf(method: string, path: string): { operationId: string; origin: Origin } {
  const key = `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`;
  const known = OPERATIONS[key];
  if (known) return { operationId: known[0], origin: known[1] };
  return { operationId: generatedId(method, key.slice(key.indexOf(' ') + 1)), origin: 'parley' };
}
